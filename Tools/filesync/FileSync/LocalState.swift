import Chronicle
import Foundation

/// What this peer last saw or wrote at a path: the version its disk holds
/// there, and the file's size, time and inode then (`contentHash` nil: no file,
/// in step with a deletion). Never synced: it lives in `.filesync/local.sqlite`.
struct LocalFile: Equatable, Sendable {
  var path: String
  var versionID: UUID
  var contentHash: String?
  var size: Int
  var modifiedNanoseconds: Int64
  var inode: UInt64

  init(path: String, versionID: UUID, contentHash: String?, size: Int = 0, modifiedNanoseconds: Int64 = 0, inode: UInt64 = 0) {
    self.path = path
    self.versionID = versionID
    self.contentHash = contentHash
    self.size = size
    self.modifiedNanoseconds = modifiedNanoseconds
    self.inode = inode
  }

  /// A record of the file with `status`. A file modified in the last two
  /// seconds is recorded without its time: the file system's clock is
  /// coarse, so an edit right after this one could leave size, time and
  /// inode unchanged. The next scan reads such a file again (git calls
  /// these entries "racily clean").
  init(path: String, versionID: UUID, contentHash: String, status: FileStat) {
    let now = Int64(Date().timeIntervalSince1970 * 1_000_000_000)
    let isRecent = now - status.modifiedNanoseconds < 2_000_000_000
    self.init(
      path: path, versionID: versionID, contentHash: contentHash, size: status.size,
      modifiedNanoseconds: isRecent ? 0 : status.modifiedNanoseconds, inode: status.inode)
  }
}

/// The per-peer state that must not travel: local files, settings, refused paths.
struct LocalState: Sendable {
  let database: DatabasePool

  /// Opens (or creates) the state at `path`. In WAL mode with a busy
  /// timeout: `status`, `history` or `restore` run while `serve` is in a
  /// round, and the two processes must wait for each other, not fail.
  init(path: String) throws {
    var configuration = Configuration()
    configuration.busyMode = .timeout(30)
    database = try DatabasePool(path: path, configuration: configuration)
    try database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE IF NOT EXISTS localFiles (
            path TEXT PRIMARY KEY NOT NULL, versionID TEXT NOT NULL, contentHash TEXT,
            size INTEGER NOT NULL, modifiedNanoseconds INTEGER NOT NULL, inode INTEGER NOT NULL) STRICT;
          CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) STRICT;
          CREATE TABLE IF NOT EXISTS refusals (
            versionID TEXT PRIMARY KEY NOT NULL, path TEXT NOT NULL, reason TEXT NOT NULL) STRICT;
          """)
    }
  }

  func setting(_ key: String) throws -> String? {
    try database.read { db in try String.fetchOne(db, sql: "SELECT value FROM settings WHERE key = ?", arguments: [key]) }
  }

  func setSetting(_ key: String, _ value: String) throws {
    try database.write { db in try db.execute(sql: "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", arguments: [key, value]) }
  }

  func files() throws -> [String: LocalFile] {
    try database.read { db in
      var files: [String: LocalFile] = [:]
      for row in try Row.fetchAll(db, sql: "SELECT * FROM localFiles") {
        let file = LocalFile(
          path: row["path"], versionID: UUID(uuidString: row["versionID"])!, contentHash: row["contentHash"], size: row["size"],
          modifiedNanoseconds: row["modifiedNanoseconds"], inode: UInt64(bitPattern: row["inode"] as Int64))
        files[file.path] = file
      }
      return files
    }
  }

  func save(_ files: some Sequence<LocalFile>) throws {
    try database.write { db in
      for file in files {
        try db.execute(
          sql: "INSERT OR REPLACE INTO localFiles (path, versionID, contentHash, size, modifiedNanoseconds, inode) VALUES (?, ?, ?, ?, ?, ?)",
          arguments: [
            file.path, file.versionID.uuidString.lowercased(), file.contentHash, file.size, file.modifiedNanoseconds, Int64(bitPattern: file.inode),
          ])
      }
    }
  }

  func refuse(versionID: UUID, path: String, reason: String) throws {
    try database.write { db in
      try db.execute(
        sql: "INSERT OR REPLACE INTO refusals (versionID, path, reason) VALUES (?, ?, ?)",
        arguments: [versionID.uuidString.lowercased(), path, reason])
    }
  }

  /// Why each refused version was refused, by version id (the path is read
  /// from the index: this table's TEXT would not keep a NUL in a path).
  func refusals() throws -> [UUID: String] {
    try database.read { db in
      var reasons: [UUID: String] = [:]
      for row in try Row.fetchAll(db, sql: "SELECT versionID, reason FROM refusals") {
        if let id = UUID(uuidString: row["versionID"]) { reasons[id] = row["reason"] }
      }
      return reasons
    }
  }
}
