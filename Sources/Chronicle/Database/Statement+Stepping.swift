import Foundation
import GRDB
import GRDBSQLite

/// Running a prepared statement straight through SQLite's C API, for the
/// loops that run it once per row (replay, merge, folding): binding through
/// `StatementArguments` and reading through `Row` would cost more than the
/// statement itself. Values are bound and read byte for byte, as
/// ``Database/execute(sql:values:)`` does.
extension Statement {
  /// Binds `values` in order and runs the statement to completion.
  /// - Throws: a `DatabaseError` with SQLite's message.
  package func run(_ values: some Sequence<SQLiteValue>) throws {
    let handle = sqliteStatement
    sqlite3_reset(handle)
    try bind(values, to: handle)
    let code = sqlite3_step(handle)
    sqlite3_reset(handle)
    guard code == SQLITE_DONE else { throw Self.error(code, handle) }
  }

  /// Binds `values` in order, steps once, and reads the first row with
  /// `read` (given the statement handle, for `sqlite3_column_*` or
  /// ``SQLiteValue/init(statement:column:)``); nil when there is no row.
  package func firstRow<T>(_ values: some Sequence<SQLiteValue>, _ read: (OpaquePointer) throws -> T) throws -> T? {
    let handle = sqliteStatement
    sqlite3_reset(handle)
    defer { sqlite3_reset(handle) }
    try bind(values, to: handle)
    switch sqlite3_step(handle) {
    case SQLITE_ROW: return try read(handle)
    case SQLITE_DONE: return nil
    case let code: throw Self.error(code, handle)
    }
  }

  /// Binds `values` in order and calls `read` with the statement handle at
  /// each row, to the last.
  package func forEachRow(_ values: some Sequence<SQLiteValue>, _ read: (OpaquePointer) throws -> Void) throws {
    let handle = sqliteStatement
    sqlite3_reset(handle)
    defer { sqlite3_reset(handle) }
    try bind(values, to: handle)
    while true {
      switch sqlite3_step(handle) {
      case SQLITE_ROW: try read(handle)
      case SQLITE_DONE: return
      case let code: throw Self.error(code, handle)
      }
    }
  }

  private func bind(_ values: some Sequence<SQLiteValue>, to handle: OpaquePointer) throws {
    for (index, value) in zip(Int32(1)..., values) {
      let code = value.bind(to: handle, at: index)
      guard code == SQLITE_OK else { throw Self.error(code, handle) }
    }
  }

  private static func error(_ code: Int32, _ handle: OpaquePointer) -> DatabaseError {
    DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))))
  }
}

extension SQLiteValue {
  /// The bytes of a BLOB column of the current row (empty for NULL or an empty BLOB).
  static func blobBytes(_ statement: OpaquePointer, column index: Int32) -> [UInt8] {
    let count = Int(sqlite3_column_bytes(statement, index))
    guard count > 0, let blob = sqlite3_column_blob(statement, index) else { return [] }
    return [UInt8](UnsafeRawBufferPointer(start: blob, count: count))
  }
}
