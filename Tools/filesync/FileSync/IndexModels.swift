import Chronicle
import Foundation

/// One version of one path: an addition, edit, rename, deletion, restore or
/// conflict copy. Versions are only ever inserted, so the table is the
/// history of every file; the log carries it to every peer.
@Table("fileVersions")
public struct FileVersion: Equatable, Sendable {
  /// What made a version.
  public enum Change: String, QueryBindable, Sendable {
    case added, edited, renamed, deleted, restored, conflictCopy
  }

  public let id: UUID
  /// The path, relative to the synced folder.
  public var path: String
  public var change: Change
  /// For a rename, the old path; for a restore, the version restored; for a
  /// conflict copy, the losing version it keeps.
  public var detail: String?
  /// SHA-256 (hex) of the content; `nil` for a deletion.
  public var contentHash: String?
  public var size: Int
  /// The file's modification time, in milliseconds since 1970.
  public var modifiedAt: Int
  /// The version this one replaced on its author's disk (`nil`: none).
  /// Two versions of a path with no successor are concurrent edits.
  public var base: UUID?
  /// The author's peer id.
  public var peer: String
  /// The author's name, as conflict copies show it.
  public var peerName: String
  /// When the author recorded it, in milliseconds since 1970.
  public var recordedAt: Int

  public var isDeletion: Bool { contentHash == nil }
}

/// The current version of each path: one last-write-wins register per path.
@Table("files")
public struct FileEntry: Equatable, Sendable {
  @Column(primaryKey: true) public var path: String
  public var versionID: UUID
}

/// The chunks of one content: `chunks` is the concatenation of their 32-byte hashes.
@Table("contents")
struct ContentRecord: Equatable, Sendable {
  @Column(primaryKey: true) var hash: String
  var size: Int
  var chunks: Data

  var chunkHashes: [BlobHash] {
    let bytes = [UInt8](chunks)
    return stride(from: 0, to: bytes.count - bytes.count % 32, by: 32).compactMap { BlobHash(bytes: Array(bytes[$0..<$0 + 32])) }
  }
}

/// A losing concurrent version and the copy that keeps its content.
@Table("conflicts")
public struct ConflictRecord: Equatable, Sendable {
  @Column(primaryKey: true) public var versionID: UUID
  public var copyPath: String
}

/// The synced tables, as every peer creates them (same SQL, same schema epoch).
enum IndexSchema {
  static let migrationName = "filesync-index-1"
  static let sql = """
    CREATE TABLE fileVersions (
      id TEXT PRIMARY KEY NOT NULL,
      path TEXT NOT NULL,
      change TEXT NOT NULL,
      detail TEXT,
      contentHash TEXT,
      size INTEGER NOT NULL,
      modifiedAt INTEGER NOT NULL,
      base TEXT,
      peer TEXT NOT NULL,
      peerName TEXT NOT NULL,
      recordedAt INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX fileVersions_path ON fileVersions(path);
    CREATE INDEX fileVersions_base ON fileVersions(base);
    CREATE TABLE files (
      path TEXT PRIMARY KEY NOT NULL,
      versionID TEXT NOT NULL
    ) STRICT;
    CREATE TABLE contents (
      hash TEXT PRIMARY KEY NOT NULL,
      size INTEGER NOT NULL,
      chunks BLOB NOT NULL
    ) STRICT;
    CREATE TABLE conflicts (
      versionID TEXT PRIMARY KEY NOT NULL,
      copyPath TEXT NOT NULL
    ) STRICT;
    """
}
