import Foundation
import GRDB

/// An event's place in the log, read without decoding the event: what sync,
/// compaction and identity choose events by.
struct EventRecord {
  /// The log position (`chronicle_events.id`).
  var position: Int64
  /// The origin's peer ID as stored; see ``origin``.
  var originBytes: Data
  var sequence: UInt64
  var storedSize: Int
  /// The event's clock, as stored.
  var timestamp: UInt64
  /// The stored (compressed) event, when the scan asked for it.
  var payload: Data?

  /// The origin, or nil when the stored bytes are not a peer ID.
  var origin: PeerID? { PeerID(bytes: originBytes) }

  /// A row of `id, origin, sequence, stored_size, hlc[, payload]`.
  init(row: Row, payload: Bool) {
    position = row[0]
    originBytes = row[1]
    sequence = UInt64(row[2] as Int64)
    storedSize = row[3]
    timestamp = UInt64(bitPattern: row[4] as Int64)
    self.payload = payload ? row[5] as Data : nil
  }
}

extension EventLog {
  /// The events at positions after `after` and through `through` (and
  /// of `origin` only, when given), in log order, at most `limit`;
  /// payloads too when `payloads` is true. `body` returns false to stop.
  static func scanRecords(
    _ db: Database, after: Int64 = 0, through: Int64 = .max, origin: PeerID? = nil, limit: Int? = nil,
    payloads: Bool = false, _ body: (EventRecord) throws -> Bool
  ) throws {
    var sql = "SELECT id, origin, sequence, stored_size, hlc\(payloads ? ", payload" : "") FROM main.chronicle_events WHERE id > ? AND id <= ?"
    var arguments: StatementArguments = [after, through]
    if let origin {
      sql += " AND origin = ?"
      arguments += [Data(origin.bytes)]
    }
    sql += " ORDER BY id"
    if let limit {
      sql += " LIMIT ?"
      arguments += [limit]
    }
    let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
    while let row = try rows.next() {
      guard try body(EventRecord(row: row, payload: payloads)) else { return }
    }
  }

  /// `origin`'s events whose sequences are in `sequences`, in sequence
  /// order, at most `limit`, with payloads; `body` returns false to stop.
  static func scanSequenceRange(
    _ db: Database, origin: PeerID, sequences: Range<Int64>, limit: Int, _ body: (EventRecord) throws -> Bool
  ) throws {
    let rows = try Row.fetchCursor(
      db,
      sql: """
        SELECT id, origin, sequence, stored_size, hlc, payload FROM main.chronicle_events
        WHERE origin = ? AND sequence >= ? AND sequence < ? ORDER BY sequence LIMIT ?
        """,
      arguments: [Data(origin.bytes), sequences.lowerBound, sequences.upperBound, limit])
    while let row = try rows.next() {
      guard try body(EventRecord(row: row, payload: true)) else { return }
    }
  }

  /// The log position of `origin`'s event `sequence`, if the log holds it.
  static func position(_ db: Database, origin: PeerID, sequence: UInt64) throws -> Int64? {
    try Int64.fetchOne(
      db.cachedStatement(sql: "SELECT id FROM main.chronicle_events WHERE origin = ? AND sequence = ?"),
      arguments: [Data(origin.bytes), Int64(sequence)])
  }

  /// The sequences of the origin stored as `originBytes`, from `start` up,
  /// in order; `body` returns false to stop.
  static func scanSequences(_ db: Database, originBytes: Data, from start: Int64, _ body: (Int64) throws -> Bool) throws {
    let cursor = try Int64.fetchCursor(
      db, sql: "SELECT sequence FROM main.chronicle_events WHERE origin = ? AND sequence >= ? ORDER BY sequence",
      arguments: [originBytes, start])
    while let sequence = try cursor.next() {
      guard try body(sequence) else { return }
    }
  }

  /// The stored events of the origin stored as `originBytes` whose clock
  /// is `timestamp` (as stored).
  static func payloads(_ db: Database, originBytes: Data, timestamp: Int64) throws -> [Data] {
    try Data.fetchAll(
      db.cachedStatement(sql: "SELECT payload FROM main.chronicle_events WHERE origin = ? AND hlc = ?"),
      arguments: [originBytes, timestamp])
  }
}

extension EventLog {
  /// The positions, in log order, of the events whose schema epoch differs
  /// from the one before them of the same origin (or that are their
  /// origin's first): the only events that can hold a schema change or a
  /// migration, since every one moves its origin's epoch on. Only
  /// `origin`'s events when given.
  static func schemaEpochChanges(_ db: Database, origin: PeerID? = nil) throws -> [Int64] {
    try Int64.fetchAll(
      db,
      sql: """
        SELECT id FROM (
          SELECT id, schema_epoch, lag(schema_epoch) OVER (PARTITION BY origin ORDER BY sequence) AS previous
          FROM main.chronicle_events\(origin == nil ? "" : " WHERE origin = ?"))
        WHERE previous IS NULL OR previous <> schema_epoch ORDER BY id
        """,
      arguments: origin.map { [Data($0.bytes)] } ?? [])
  }
}

extension EventLog {
  /// The schema epoch of the event at `position` (nil: no such event).
  static func schemaEpoch(_ db: Database, position: Int64) throws -> UInt64? {
    try Int64.fetchOne(db.cachedStatement(sql: "SELECT schema_epoch FROM main.chronicle_events WHERE id = ?"), arguments: [position])
      .map { UInt64($0) }
  }

  /// The positions, in log order, of the events with row changes of `table` (case ignored).
  static func positions(_ db: Database, touchingTable table: String) throws -> [Int64] {
    try Int64.fetchAll(
      db, sql: "SELECT event_id FROM main.chronicle_event_tables WHERE table_name = ? COLLATE NOCASE ORDER BY event_id", arguments: [table])
  }
}

extension EventLog {
  /// Calls `body` with each event's origin (as stored) and sequence, origin
  /// by origin in sequence order, with the sequence of the origin's event
  /// before it (nil for its first): where a log's sequences jump, events
  /// are missing.
  static func forEachSequence(_ db: Database, _ body: (_ originBytes: Data, _ sequence: Int64, _ previous: Int64?) throws -> Void) throws {
    let rows = try Row.fetchCursor(db, sql: """
      SELECT origin, sequence, lag(sequence) OVER (PARTITION BY origin ORDER BY sequence) FROM main.chronicle_events
      """)
    while let row = try rows.next() { try body(row[0], row[1], row[2]) }
  }
}
