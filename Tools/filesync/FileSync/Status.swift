import Chronicle
import Foundation

/// The state of a synced folder.
public struct FolderStatus: Sendable {
  public var name: String
  public var peer: PeerID
  /// Paths whose current version is a file, and their total size.
  public var files = 0
  public var bytes = 0
  /// Files whose current content has not arrived yet.
  public var waitingForContent: [String] = []
  /// Files on disk that differ from the last scan (run scan or sync).
  public var changedSinceScan: [String] = []
  /// Conflict copies made so far.
  public var conflicts: [ConflictRecord] = []
  /// Paths refused from peers, and why.
  public var refused: [(path: String, reason: String)] = []
  /// How many events of each peer the index holds.
  public var versionVector: VersionVector
}

extension SyncedFolder {
  /// Counts files, finds what waits for content or for a scan, lists
  /// conflicts and refused paths; reads the disk's metadata, not its content.
  public func status() throws -> FolderStatus {
    let (current, contents, conflicts) = try database.read { db in
      (try currentVersions(db), try ContentRecord.fetchAll(db), try ConflictRecord.order(by: \.copyPath).fetchAll(db))
    }
    let contentsByHash = Dictionary(contents.map { ($0.hash, $0) }, uniquingKeysWith: { first, _ in first })
    let localFiles = try local.files()
    var status = FolderStatus(name: name, peer: database.peerID, versionVector: try database.versionVector())
    status.conflicts = conflicts
    let refusals = try local.refusals()
    status.refused = current.sorted { $0.key < $1.key }.compactMap { path, version in
      guard let reason = refusals[version.id], localFiles[path]?.versionID != version.id else { return nil }
      return (path, reason)
    }
    for (path, version) in current.sorted(by: { $0.key < $1.key }) {
      guard let hash = version.contentHash else { continue }
      status.files += 1
      status.bytes += version.size
      if localFiles[path]?.versionID != version.id, status.refused.allSatisfy({ $0.path != path }) {
        let complete = try contentsByHash[hash].map { try ContentChunks.isComplete($0, in: objects) } ?? false
        if !complete { status.waitingForContent.append(path) }
      }
    }
    for (path, known) in localFiles.sorted(by: { $0.key < $1.key }) where known.contentHash != nil {
      let url = root.appendingPathComponent(path)
      if FileStat.of(url.path).map({ !$0.holds(known, at: url) }) ?? true { status.changedSinceScan.append(path) }
    }
    return status
  }
}
