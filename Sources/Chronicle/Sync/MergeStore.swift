import Foundation
import GRDB

/// Reads and writes `chronicle_rows`, the per-row merge state.
struct MergeStore {
  let db: Database

  /// The primary key of a row as stored in `row_key`: its values in key order,
  /// in the event value encoding.
  static func encodeKey(_ values: [SQLiteValue]) throws(EventFormatError) -> Data {
    var writer = BinaryWriter(capacity: 16)
    for value in values { try EventCodec.writeValue(value, to: &writer) }
    return Data(writer.bytes)
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
    guard let row = try Row.fetchOne(
      db.cachedStatement(sql: """
        SELECT clocks, deleted_hlc, deleted_origin, retained, parked_reason
        FROM chronicle_rows WHERE table_name = ? AND row_key = ?
        """),
      arguments: [table, key])
    else { return nil }
    var state = RowMergeState()
    do {
      try state.decodeClocks(row[0])
      if let hlc = row[1] as Int64?, let origin = (row[2] as Data?).flatMap({ PeerID(bytes: $0) }) {
        state.deleted = WriteVersion(timestamp: HLCTimestamp(rawValue: UInt64(bitPattern: hlc)), origin: origin)
      }
      if let retained = row[3] as Data? { state.retained = try RowMergeState.decodeValues(retained) }
    } catch {
      throw ChronicleError.corruptMergeState(table: table, detail: "\(error)")
    }
    state.parkedReason = (row[4] as String?).flatMap(RowMergeState.ParkedReason.init(rawValue:))
    return state
  }

  func save(table: String, key: Data, _ state: RowMergeState) throws {
    try db.cachedStatement(sql: """
      INSERT OR REPLACE INTO chronicle_rows
        (table_name, row_key, clocks, deleted_hlc, deleted_origin, retained, parked_reason)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      """).execute(arguments: [
        table, key, state.encodedClocks(),
        state.deleted.map { Int64(bitPattern: $0.timestamp.rawValue) }, state.deleted.map { Data($0.origin.bytes) },
        try state.retained.map { try RowMergeState.encodeValues($0) }, state.parkedReason?.rawValue,
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
