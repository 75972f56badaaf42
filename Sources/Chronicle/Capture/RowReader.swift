import GRDB
import GRDBSQLite

/// Reads the current values of one row of a tracked table by primary key,
/// through a persistent prepared statement: the read-back of capture.
final class RowReader {
  private var statement: OpaquePointer?
  let columnCount: Int32

  init(connection: OpaquePointer, table: TrackedTable) throws {
    let columns = table.columns.map(quotedIdentifier).joined(separator: ", ")
    let condition = table.primaryKey.enumerated()
      .map { "\(quotedIdentifier(table.columns[$0.element])) = ?\($0.offset + 1)" }
      .joined(separator: " AND ")
    let sql = "SELECT \(columns) FROM main.\(quotedIdentifier(table.name)) WHERE \(condition)"
    let status = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
    guard status == SQLITE_OK, statement != nil else {
      throw DatabaseError(resultCode: ResultCode(rawValue: status), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
    }
    columnCount = Int32(table.columns.count)
  }

  deinit { sqlite3_finalize(statement) }

  /// Looks the row up and calls `body` with the statement positioned on it
  /// (its columns in table column order), or with nil when no row has that key.
  func withRow<T>(key: RowKey, _ body: (OpaquePointer?) throws -> T) throws -> T {
    guard let statement else { return try body(nil) }
    defer { sqlite3_reset(statement) }  // every parameter is bound again next time
    key.bind(to: statement)
    switch sqlite3_step(statement) {
    case SQLITE_ROW:
      return try body(statement)
    case SQLITE_DONE:
      return try body(nil)
    case let status:
      throw DatabaseError(resultCode: ResultCode(rawValue: status), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(statement))))
    }
  }
}
