import Chronicle
import Foundation

/// What materializing the index on disk did.
public struct MaterializeReport: Sendable, Equatable {
  /// Files written (new content assembled, verified and renamed into place).
  public var written: [String] = []
  /// Files removed because their current version is a deletion.
  public var removed: [String] = []
  /// Files already holding their current content (only the record changed).
  public var adopted = 0
  /// Files whose content has not arrived yet (written at a later sync).
  public var waitingForContent: [String] = []
  /// Files changed on disk since the last scan: left alone (the next scan
  /// records them, and a concurrent edit becomes a conflict copy).
  public var changedLocally: [String] = []
  /// Paths refused: they would leave the folder, or something is in the way.
  public var refused: [(path: String, reason: String)] = []

  public static func == (lhs: MaterializeReport, rhs: MaterializeReport) -> Bool {
    lhs.written == rhs.written && lhs.removed == rhs.removed && lhs.adopted == rhs.adopted && lhs.waitingForContent == rhs.waitingForContent
      && lhs.changedLocally == rhs.changedLocally && lhs.refused.map(\.path) == rhs.refused.map(\.path)
  }
}

extension SyncedFolder {
  /// Makes the disk match the index: each path whose current version is not
  /// the one on disk gets that version's content, or is removed when it is a
  /// deletion. Content is assembled from verified chunks into a temporary
  /// file and renamed into place, so a partly received file never replaces a
  /// good one. A file changed since the last scan is never overwritten, and
  /// a path that would lead out of the folder (`..`, absolute, through a
  /// symbolic link) is refused and reported.
  @discardableResult
  public func materialize() throws -> MaterializeReport {
    var report = MaterializeReport()
    let (current, contents) = try database.read { db in
      (try currentVersions(db), try ContentRecord.fetchAll(db))
    }
    let contentsByHash = Dictionary(contents.map { ($0.hash, $0) }, uniquingKeysWith: { first, _ in first })
    let localFiles = try local.files()
    var updated: [LocalFile] = []
    for (path, version) in current.sorted(by: { $0.key < $1.key }) {
      let known = localFiles[path]
      if known?.versionID == version.id { continue }
      let location: URL
      do {
        location = try FolderPath.location(of: path, in: root)
      } catch {
        let reason = (error as? FileSyncError).map { if case .refusedPath(_, let reason) = $0 { reason } else { "\($0)" } } ?? "\(error)"
        report.refused.append((path, reason))
        try local.refuse(versionID: version.id, path: path, reason: reason)
        continue
      }
      // The disk must still hold what was last recorded there.
      let status = FileStat.of(location.path)
      let inStep: Bool =
        if let known, known.contentHash != nil { status.map { $0.holds(known, at: location) } ?? false } else { status == nil }
      guard inStep else {
        report.changedLocally.append(path)
        continue
      }
      guard let hash = version.contentHash else {
        if status != nil {
          do {
            try FileManager.default.removeItem(at: location)
          } catch {
            throw FileSyncError.io(path: location.path, reason: "cannot remove (\(error.localizedDescription))")
          }
          removeEmptyFolders(above: location)
          report.removed.append(path)
        }
        updated.append(LocalFile(path: path, versionID: version.id, contentHash: nil))
        continue
      }
      if let known, known.contentHash == hash {
        updated.append(LocalFile(path: path, versionID: version.id, contentHash: hash, size: known.size,
          modifiedNanoseconds: known.modifiedNanoseconds, inode: known.inode))
        report.adopted += 1
        continue
      }
      guard let content = contentsByHash[hash], try ContentChunks.isComplete(content, in: objects) else {
        report.waitingForContent.append(path)
        continue
      }
      let temporary = temporaryFolder.appendingPathComponent(UUID().uuidString)
      do {
        try ContentChunks.assemble(content, from: objects, to: temporary)
      } catch {
        // A chunk list that does not give its content (a corrupt chunk, a
        // forged list): this file waits, the others go on.
        report.refused.append((path, "\(error)"))
        try local.refuse(versionID: version.id, path: path, reason: "\(error)")
        continue
      }
      do {
        try FileManager.default.setAttributes(
          [.modificationDate: Date(timeIntervalSince1970: Double(version.modifiedAt) / 1000)], ofItemAtPath: temporary.path)
        try FileManager.default.createDirectory(at: location.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Checked again right before the rename: nothing may have appeared in the way.
        _ = try FolderPath.location(of: path, in: root)
        guard rename(temporary.path, location.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
      } catch {
        try? FileManager.default.removeItem(at: temporary)
        if let error = error as? FileSyncError { throw error }
        throw FileSyncError.io(path: location.path, reason: "cannot write (\(error.localizedDescription))")
      }
      guard let written = FileStat.of(location.path) else { throw FileSyncError.io(path: location.path, reason: "vanished after writing") }
      updated.append(LocalFile(path: path, versionID: version.id, contentHash: hash, status: written))
      report.written.append(path)
    }
    try local.save(updated)
    return report
  }

  /// Removes folders left empty by a removal, up to the synced folder.
  private func removeEmptyFolders(above file: URL) {
    var folder = file.deletingLastPathComponent().standardizedFileURL
    while folder.path.count > root.path.count, folder.path.hasPrefix(root.path + "/") {
      guard (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.isEmpty == true else { return }
      guard rmdir(folder.path) == 0 else { return }
      folder = folder.deletingLastPathComponent()
    }
  }
}
