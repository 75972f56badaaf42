import Foundation
import GRDB
import GRDBSQLite

/// Reads and writes `chronicle_rows`, the per-row merge state.
struct MergeStore {
  let db: Database

  /// The primary key of a row as stored in `row_key` (see ``MergeStateKey``).
  static func encodeKey(_ values: [SQLiteValue]) throws(EventFormatError) -> Data {
    try MergeStateKey.encode(values)
  }

  /// Whether encoded key `a` sorts before `b` as `chronicle_rows` orders
  /// them (BLOBs compare byte by byte, then by length).
  static func keyPrecedes(_ a: Data, _ b: Data) -> Bool {
    a.withUnsafeBytes { left in
      b.withUnsafeBytes { right in
        guard let l = left.baseAddress, let r = right.baseAddress else { return left.count < right.count }
        let common = memcmp(l, r, min(left.count, right.count))
        return common != 0 ? common < 0 : left.count < right.count
      }
    }
  }

  /// The columns of `chronicle_rows` (and of `chronicle_baseline_rows`), in order.
  static let columns = "table_name, row_key, clocks, deleted_hlc, deleted_origin, retained, parked_reason"

  /// Every stored merge state of `table` (`chronicle_rows` or `chronicle_baseline_rows`), as rows of ``columns``.
  static func allRows(_ db: Database, of table: String = "chronicle_rows") throws -> [Row] {
    try Row.fetchAll(db, sql: "SELECT \(columns) FROM \(table)")
  }

  /// Writes rows read by ``allRows(_:of:)`` into `table`, replacing states with the same keys.
  static func insert(_ rows: [Row], into table: String = "chronicle_rows", _ db: Database) throws {
    let statement = try db.makeStatement(sql: "INSERT OR REPLACE INTO \(table) (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?)")
    for row in rows { try statement.execute(arguments: StatementArguments(row.databaseValues)) }
  }

  func load(table: String, key: Data) throws -> RowMergeState? {
    let statement = try db.cachedStatement(sql: """
      SELECT clocks, deleted_hlc, deleted_origin, retained, parked_reason
      FROM chronicle_rows WHERE table_name = ? AND row_key = ?
      """)
    return try statement.firstRow([.text(table), .blob(key)]) { row in
      var state = RowMergeState()
      do {
        try state.decodeClocks(SQLiteValue.blobBytes(row, column: 0))
        if sqlite3_column_type(row, 1) == SQLITE_INTEGER, let origin = PeerID(bytes: SQLiteValue.blobBytes(row, column: 2)) {
          state.deleted = WriteVersion(timestamp: HLCTimestamp(rawValue: UInt64(bitPattern: sqlite3_column_int64(row, 1))), origin: origin)
        }
        if sqlite3_column_type(row, 3) != SQLITE_NULL { state.retained = try RowMergeState.decodeValues(SQLiteValue.blobBytes(row, column: 3)) }
      } catch {
        throw ChronicleError.corruptMergeState(table: table, detail: "\(error)")
      }
      if case .text(let reason) = SQLiteValue(statement: row, column: 4) { state.parkedReason = RowMergeState.ParkedReason(rawValue: reason) }
      return state
    }
  }

  func save(table: String, key: Data, _ state: RowMergeState) throws {
    let statement = try db.cachedStatement(sql: """
      INSERT OR REPLACE INTO chronicle_rows
        (table_name, row_key, clocks, deleted_hlc, deleted_origin, retained, parked_reason)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      """)
    try statement.run([
      .text(table), .blob(key), .blob(state.encodedClocks()),
      state.deleted.map { .integer(Int64(bitPattern: $0.timestamp.rawValue)) } ?? .null,
      state.deleted.map { .blob(Data($0.origin.bytes)) } ?? .null,
      try state.retained.map { .blob(try RowMergeState.encodeValues($0)) } ?? .null,
      state.parkedReason.map { .text($0.rawValue) } ?? .null,
    ])
  }

  /// Keeps the values of a row that a local transaction deleted, so that a
  /// later remote write can bring it back whole.
  func retainDeletedRow(table: String, key: Data, values: [String: SQLiteValue]) throws {
    try db.cachedStatement(sql: """
      INSERT INTO chronicle_rows (table_name, row_key, clocks, retained) VALUES (?, ?, X'', ?)
      ON CONFLICT (table_name, row_key) DO UPDATE SET retained = excluded.retained, parked_reason = NULL
      """).execute(arguments: [table, key, try RowMergeState.encodeValues(values)])
  }
}
