import Crypto
import Foundation
import GRDB

/// The side file where a rebuild builds shadow tables with the current
/// schema, and keeps its checkpoint: the last log event applied, with its
/// checksum, and a fingerprint of the schema it was built for.
final class ShadowDatabase {
  let path: String
  let queue: DatabaseQueue
  /// Log position of the last event applied (0: none).
  private(set) var through: Int64

  private init(path: String, queue: DatabaseQueue, through: Int64) {
    self.path = path
    self.queue = queue
    self.through = through
  }

  /// Opens the side file to resume from its checkpoint when it was built for
  /// this schema and this log; otherwise starts a new one.
  static func openOrCreate(
    at path: String, for database: ChronicleDatabase, schema: SchemaSnapshot, keepsMergeState: Bool
  ) throws -> ShadowDatabase {
    var configuration = Configuration()
    configuration.foreignKeysEnabled = false
    configuration.prepareDatabase { db in
      db.addChronicleFunctions()
      // The rebuild's own connection: a page cache of up to 64 MiB (SQLite's
      // default is 2 MiB) keeps the pages that updates and deletes all over
      // the tables come back to.
      try db.execute(sql: "PRAGMA cache_size = -65536")
    }
    let fingerprint = Self.fingerprint(schema, peer: database.peerID, keepsMergeState: keepsMergeState)
    if FileManager.default.fileExists(atPath: path) {
      let queue = try DatabaseQueue(path: path, configuration: configuration)
      let checkpoint = try queue.read { db -> (String?, Int64, Int64?) in
        let meta = ChronicleMeta(db: db)
        guard try meta.exists() else { return (nil, 0, nil) }
        return (try meta.value(.rebuildFingerprint), try meta.value(.rebuildThrough) ?? 0, try meta.value(.rebuildThroughChecksum))
      }
      let liveChecksum = try database.read { db -> Int64? in
        if let event = try EventLog.checksum(db, position: checkpoint.1) {
          return event
        }
        // The checkpoint may be the baseline itself.
        guard let baseline = try LogBaseline.read(db), baseline.throughPosition == checkpoint.1 else { return nil }
        return Int64(baseline.stored.checksum)
      }
      if checkpoint.0 == fingerprint && (checkpoint.1 == 0 || liveChecksum == checkpoint.2) {
        return ShadowDatabase(path: path, queue: queue, through: checkpoint.1)
      }
      try queue.close()
      DatabaseFiles.remove(path)
    }
    let queue = try DatabaseQueue(path: path, configuration: configuration)
    // The live file's numbers for names and peers, so that the swap can copy
    // the merge state as it is (see MergeDictionary.copy).
    let dictionary = try database.read { db in try MergeDictionary.entries(db) }
    try queue.write { db in
      try InternalSchema.migrate(db)
      try MergeDictionary.insert(dictionary, db)
      // Tables, indexes and views as they are now. Triggers are left out:
      // the swap copies rows, and the log holds what triggers did.
      for object in schema.objects where object.type != "trigger" { try db.execute(sql: object.sql) }
      let meta = ChronicleMeta(db: db)
      try meta.set(.rebuildFingerprint, to: fingerprint)
      try meta.set(.rebuildThrough, to: 0)
    }
    return ShadowDatabase(path: path, queue: queue, through: 0)
  }

  /// Records that every event through `stored` is applied (inside the batch's transaction).
  func saveCheckpoint(_ stored: StoredEvent, _ db: Database) throws {
    let meta = ChronicleMeta(db: db)
    try meta.set(.rebuildThrough, to: stored.id)
    try meta.set(.rebuildThroughChecksum, to: Int64(stored.checksum))
    through = stored.id
  }

  /// Brings the merge state up to date with every event applied.
  func finish(localPeer: PeerID, keepsMergeState: Bool) throws {
    guard keepsMergeState else { return }
    try queue.write { db in _ = try MergeApplier(db, local: localPeer, localEpoch: UInt64.max).foldLocalEvents() }
  }

  /// Throws when SQLite finds the shadow damaged or its foreign keys broken.
  func checkIntegrity() throws {
    try queue.read { db in
      let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
      guard integrity == ["ok"] else { throw ChronicleError.rebuildFailed("the shadow tables fail integrity_check: \(integrity.prefix(3))") }
      let violations = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
      guard violations.isEmpty else {
        throw ChronicleError.rebuildFailed(
          "the shadow tables break \(violations.count) foreign key(s), first in \(violations[0][0] as String? ?? "?") row \(violations[0][1] as Int64? ?? 0)")
      }
    }
  }

  /// Closes and deletes the side file.
  func remove() throws {
    try queue.close()
    DatabaseFiles.remove(path)
  }

  /// What a shadow was begun for: a shadow begun without merge state (its
  /// log lacks own events) cannot be resumed for a rebuild that keeps it.
  private static func fingerprint(_ schema: SchemaSnapshot, peer: PeerID, keepsMergeState: Bool) -> String {
    var text = peer.description + (keepsMergeState ? "\u{0}merge state" : "")
    for object in schema.objects { text += "\u{0}\(object.type)\u{0}\(object.name)\u{0}\(object.sql)" }
    return SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
  }
}
