import Chronicle
import Foundation

/// One entry of a path's history.
public struct HistoryEntry: Sendable, Equatable {
  public var version: FileVersion
  /// Whether it is the path's current version.
  public var isCurrent: Bool
  /// Whether its content is stored on this peer (so it can be restored).
  public var isRestorable: Bool
  /// For a deletion that moved the file away: the new path.
  public var movedTo: String?
}

extension SyncedFolder {
  /// Every version of `path`, oldest first: who changed it, when and how,
  /// as the log recorded it on every peer; renames away from it included.
  public func history(of path: String) throws -> [HistoryEntry] {
    let (versions, movedAway, current, contents) = try database.read { db in
      let versions = try FileVersion.where { $0.path == path }.order { ($0.recordedAt, $0.id) }.fetchAll(db)
      let movedAway = try FileVersion.where { $0.change == FileVersion.Change.renamed && $0.detail == path }.fetchAll(db)
      let current = try FileEntry.find(path).fetchOne(db)?.versionID
      let hashes = Set(versions.compactMap(\.contentHash))
      let contents = try ContentRecord.fetchAll(db).filter { hashes.contains($0.hash) }
      return (versions, movedAway, current, contents)
    }
    guard !versions.isEmpty || !movedAway.isEmpty else { throw FileSyncError.unknownPath(path) }
    var restorable: [String: Bool] = [:]
    for content in contents { restorable[content.hash] = try ContentChunks.isComplete(content, in: objects) }
    var entries = versions.map { version in
      HistoryEntry(
        version: version, isCurrent: version.id == current, isRestorable: version.contentHash.map { restorable[$0] ?? false } ?? true)
    }
    // A rename is a deletion here and an addition there, recorded together:
    // show the deletion as the move.
    for moved in movedAway {
      if let index = entries.firstIndex(where: {
        $0.version.isDeletion && $0.movedTo == nil && $0.version.peer == moved.peer && $0.version.recordedAt == moved.recordedAt
      }) {
        entries[index].movedTo = moved.path
      } else {
        entries.append(HistoryEntry(version: moved, isCurrent: false, isRestorable: false, movedTo: moved.path))
      }
    }
    return entries.sorted { ($0.version.recordedAt, $0.version.id.uuidString) < ($1.version.recordedAt, $1.version.id.uuidString) }
  }

  /// Brings back the version `path` had at `time` (milliseconds since 1970)
  /// as a new version, and writes it to disk. Local changes are scanned
  /// first, so they stay in the history. Throws when the path had no version
  /// then, or when that content is no longer stored here.
  @discardableResult
  public func restore(_ path: String, at time: Int) throws -> FileVersion {
    try exclusively {
      try scan()
      let entries = try history(of: path).filter { $0.version.path == path }
      guard let source = entries.last(where: { $0.version.recordedAt <= time })?.version else {
        throw FileSyncError.noVersionAt(path: path, time: TimeFormat.display(milliseconds: time))
      }
      return try restore(source)
    }
  }

  private func restore(_ source: FileVersion) throws -> FileVersion {
    if let hash = source.contentHash {
      let content = try database.read { db in try ContentRecord.find(hash).fetchOne(db) }
      guard let content, try ContentChunks.isComplete(content, in: objects) else {
        throw FileSyncError.contentNotStored(path: source.path, version: source.id.uuidString.lowercased())
      }
    }
    let base = try local.files()[source.path]?.versionID
    let restored = newVersion(
      path: source.path, change: source.isDeletion ? .deleted : .restored, detail: source.id.uuidString.lowercased(),
      contentHash: source.contentHash, size: source.size, modifiedAt: source.isDeletion ? wallClock() : source.modifiedAt, base: base)
    try database.write { db in try record([restored], contents: [], db) }
    try materialize()
    return restored
  }
}
