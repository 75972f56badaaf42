import GRDB
import GRDBSQLite

/// Reads every row of a tracked table, in primary key order: the content of a
/// table that an event carries whole (new, adopted or rebuilt tables).
struct AllRowsReader {
  let connection: OpaquePointer
  let sql: String
  let columnCount: Int32

  init(connection: OpaquePointer, table: TrackedTable) throws {
    self.connection = connection
    let order = table.primaryKey.map { quotedIdentifier(table.columns[$0]) }.joined(separator: ", ")
    sql = "SELECT \(table.columns.map(quotedIdentifier).joined(separator: ", ")) FROM main.\(quotedIdentifier(table.name)) ORDER BY \(order)"
    columnCount = Int32(table.columns.count)
  }

  /// Calls `body` with the statement positioned on each row in turn (columns
  /// in table column order).
  func forEach(_ body: (OpaquePointer) throws -> Void) throws {
    var statement: OpaquePointer?
    let status = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
    guard status == SQLITE_OK, let statement else {
      throw DatabaseError(resultCode: ResultCode(rawValue: status), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
    }
    defer { sqlite3_finalize(statement) }
    while true {
      switch sqlite3_step(statement) {
      case SQLITE_ROW:
        try body(statement)
      case SQLITE_DONE:
        return
      case let code:
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
      }
    }
  }
}
