import Foundation
import GRDB

/// Which events to read from a log.
public struct EventFilter: Sendable, Equatable {
  /// Log positions, inclusive.
  public var positions: ClosedRange<Int64>?
  /// Only events from this peer.
  public var origin: PeerID?
  /// Only events that change rows of this table.
  public var table: String?
  /// At most this many events.
  public var limit: Int?

  public init(positions: ClosedRange<Int64>? = nil, origin: PeerID? = nil, table: String? = nil, limit: Int? = nil) {
    self.positions = positions
    self.origin = origin
    self.table = table
    self.limit = limit
  }

  /// Every event.
  public static let all = EventFilter()
}

/// Read access to a database's event log, in log order.
public struct EventLog: Sendable {
  let reader: any DatabaseReader

  /// The events that match `filter`, decoded.
  public func events(_ filter: EventFilter = .all) throws -> [StoredEvent] {
    try reader.read { db in try Self.events(db, filter) }
  }

  /// Calls `body` with each matching event in turn, holding one at a time.
  public func forEach(_ filter: EventFilter = .all, _ body: (StoredEvent) throws -> Void) throws {
    try reader.read { db in try Self.forEach(db, filter, body) }
  }

  /// The event at a log position, or nil.
  public func event(position: Int64) throws -> StoredEvent? {
    try events(EventFilter(positions: position...position)).first
  }

  /// Resolves a reference: a log position (`12`) or `origin:sequence`, where
  /// origin is a peer id or a unique prefix of one (`4f2c1a9e:3`).
  public func event(reference: String) throws -> StoredEvent {
    try reader.read { db in try Self.event(db, reference: reference) }
  }

  /// Number of events in the log.
  public func count() throws -> Int {
    try reader.read { db in try Self.count(db) }
  }

  // MARK: - Inside a transaction

  /// The events that match `filter`, read with `db`.
  public static func events(_ db: Database, _ filter: EventFilter = .all) throws -> [StoredEvent] {
    var events: [StoredEvent] = []
    try forEach(db, filter) { events.append($0) }
    return events
  }

  /// Calls `body` with each matching event, read with `db`.
  public static func forEach(_ db: Database, _ filter: EventFilter = .all, _ body: (StoredEvent) throws -> Void) throws {
    try forEachEncoded(db, filter) { stored, _ in try body(stored) }
  }

  /// Calls `body` with each matching event, in log order, for as long as it
  /// returns true.
  package static func scan(_ db: Database, _ filter: EventFilter, _ body: (StoredEvent) throws -> Bool) throws {
    try scanEncoded(db, filter) { stored, _ in try body(stored) }
  }

  /// Calls `body` with each matching event and its serialized bytes.
  static func forEachEncoded(_ db: Database, _ filter: EventFilter, _ body: (StoredEvent, [UInt8]) throws -> Void) throws {
    try scanEncoded(db, filter) { stored, bytes in
      try body(stored, bytes)
      return true
    }
  }

  /// Calls `body` with each matching event and its serialized bytes, for as
  /// long as it returns true.
  private static func scanEncoded(_ db: Database, _ filter: EventFilter, _ body: (StoredEvent, [UInt8]) throws -> Bool) throws {
    var conditions: [String] = []
    var arguments: StatementArguments = []
    if let positions = filter.positions {
      conditions.append("e.id BETWEEN ? AND ?")
      arguments += [positions.lowerBound, positions.upperBound]
    }
    if let origin = filter.origin {
      // With positions, read that range of the log (`+` keeps SQLite off
      // the origin's index, which would read every event of the origin and
      // sort them): a fold past its mark reads what lies past it.
      conditions.append(filter.positions == nil ? "e.origin = ?" : "+e.origin = ?")
      arguments += [Data(origin.bytes)]
    }
    if let table = filter.table {
      conditions.append("e.id IN (SELECT event_id FROM chronicle_event_tables WHERE table_name = ?)")
      arguments += [table]
    }
    var sql = "SELECT e.id, e.payload, e.raw_size FROM chronicle_events e"
    if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
    sql += " ORDER BY e.id"
    if let limit = filter.limit { sql += " LIMIT \(limit)" }
    let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
    while let row = try rows.next() {
      let (stored, bytes) = try decodeEncoded(row)
      guard try body(stored, bytes) else { return }
    }
  }

  /// Resolves an event reference with `db` (see ``event(reference:)``).
  public static func event(_ db: Database, reference: String) throws -> StoredEvent {
    if let position = Int64(reference) {
      guard let row = try Row.fetchOne(db, sql: "SELECT id, payload, raw_size FROM chronicle_events WHERE id = ?", arguments: [position])
      else { throw ChronicleError.noSuchEvent(reference) }
      return try decode(row)
    }
    let parts = reference.split(separator: ":")
    guard parts.count == 2, let sequence = Int64(parts[1]) else { throw ChronicleError.noSuchEvent(reference) }
    let prefix = parts[0].lowercased().replacingOccurrences(of: "-", with: "")
    let rows = try Row.fetchAll(
      db, sql: "SELECT id, payload, raw_size FROM chronicle_events WHERE sequence = ? AND lower(hex(origin)) LIKE ? || '%'",
      arguments: [sequence, prefix])
    guard rows.count == 1 else { throw ChronicleError.noSuchEvent(reference) }
    return try decode(rows[0])
  }

  private static func decode(_ row: Row) throws -> StoredEvent {
    try decodeEncoded(row).stored
  }

  /// Decodes a row of (id, payload, raw_size).
  static func decodeEncoded(_ row: Row) throws -> (stored: StoredEvent, bytes: [UInt8]) {
    let id: Int64 = row[0]
    let payload: Data = row[1]
    let bytes = [UInt8](payload)
    do {
      let event = try EventCodec.decode(bytes)
      let checksum = bytes.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
      return (StoredEvent(id: id, event: event, rawSize: row[2], storedSize: bytes.count, checksum: checksum), bytes)
    } catch {
      throw ChronicleError.corruptEvent(id: id, error)
    }
  }
}

extension EventLog {
  /// The position of the last event in the log of `db` (0 when empty).
  static func lastPosition(_ db: Database) throws -> Int64 {
    try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM main.chronicle_events") ?? 0
  }

  /// The number of events in the log of `db`, or of those at `positions`
  /// (and from `origin`, when given).
  static func count(_ db: Database, positions: ClosedRange<Int64>? = nil, origin: PeerID? = nil) throws -> Int {
    var conditions: [String] = []
    var arguments: StatementArguments = []
    if let positions {
      conditions.append("id BETWEEN ? AND ?")
      arguments += [positions.lowerBound, positions.upperBound]
    }
    if let origin {
      conditions.append(positions == nil ? "origin = ?" : "+origin = ?")  // as in scanEncoded
      arguments += [Data(origin.bytes)]
    }
    let condition = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    return try Int.fetchOne(db, sql: "SELECT count(*) FROM main.chronicle_events" + condition, arguments: arguments) ?? 0
  }

  /// The stored checksum of `origin`'s event `sequence`, if the log holds it.
  static func checksum(_ db: Database, origin: PeerID, sequence: UInt64) throws -> UInt32? {
    try Int64.fetchOne(
      db.cachedStatement(sql: "SELECT checksum FROM main.chronicle_events WHERE origin = ? AND sequence = ?"),
      arguments: [Data(origin.bytes), Int64(sequence)]
    ).map { UInt32(truncatingIfNeeded: $0) }
  }

  /// The stored checksum of the event at `position`, if there is one.
  static func checksum(_ db: Database, position: Int64) throws -> Int64? {
    try Int64.fetchOne(db, sql: "SELECT checksum FROM main.chronicle_events WHERE id = ?", arguments: [position])
  }

  /// Whether the log holds `origin`'s event `sequence`.
  static func contains(_ db: Database, origin: PeerID, sequence: UInt64) throws -> Bool {
    try Bool.fetchOne(
      db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM main.chronicle_events WHERE origin = ? AND sequence = ?)"),
      arguments: [Data(origin.bytes), Int64(sequence)]) ?? false
  }

  /// Whether the log holds events of other peers than `localPeer`.
  static func hasReceivedEvents(_ db: Database, localPeer: PeerID) throws -> Bool {
    try Bool.fetchOne(
      db, sql: "SELECT EXISTS (SELECT 1 FROM main.chronicle_events WHERE origin <> ?)", arguments: [Data(localPeer.bytes)]) ?? false
  }

  /// The peers whose events the log holds.
  static func origins(_ db: Database) throws -> [PeerID] {
    try Data.fetchAll(db, sql: "SELECT DISTINCT origin FROM main.chronicle_events").compactMap { PeerID(bytes: $0) }
  }

  /// The schema epoch of `origin`'s latest event, if the log holds any.
  static func lastSchemaEpoch(_ db: Database, origin: PeerID) throws -> UInt64? {
    try Int64.fetchOne(
      db, sql: "SELECT schema_epoch FROM main.chronicle_events WHERE origin = ? ORDER BY sequence DESC LIMIT 1",
      arguments: [Data(origin.bytes)]
    ).map(UInt64.init)
  }

  /// `origin`'s latest event: its log position and its clock; nil when
  /// the log holds none. A peer's clock only moves forward, so this is also
  /// the latest clock of its events (read through the origin's index).
  static func latestEvent(_ db: Database, origin: PeerID) throws -> (position: Int64, timestamp: HLCTimestamp)? {
    try Row.fetchOne(
      db, sql: "SELECT id, hlc FROM main.chronicle_events WHERE origin = ? ORDER BY sequence DESC LIMIT 1",
      arguments: [Data(origin.bytes)]
    ).map { row in (row[0], HLCTimestamp(rawValue: UInt64(bitPattern: row[1]))) }
  }

  /// Whether an event of `origin` at `positions` changed rows of `table`
  /// (as the event named it).
  static func changesRows(_ db: Database, of table: String, positions: ClosedRange<Int64>, origin: PeerID) throws -> Bool {
    try Bool.fetchOne(db, sql: """
      SELECT EXISTS (
        SELECT 1 FROM main.chronicle_event_tables t JOIN main.chronicle_events e ON e.id = t.event_id
        WHERE t.table_name = ? AND t.event_id BETWEEN ? AND ? AND e.origin = ?)
      """, arguments: [table, positions.lowerBound, positions.upperBound, Data(origin.bytes)]) ?? false
  }

  /// The stored bytes of the events through `position`.
  static func storedBytes(_ db: Database, through position: Int64) throws -> Int {
    try Int.fetchOne(db, sql: "SELECT coalesce(sum(stored_size), 0) FROM main.chronicle_events WHERE id <= ?", arguments: [position]) ?? 0
  }

  /// Removes the events through `position` (all of them when nil), with
  /// their table index; returns how many events it removed. Only
  /// compaction and clone do, once a baseline covers them.
  @discardableResult
  static func removeEvents(_ db: Database, through position: Int64? = nil) throws -> Int {
    let through = position ?? Int64.max
    try db.execute(sql: "DELETE FROM main.chronicle_event_tables WHERE event_id <= ?", arguments: [through])
    try db.execute(sql: "DELETE FROM main.chronicle_events WHERE id <= ?", arguments: [through])
    return db.changesCount
  }

  /// The highest sequence of `origin`'s events in the log of `db` (0 when none).
  static func lastSequence(_ db: Database, origin: PeerID) throws -> UInt64 {
    UInt64(try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM main.chronicle_events WHERE origin = ?", arguments: [Data(origin.bytes)]) ?? 0)
  }
}
