import Foundation
import GRDB
import GRDBSQLite

/// Which rows each of this peer's own events changed, as 32-bit hashes of
/// table and key, written by capture in the event's entries of the table
/// index (`chronicle_event_tables.row_hashes`, beside what it writes anyway).
///
/// Merge state is not kept by local writes; a merge of writes older than
/// some of them must first know those writes' versions. With this index it
/// folds only the own events that touched the rows it receives
/// (``TouchedRowFold``), where it would otherwise decode every one.
///
/// An entry's hashes are empty for an event merged from another peer (its
/// versions went into merge state as it merged), and `NULL` where they are
/// not known: rows of a table copied whole, events replayed into this file
/// or logged before the index. An own event's unknown entry could have
/// changed any row of its table.
enum EventRowTouches {
  /// What an event's entries say of the rows it changed.
  enum Rows {
    /// Captured here: per table, the hashes of the rows it changed (a table
    /// not named: not known).
    case captured([String: [UInt32]])
    /// Merged from another peer: none that a fold of own events reads.
    case merged
    /// Not known: any row.
    case unknown
  }

  /// The hash of a row: its table's name (as SQLite compares names, without
  /// case) and its key values, in the table's key order. Stable across
  /// processes and platforms (not Swift's seeded `Hasher`).
  static func hash(table seed: UInt64, key: RowKey) -> UInt32 {
    switch key {
    case .integer(let value): fold(mix(seed, .integer(value)))
    case .values(let values): hash(table: seed, key: values)
    }
  }

  static func hash(table seed: UInt64, key: [SQLiteValue]) -> UInt32 {
    var state = seed
    for value in key { state = mix(state, value) }
    return fold(state)
  }

  /// The part of a row's hash its table gives.
  static func seed(table name: String) -> UInt64 {
    var state: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a offset basis
    for byte in name.lowercased().utf8 { state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    return state
  }

  private static func mix(_ state: UInt64, _ value: SQLiteValue) -> UInt64 {
    func bytes(_ state: UInt64, tag: UInt64, _ body: some Sequence<UInt8>) -> UInt64 {
      var state = (state ^ tag) &* 0x0000_0100_0000_01B3
      for byte in body { state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
      return state
    }
    switch value {
    case .null: return scramble(state ^ 0x9E37_79B9_7F4A_7C15)
    case .integer(let integer): return scramble(state &+ UInt64(bitPattern: integer) &* 0xFF51_AFD7_ED55_8CCD)
    case .real(let real): return scramble(state ^ (real.bitPattern &* 0xC4CE_B9FE_1A85_EC53))
    case .text(let text): return bytes(state, tag: 3, text.utf8)
    case .blob(let blob): return bytes(state, tag: 4, blob)
    }
  }

  /// A finalizer that spreads every input bit over the word (MurmurHash3's).
  private static func scramble(_ value: UInt64) -> UInt64 {
    var x = value
    x ^= x >> 33
    x = x &* 0xFF51_AFD7_ED55_8CCD
    x ^= x >> 33
    x = x &* 0xC4CE_B9FE_1A85_EC53
    x ^= x >> 33
    return x
  }

  private static func fold(_ value: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: value ^ (value >> 32)) }

  /// Writes the entry of the event at `position` for table `table`.
  static func insert(_ db: Database, table: String, position: Int64, rows: Rows) throws {
    // Once per table of every write transaction: bound through the C API.
    try db.cachedStatement(sql: "INSERT INTO chronicle_event_tables (table_name, event_id, row_hashes) VALUES (?, ?, ?)").run { binding in
      try binding.bind(.text(table))
      try binding.bind(position)
      switch rows {
      case .captured(let tables):
        guard var hashes = tables[table] else { return try binding.bindNull() }
        for index in hashes.indices { hashes[index] = hashes[index].littleEndian }
        try hashes.withUnsafeBytes { try binding.bindBlob($0) }
      case .merged:
        try binding.bindBlob(UnsafeRawBufferPointer(start: nil, count: 0))
      case .unknown:
        try binding.bindNull()
      }
    }
  }

  /// Calls `body` with each own event at `positions` that changed rows of
  /// `table`, in order: its position and whether it changed a row whose
  /// hash `wanted` holds (true where its entry does not know).
  static func scan(
    _ db: Database, table: String, positions: ClosedRange<Int64>, local: PeerID, touching wanted: Set<UInt32>,
    _ body: (_ position: Int64, _ touches: Bool) throws -> Void
  ) throws {
    // Entries that do not know their rows may be other peers' (events
    // replayed here, or logged before the index): those are looked up.
    let statement = try db.cachedStatement(sql: """
      SELECT t.event_id, t.row_hashes,
        CASE WHEN t.row_hashes IS NULL THEN (SELECT e.origin FROM main.chronicle_events e WHERE e.id = t.event_id) = ? ELSE 0 END
      FROM main.chronicle_event_tables t
      WHERE t.table_name = ? AND t.event_id BETWEEN ? AND ?
      ORDER BY t.event_id
      """)
    let arguments: [SQLiteValue] = [.blob(Data(local.bytes)), .text(table), .integer(positions.lowerBound), .integer(positions.upperBound)]
    try statement.forEachRow(arguments) { handle in
      let position = sqlite3_column_int64(handle, 0)
      guard sqlite3_column_type(handle, 1) != SQLITE_NULL else {
        if sqlite3_column_int64(handle, 2) == 1 { try body(position, true) }
        return
      }
      // Empty: an event merged from another peer.
      let count = Int(sqlite3_column_bytes(handle, 1)) / 4
      guard count > 0, let bytes = sqlite3_column_blob(handle, 1) else { return }
      var touches = false
      for index in 0..<count where wanted.contains(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))) {
        touches = true
        break
      }
      try body(position, touches)
    }
  }

  /// How many of this peer's events at `positions` have an entry for
  /// `table` that does not know its rows.
  static func countUnknown(_ db: Database, table: String, positions: ClosedRange<Int64>, local: PeerID) throws -> Int {
    try Int.fetchOne(
      db.cachedStatement(sql: """
        SELECT count(*) FROM main.chronicle_event_tables t JOIN main.chronicle_events e ON e.id = t.event_id
        WHERE t.table_name = ? AND t.event_id BETWEEN ? AND ? AND t.row_hashes IS NULL AND e.origin = ?
        """),
      arguments: [table, positions.lowerBound, positions.upperBound, Data(local.bytes)]) ?? 0
  }
}
