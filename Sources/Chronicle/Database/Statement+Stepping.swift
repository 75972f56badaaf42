import Foundation
import GRDB
import GRDBSQLite

/// Running a prepared statement straight through SQLite's C API, for the
/// loops that run it once per row (replay, merge, folding): binding through
/// `StatementArguments` and reading through `Row` would cost more than the
/// statement itself. Values are bound and read byte for byte, as
/// ``Database/execute(sql:values:)`` does.
extension GRDB.Statement {
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

  /// Runs the statement to completion with the values `bind` gives, in
  /// order, to the ``StatementBinding`` it is handed: for callers that hold
  /// their values in their own layout, with no array made per run.
  package func run(binding bind: (inout StatementBinding) throws -> Void) throws {
    let handle = sqliteStatement
    sqlite3_reset(handle)
    var binding = StatementBinding(handle: handle)
    try bind(&binding)
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

  fileprivate func bind(_ values: some Sequence<SQLiteValue>, to handle: OpaquePointer) throws {
    for (index, value) in zip(Int32(1)..., values) {
      let code = value.bind(to: handle, at: index)
      guard code == SQLITE_OK else { throw Self.error(code, handle) }
    }
  }

  fileprivate static func error(_ code: Int32, _ handle: OpaquePointer) -> DatabaseError {
    DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))))
  }
}

/// A statement stepped by its caller, one row at a time, to read two side
/// by side; reset when released.
package final class SteppedRows {
  private let statement: GRDB.Statement
  var handle: OpaquePointer { statement.sqliteStatement }

  /// Binds `values` in order to `statement`, which is not stepped yet.
  package init(_ statement: GRDB.Statement, _ values: some Sequence<SQLiteValue>) throws {
    self.statement = statement
    let handle = statement.sqliteStatement
    sqlite3_reset(handle)
    try statement.bind(values, to: handle)
  }

  /// Steps to the next row: the statement's handle at it, or nil past the last.
  package func next() throws -> OpaquePointer? {
    switch sqlite3_step(handle) {
    case SQLITE_ROW: return handle
    case SQLITE_DONE: return nil
    case let code: throw GRDB.Statement.error(code, handle)
    }
  }

  deinit { sqlite3_reset(statement.sqliteStatement) }
}

/// The parameters of a statement being bound, one after the other (see
/// ``GRDB/Statement/run(binding:)``).
package struct StatementBinding {
  let handle: OpaquePointer
  /// The next parameter's index (1-based).
  private var index: Int32 = 1

  init(handle: OpaquePointer) { self.handle = handle }

  /// Binds `value` to the next parameter.
  mutating func bind(_ value: SQLiteValue) throws {
    try check(value.bind(to: handle, at: index))
  }

  mutating func bind(_ value: Int64) throws {
    try check(sqlite3_bind_int64(handle, index, value))
  }

  mutating func bindNull() throws {
    try check(sqlite3_bind_null(handle, index))
  }

  /// Binds `bytes` as a BLOB. SQLite copies them, unless `copied` is
  /// false: then they must stay where they are, unchanged, until the
  /// statement has run.
  mutating func bindBlob(_ bytes: UnsafeRawBufferPointer, copied: Bool = true) throws {
    try check(sqlite3_bind_blob(
      handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), copied ? sqliteTransient : sqliteStatic))
  }

  /// Binds UTF-8 `bytes` as TEXT where they lie: they must stay there,
  /// unchanged, until the statement has run. (Empty text is still TEXT:
  /// SQLite reads a NULL pointer as NULL.)
  mutating func bindText(_ bytes: UnsafeRawBufferPointer) throws {
    guard let start = bytes.baseAddress, !bytes.isEmpty else {
      try check(sqlite3_bind_text(handle, index, "", 0, sqliteTransient))
      return
    }
    try check(sqlite3_bind_text(handle, index, start.assumingMemoryBound(to: CChar.self), Int32(bytes.count), sqliteStatic))
  }

  private mutating func check(_ code: Int32) throws {
    guard code == SQLITE_OK else { throw GRDB.Statement.error(code, handle) }
    index += 1
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
