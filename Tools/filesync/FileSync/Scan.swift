import Chronicle
import Foundation

/// What a scan found on disk.
public struct ScanReport: Sendable, Equatable {
  public var added: [String] = []
  public var edited: [String] = []
  /// (from, to) pairs: a deleted path whose content reappeared at a new path.
  public var renamed: [(from: String, to: String)] = []
  public var deleted: [String] = []
  /// Files left alone: symbolic links, special files, names that cannot be synced.
  public var skipped: [(path: String, reason: String)] = []
  /// Files that changed while they were read (taken at the next scan).
  public var changing: [String] = []
  public var unchanged = 0

  public var changeCount: Int { added.count + edited.count + renamed.count + deleted.count }

  public static func == (lhs: ScanReport, rhs: ScanReport) -> Bool {
    lhs.added == rhs.added && lhs.edited == rhs.edited && lhs.renamed.map { [$0.from, $0.to] } == rhs.renamed.map { [$0.from, $0.to] }
      && lhs.deleted == rhs.deleted && lhs.changing == rhs.changing && lhs.unchanged == rhs.unchanged
  }
}

extension SyncedFolder {
  /// Records what changed on disk since the last scan as new versions, in
  /// one transaction (one event): additions, edits (by content hash, so a
  /// touched but unchanged file is no edit), renames (a deleted path whose
  /// content reappears elsewhere) and deletions. New contents are stored as
  /// chunks. Files whose size, time and inode are unchanged are not read.
  @discardableResult
  public func scan() throws -> ScanReport {
    var report = ScanReport()
    var localFiles = try local.files()
    let current = try database.read { db in try currentVersions(db) }
    var onDisk: [String: FileStat] = [:]
    walk(root, relative: "", into: &onDisk, report: &report)

    var versions: [FileVersion] = []
    var contents: [ContentRecord] = []
    var updatedLocal: [LocalFile] = []
    var additions: [Int] = []
    for (path, status) in onDisk.sorted(by: { $0.key < $1.key }) {
      let known = localFiles[path]
      if let known, known.contentHash != nil, status.matches(known) {
        report.unchanged += 1
        continue
      }
      guard let stored = try ContentChunks.store(fileAt: root.appendingPathComponent(path), into: objects) else {
        report.changing.append(path)
        continue
      }
      let hash = stored.record.hash
      if let known, known.contentHash == hash {
        // Touched, not changed.
        updatedLocal.append(LocalFile(path: path, versionID: known.versionID, contentHash: hash, status: stored.status))
        report.unchanged += 1
      } else if let version = current[path], version.contentHash == hash {
        // The index's current content is already here: adopt it.
        updatedLocal.append(LocalFile(path: path, versionID: version.id, contentHash: hash, status: stored.status))
        report.unchanged += 1
      } else {
        let isEdit = known?.contentHash != nil
        let version = newVersion(
          path: path, change: isEdit ? .edited : .added, contentHash: hash, size: stored.record.size,
          modifiedAt: Int(stored.status.modifiedNanoseconds / 1_000_000), base: known?.versionID)
        if isEdit { report.edited.append(path) } else { additions.append(versions.count) }
        versions.append(version)
        contents.append(stored.record)
        updatedLocal.append(LocalFile(path: path, versionID: version.id, contentHash: hash, status: stored.status))
      }
    }
    var deletedByHash: [String: [String]] = [:]
    for (path, known) in localFiles.sorted(by: { $0.key < $1.key }) where known.contentHash != nil && onDisk[path] == nil {
      let version = newVersion(path: path, change: .deleted, contentHash: nil, size: 0, modifiedAt: wallClock(), base: known.versionID)
      versions.append(version)
      updatedLocal.append(LocalFile(path: path, versionID: version.id, contentHash: nil))
      deletedByHash[known.contentHash!, default: []].append(path)
      report.deleted.append(path)
    }
    // An addition whose content was deleted elsewhere in this scan is a rename.
    for index in additions {
      let path = versions[index].path
      if let hash = versions[index].contentHash, var sources = deletedByHash[hash], !sources.isEmpty {
        let source = sources.removeFirst()
        deletedByHash[hash] = sources
        versions[index].change = .renamed
        versions[index].detail = source
        // Recorded at the same moment as the deletion it pairs with (history
        // shows the two as one move; a clock tick between them split it).
        if let deletion = versions.firstIndex(where: { $0.path == source && $0.change == .deleted }) {
          versions[index].recordedAt = versions[deletion].recordedAt
        }
        report.renamed.append((source, path))
        report.deleted.removeAll { $0 == source }
      } else {
        report.added.append(path)
      }
    }
    if !versions.isEmpty {
      try database.write { db in try record(versions, contents: contents, db) }
    }
    try local.save(updatedLocal)
    for file in updatedLocal { localFiles[file.path] = file }
    return report
  }

  /// Collects the regular files under `directory`, skipping filesync's state,
  /// symbolic links and special files.
  private func walk(_ directory: URL, relative: String, into files: inout [String: FileStat], report: inout ScanReport) {
    guard let entries = DirectoryNames.entries(of: directory.path) else {
      report.skipped.append((relative.isEmpty ? "." : relative, "cannot list this folder"))
      return
    }
    var names: [String] = []
    for entry in entries {
      guard let name = entry.name else {
        let path = relative.isEmpty ? entry.shown : relative + "/" + entry.shown
        report.skipped.append((path, "its name is not valid UTF-8, so it cannot be recorded for other systems (not synced). Fix: rename it"))
        continue
      }
      names.append(name)
    }
    for name in names.sorted() {
      let path = relative.isEmpty ? name : relative + "/" + name
      if relative.isEmpty, name == Self.stateFolder { continue }
      let url = directory.appendingPathComponent(name)
      guard let status = FileStat.of(url.path) else { continue }
      switch status.kind {
      case .directory:
        walk(url, relative: path, into: &files, report: &report)
      case .regular:
        do {
          try FolderPath.validate(path)
          files[path] = status
        } catch {
          report.skipped.append((path, "\(error)"))
        }
      case .symbolicLink:
        report.skipped.append((path, "symbolic link (not followed, not synced)"))
      case .other:
        report.skipped.append((path, "special file (not synced)"))
      }
    }
  }
}
