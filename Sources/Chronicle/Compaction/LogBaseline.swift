import Foundation
import GRDB

/// The state a compacted log starts from: what the pruned events led to.
package struct LogBaseline: Sendable {
  /// Log position of the last pruned event.
  package var throughPosition: Int64
  /// The events the baseline stands for: every event it covers was pruned.
  package var vector: VersionVector
  /// Highest clock reading of the pruned events.
  package var timestamp: HLCTimestamp
  /// Schema epoch of this peer's last pruned event.
  package var schemaEpoch: UInt64
  /// The schema (as schema changes), the recorded migrations and every row
  /// of the tracked tables (as inserts).
  package var event: ChangeEvent
  /// The serialized ``event``.
  var bytes: [UInt8]

  /// The baseline of the log in `db`, if it was compacted.
  /// Throws ``SyncError/compactedAway(origin:needed:baseline:)`` when a
  /// peer at `vector` lacks events that the baseline of the log in `db`
  /// replaced (only those of `origin` when given): they cannot be sent.
  static func requireCovered(_ vector: VersionVector, origin: PeerID? = nil, in db: Database) throws {
    guard let baseline = try Header.read(db) else { return }
    for (peer, sequence) in baseline.vector.sequences where (origin == nil || origin == peer) && vector[peer] < sequence {
      throw SyncError.compactedAway(origin: peer, needed: vector[peer] + 1, baseline: sequence)
    }
  }

  /// The baseline of the log in `db`, with its event decoded: every row of
  /// the tracked tables. What syncs and merges need of it is ``Header``.
  static func read(_ db: Database) throws -> LogBaseline? {
    guard let header = try Header.read(db),
          let payload = try Data.fetchOne(db, sql: "SELECT payload FROM chronicle_baseline")
    else { return nil }
    let bytes = [UInt8](payload)
    let event: ChangeEvent
    do {
      event = try EventCodec.decode(bytes)
    } catch {
      throw ChronicleError.corruptEvent(id: header.throughPosition, error)
    }
    return LogBaseline(
      throughPosition: header.throughPosition, vector: header.vector, timestamp: header.timestamp, schemaEpoch: header.schemaEpoch,
      event: event, bytes: bytes)
  }

  /// What a baseline says of the log, read without its event: the event
  /// holds every row of the tracked tables, and decoding it on every sync
  /// and merge would cost each of them the whole baseline.
  package struct Header: Sendable {
    /// Log position of the last pruned event.
    package var throughPosition: Int64
    /// The events the baseline stands for.
    package var vector: VersionVector
    /// Highest clock reading of the pruned events.
    package var timestamp: HLCTimestamp
    /// Schema epoch of this peer's last pruned event.
    package var schemaEpoch: UInt64

    /// The header of the baseline of the log in `db`, if it was compacted.
    static func read(_ db: Database) throws -> Header? {
      guard try db.tableExists("chronicle_baseline"),
            let row = try Row.fetchOne(db, sql: "SELECT through_position, vector, hlc, schema_epoch FROM chronicle_baseline")
      else { return nil }
      return Header(
        throughPosition: row[0], vector: try VersionVector(parsing: row[1]),
        timestamp: HLCTimestamp(rawValue: UInt64(bitPattern: row[2])), schemaEpoch: UInt64(row[3] as Int64))
    }
  }

  /// The merge state of the baseline's rows (`chronicle_baseline_rows`);
  /// empty when there is no baseline.
  static func mergeState(_ db: Database) throws -> [NamedMergeState] {
    guard try db.tableExists("chronicle_baseline_rows") else { return [] }
    return try MergeStore(db: db).allStates(in: "chronicle_baseline_rows")
  }

  /// The baseline as a stored event at its position, for appliers.
  var stored: StoredEvent {
    StoredEvent(id: throughPosition, event: event, rawSize: 0, storedSize: bytes.count, checksum: bytes.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
  }

  /// Writes the baseline and its merge state into `db` (replacing any).
  func save(_ db: Database, mergeState states: [NamedMergeState]) throws {
    try db.execute(sql: "DELETE FROM chronicle_baseline")
    try db.execute(sql: "DELETE FROM chronicle_baseline_rows")
    try db.execute(
      sql: "INSERT INTO chronicle_baseline (singleton, through_position, vector, hlc, schema_epoch, payload, created_at) VALUES (1, ?, ?, ?, ?, ?, ?)",
      arguments: [throughPosition, vector.description, Int64(bitPattern: timestamp.rawValue), Int64(schemaEpoch), Data(bytes),
                  ISO8601DateFormatter().string(from: Date())])
    try MergeStore(db: db).insert(states, into: "chronicle_baseline_rows")
  }
}

extension ChronicleLogSource {
  /// The baseline the log starts from, when it was compacted.
  package func baseline() throws -> LogBaseline? {
    try read { db in try LogBaseline.read(db) }
  }
}
