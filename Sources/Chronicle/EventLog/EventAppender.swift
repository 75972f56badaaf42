import Foundation
import GRDB

/// An event just written to this database's log.
struct AppendedEvent {
  /// Position in the log.
  var id: Int64
  var encoded: EventCodec.Encoded
  var eventID: EventID
  var rowChangeCount: Int

  /// What was appended, without decoding the event.
  var summary: AppendedEventSummary {
    AppendedEventSummary(
      position: id, id: eventID, rowChanges: rowChangeCount, rawSize: encoded.rawBodySize, storedSize: encoded.bytes.count)
  }

  /// The event as ``StoredEvent``, decoded back from its bytes.
  func stored() throws -> StoredEvent {
    let event: ChangeEvent
    do { event = try EventCodec.decode(encoded.bytes) } catch { throw ChronicleError.corruptEvent(id: id, error) }
    return StoredEvent(id: id, event: event, rawSize: encoded.rawBodySize, storedSize: encoded.bytes.count, checksum: encoded.checksum)
  }
}

/// What a write transaction appended to the log, as
/// ``ChronicleDatabase/writeSummarizingEvent(_:)`` reports it: known without
/// decoding the event (which, for a large transaction, costs as much as writing it).
public struct AppendedEventSummary: Sendable, Equatable {
  /// The event's position in this file's log.
  public var position: Int64
  /// Its origin (this peer) and sequence.
  public var id: EventID
  /// Row operations it holds.
  public var rowChanges: Int
  /// Body bytes before compression, and bytes stored.
  public var rawSize: Int
  public var storedSize: Int
}

/// Writes events into `chronicle_events`.
enum EventAppender {
  /// Appends a new local event at `position` (this peer's next sequence and
  /// schema epoch) with a fresh clock reading; the epoch goes up by one when
  /// `advancesEpoch` (the event changes the shape of tracked tables).
  /// Advances `position`.
  static func appendLocal(
    _ db: Database, origin: PeerID, clock: HybridLogicalClock, position: inout LocalLogPosition,
    body: EventBodyWriter, rows: EventRowTouches.Rows, advancesEpoch: Bool, compressor: BodyCompressor
  ) throws -> AppendedEvent {
    let sequence = position.nextSequence
    let epoch = advancesEpoch ? position.schemaEpoch + 1 : position.schemaEpoch
    let timestamp = clock.now()
    let prefix = body.prefix()
    let operations = body.operations.bytes
    guard prefix.count + operations.count <= EventCodec.maximumBodySize else {
      throw ChronicleError.transactionTooLarge(bytes: prefix.count + operations.count, limit: EventCodec.maximumBodySize)
    }
    let encoded = EventCodec.seal(
      origin: origin, sequence: sequence, timestamp: timestamp, schemaEpoch: epoch,
      prefix: prefix, operations: operations, compressed: compressor.compress(prefix: prefix, operations: operations))
    let id = try insert(
      db, origin: origin, sequence: sequence, timestamp: timestamp, schemaEpoch: epoch,
      encoded: encoded, rowChangeCount: body.rowChangeCount, changedTables: body.changedTableNames, rows: rows)
    position = LocalLogPosition(nextSequence: sequence + 1, schemaEpoch: epoch)
    return AppendedEvent(
      id: id, encoded: encoded, eventID: EventID(origin: origin, sequence: sequence), rowChangeCount: body.rowChangeCount)
  }

  /// Inserts an encoded event and its table index; returns its log
  /// position. `rows`: what the index says of the rows it changed (see
  /// ``EventRowTouches``).
  static func insert(_ db: Database, event: ChangeEvent, encoded: EventCodec.Encoded, rows: EventRowTouches.Rows) throws -> Int64 {
    try insert(
      db, origin: event.origin, sequence: event.sequence, timestamp: event.timestamp, schemaEpoch: event.schemaEpoch,
      encoded: encoded, rowChangeCount: event.rowChangeCount, changedTables: event.changedTableNames.sorted(), rows: rows)
  }

  private static func insert(
    _ db: Database, origin: PeerID, sequence: UInt64, timestamp: HLCTimestamp, schemaEpoch: UInt64,
    encoded: EventCodec.Encoded, rowChangeCount: Int, changedTables: [String], rows: EventRowTouches.Rows
  ) throws -> Int64 {
    try db.cachedStatement(sql: """
      INSERT INTO chronicle_events
        (id, origin, sequence, hlc, schema_epoch, format_version, payload, raw_size, stored_size, checksum, row_changes)
      VALUES (
        -- Positions never go back, not even below a compaction baseline.
        max(coalesce((SELECT MAX(id) FROM chronicle_events), 0),
            coalesce((SELECT through_position FROM chronicle_baseline), 0)) + 1,
        ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """).execute(arguments: [
        Data(origin.bytes), Int64(sequence), Int64(bitPattern: timestamp.rawValue),
        Int64(schemaEpoch), Int(encoded.bytes[4]), Data(encoded.bytes), encoded.rawBodySize,
        encoded.bytes.count, Int64(encoded.checksum), rowChangeCount,
      ])
    let id = db.lastInsertedRowID
    for name in changedTables {
      try EventRowTouches.insert(db, table: name, position: id, rows: rows)
    }
    return id
  }
}
