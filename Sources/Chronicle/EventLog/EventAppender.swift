import Foundation
import GRDB

/// Writes events into `chronicle_events`.
enum EventAppender {
  /// Appends a new local event: next sequence of `origin`, a fresh clock
  /// reading, the schema epoch (bumped when the event changes the schema).
  static func appendLocal(
    _ db: Database, origin: PeerID, clock: HybridLogicalClock, tables: [TableDescriptor], operations: [EventOperation],
    bumpsSchemaEpoch: Bool, compressionLevel: Int32
  ) throws -> StoredEvent {
    let originBlob = Data(origin.bytes)
    let sequence = try Int64.fetchOne(
      db.cachedStatement(sql: "SELECT COALESCE(MAX(sequence), 0) + 1 FROM chronicle_events WHERE origin = ?"),
      arguments: [originBlob]) ?? 1
    var epoch = try Int64.fetchOne(db.cachedStatement(sql: "SELECT schema_epoch FROM chronicle_peer")) ?? 0
    if bumpsSchemaEpoch { epoch += 1 }
    let timestamp = clock.now()
    let event = ChangeEvent(
      origin: origin, sequence: UInt64(sequence), timestamp: timestamp, schemaEpoch: UInt64(epoch),
      tables: tables, operations: operations)
    let encoded = try EventCodec.encode(event, compressionLevel: compressionLevel)
    let id = try insert(db, event: event, encoded: encoded)
    try db.cachedStatement(sql: "UPDATE chronicle_peer SET last_clock = ?, schema_epoch = ?")
      .execute(arguments: [Int64(bitPattern: timestamp.rawValue), epoch])
    return StoredEvent(id: id, event: event, rawSize: encoded.rawBodySize, storedSize: encoded.bytes.count, checksum: encoded.checksum)
  }

  /// Inserts an encoded event and its table index; returns its log position.
  static func insert(_ db: Database, event: ChangeEvent, encoded: EventCodec.Encoded) throws -> Int64 {
    try db.cachedStatement(sql: """
      INSERT INTO chronicle_events
        (origin, sequence, hlc, schema_epoch, format_version, payload, raw_size, stored_size, checksum, row_changes)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """).execute(arguments: [
        Data(event.origin.bytes), Int64(event.sequence), Int64(bitPattern: event.timestamp.rawValue),
        Int64(event.schemaEpoch), Int(EventCodec.currentVersion), Data(encoded.bytes), encoded.rawBodySize,
        encoded.bytes.count, Int64(encoded.checksum), event.rowChangeCount,
      ])
    let id = db.lastInsertedRowID
    for name in event.changedTableNames.sorted() {
      try db.cachedStatement(sql: "INSERT INTO chronicle_event_tables (table_name, event_id) VALUES (?, ?)")
        .execute(arguments: [name, id])
    }
    return id
  }
}
