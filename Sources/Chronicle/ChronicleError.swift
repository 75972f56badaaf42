/// Errors of Chronicle's database layer. Each message names the problem and
/// the fix.
public enum ChronicleError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The table is not STRICT, so it cannot be tracked.
  case tableNotStrict(String)
  /// The table has no declared primary key, so it cannot be tracked.
  case tableWithoutPrimaryKey(String)
  /// No such table in the main schema.
  case noSuchTable(String)
  /// The name belongs to Chronicle (`chronicle_*`) or SQLite (`sqlite_*`).
  case reservedTableName(String)
  /// A transaction changed tracked tables outside `ChronicleDatabase.write`:
  /// its commit was refused and it was rolled back.
  case uncapturedWrite(tables: [String])
  /// The database belongs to another peer than the one asked for.
  case peerMismatch(stored: PeerID, requested: PeerID)
  /// SQLite was built without the preupdate hook that capture relies on.
  case preupdateHookUnavailable
  /// The database was created by a newer Chronicle.
  case unsupportedInternalSchema(found: Int, supported: Int)
  /// A stored event failed to decode.
  case corruptEvent(id: Int64, EventFormatError)
  /// An event could not be applied during replay.
  case replayFailed(event: String, reason: String)
  /// No event matches the reference.
  case noSuchEvent(String)
  /// SQLite could not give a column value of a changing row to the capture hook.
  case capturedValueUnreadable(table: String, column: String)
  /// A write stored TEXT that is not valid UTF-8 (`CAST(X'FF' AS TEXT)`): events
  /// carry text as UTF-8, so the write is refused.
  case textNotUTF8(table: String, column: String)
  /// An invitation could not be read or used.
  case invalidInvitation(String)
  /// A change of the group's member list this device cannot make.
  case membership(String)
  /// A write this device may not make: it is a reader of its group.
  case writePermission(String)
  /// The device key file is malformed, unreadable or readable by others.
  case deviceKeyFile(path: String, problem: String)
  /// The database belongs to a device whose key file is not beside it (a
  /// copy made without the key, or the file was lost): it cannot write as
  /// that device.
  case deviceKeyMissing(path: String, peer: PeerID)
  /// A row of `chronicle_rows` (merge state) could not be decoded.
  case corruptMergeState(table: String, detail: String)
  /// No file at the path.
  case noSuchFile(String)
  /// The file is a SQLite database without Chronicle's tables.
  case notAChronicleDatabase(String)
  /// A GRDB writer that is not a ``ChronicleDatabase`` where Chronicle needs
  /// one (its writes have no events); the writer's type.
  case notChronicleWriter(String)
  /// An output file exists already; tools never overwrite one.
  case outputExists(String)
  /// A point in history (`--until`, `--at`) that is neither an event nor a time.
  case invalidHistoryPoint(String)
  /// A primary key given on the command line does not fit the table's key.
  case invalidKey(table: String, detail: String)
  /// A migration step needs app code (a conversion or an upcaster) that was
  /// not registered.
  case missingUpcaster(String)
  /// A migration step cannot be done as asked.
  case migrationFailed(migration: String, reason: String)
  /// A rebuild could not complete; the live tables are unchanged.
  case rebuildFailed(String)
  /// The point in history lies before the log's compaction baseline.
  case historyCompacted(point: String, baseline: Int64)
  /// Deleting the synced data would leave rows of untracked tables pointing
  /// at deleted rows; nothing was deleted.
  case localDataStillReferenced(String)
  /// A transaction's changes encode to more than an event may hold
  /// (2^30 bytes, the event format's limit), so no peer could read it; it was not
  /// committed.
  case transactionTooLarge(bytes: Int, limit: Int)
  /// The guard triggers of these tracked tables were removed, so writes may
  /// have been made outside Chronicle that no event carries; this peer does
  /// not send its events until they are adopted or discarded.
  case untrackedWritesSuspected(tables: [String])

  public var description: String {
    switch self {
    case .tableNotStrict(let table):
      return "table \"\(table)\" is not STRICT, so Chronicle cannot track it. Fix: recreate it as "
        + "CREATE TABLE \"\(table)\" (...) STRICT and copy its rows over (see SQLite's ALTER TABLE docs, \"making other kinds of table schema changes\")."
    case .tableWithoutPrimaryKey(let table):
      return "table \"\(table)\" has no declared PRIMARY KEY, so Chronicle cannot identify its rows across peers. "
        + "Fix: recreate it with a PRIMARY KEY column, e.g. \"id\" TEXT PRIMARY KEY NOT NULL DEFAULT (uuid())."
    case .noSuchTable(let table):
      return "no table \"\(table)\" in the main schema. Fix: create it (as a STRICT table with a primary key) before tracking it."
    case .reservedTableName(let table):
      return "\"\(table)\" is a reserved name (chronicle_* and sqlite_* belong to Chronicle and SQLite). Fix: rename the table."
    case .uncapturedWrite(let tables):
      return "a transaction changed tracked tables (\(tables.joined(separator: ", "))) outside ChronicleDatabase.write, "
        + "so it has no event; its commit was refused and it was rolled back. Fix: run the write through database.write { db in ... }."
    case .noSuchFile(let path):
      return "no file at \(path). Fix: check the path."
    case .notAChronicleDatabase(let path):
      return "\(path) is not a Chronicle database (it has no chronicle_events or chronicle_peer table). "
        + "Fix: adopt it first with `chronicle init \(path)` (or Chronicle.open), or point the tool at the app's database file."
    case .notChronicleWriter(let type):
      return "the database is a \(type), not a ChronicleDatabase: its writes are not captured, so there is nothing to sync. "
        + "Fix: open it with defaultDatabase() or Chronicle.open(path:) (`appDatabase()` returns that)."
    case .outputExists(let path):
      return "\(path) exists already, and tools never overwrite files. Fix: remove it or choose another output path."
    case .invalidHistoryPoint(let text):
      return "\"\(text)\" is neither an event nor a time. Fix: give a log position (12), origin:sequence (4f2c1a9e:3), "
        + "or an ISO 8601 time (2026-11-21T10:00:00Z, 2026-11-21T10:00:00.123Z+2, or a date: 2026-11-21)."
    case .invalidKey(let table, let detail):
      return "bad primary key for \(table): \(detail)"
    case .missingUpcaster(let name):
      return "the log's migrations need the app's conversion or upcaster \"\(name)\", which is not registered. "
        + "Fix: register it in the Upcasters passed here (registerConversion or registerUpcaster), "
        + "or run this from the app, which has it."
    case .migrationFailed(let migration, let reason):
      return "migration \"\(migration)\" failed and was rolled back: \(reason)"
    case .rebuildFailed(let reason):
      return "the rebuild did not swap its tables in (the live tables are unchanged): \(reason)"
    case .historyCompacted(let point, let baseline):
      return "\(point) lies before this log's baseline: events through #\(baseline) were compacted. "
        + "Fix: choose a point after #\(baseline), or use a copy of the database made before the compaction."
    case .localDataStillReferenced(let detail):
      return "cannot delete the synced data: rows of untracked tables still refer to it (\(detail)). "
        + "Fix: delete those rows first, or declare their foreign keys ON DELETE CASCADE or SET NULL."
    case .peerMismatch(let stored, let requested):
      return "this database belongs to peer \(stored), not \(requested). Fix: open it with peer: .stored (or .generate), or use a copy made for that peer."
    case .preupdateHookUnavailable:
      return "the SQLite library in use was built without SQLITE_ENABLE_PREUPDATE_HOOK, which Chronicle's capture needs. "
        + "Fix: link a SQLite built with it (Debian's libsqlite3 is)."
    case .unsupportedInternalSchema(let found, let supported):
      return "the database uses Chronicle schema version \(found), newer than this build supports (\(supported)). Fix: upgrade Chronicle."
    case .corruptEvent(let id, let error):
      return "event #\(id) is corrupt: \(error)"
    case .replayFailed(let event, let reason):
      return "replay stopped at event \(event): \(reason)"
    case .noSuchEvent(let reference):
      return "no event \(reference); give a log position (e.g. 12) or origin:sequence (e.g. 4f2c1a9e:3)"
    case .capturedValueUnreadable(let table, let column):
      return "could not read column \"\(column)\" of \"\(table)\" while capturing a change"
    case .textNotUTF8(let table, let column):
      return "column \"\(column)\" of \"\(table)\" was given TEXT that is not valid UTF-8, which no peer could read back; the transaction was not committed. Fix: store such bytes as a BLOB (X'..'), or convert them to UTF-8 first"
    case .invalidInvitation(let reason):
      return "invalid invitation: \(reason). Fix: ask a member for a new one (chronicle invite DB)"
    case .membership(let reason), .writePermission(let reason):
      return reason
    case .deviceKeyFile(let path, let problem):
      return "the device key \(path) \(problem)"
    case .deviceKeyMissing(let path, let peer):
      return "this database belongs to device \(peer), whose key file \(path) is missing or holds another key, so it cannot write as that device. Fix: put the device's key file back beside the database; or, to use this copy as a device of its own, call deleteLocalData() (SyncEngine.deleteLocalData()) and sync again: it takes a new key and identity and fetches the group's data"
    case .untrackedWritesSuspected(let tables):
      let names = tables.map { "\"\($0)\"" }.joined(separator: ", ")
      return "the guard triggers of \(names) were removed, so rows may have been written there outside Chronicle, which no event carries; "
        + "sending this peer's events now would leave the peers different while every sync succeeds. Fix: `chronicle adopt DB` "
        + "(rebuild(options: RebuildOptions(adoptsLiveRows: true))) records how the tables differ from the log as one event that every peer gets; "
        + "or `chronicle rebuild DB` discards those writes. Then sync again"
    case .transactionTooLarge(let bytes, let limit):
      return "the transaction's changes encode to \(bytes) bytes, over the \(limit) one event may hold, so no peer could read or sync it; it was not committed. Fix: split it into several transactions, or keep large files outside the database (Chronicle's blob store)"
    case .corruptMergeState(let table, let detail):
      return "the merge state of a row of \(table) is corrupt (\(detail)); restore the file from a backup"
    }
  }
}
