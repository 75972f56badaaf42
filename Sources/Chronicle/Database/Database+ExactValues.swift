import Foundation
import GRDB
import GRDBSQLite

/// Reading and writing application values byte for byte.
///
/// GRDB binds a `String` up to its first NUL byte and reads TEXT through
/// `String(cString:)`, so a TEXT value holding NUL (`'a' || char(0) || 'b'`)
/// would come out of a GRDB round trip as `'a'`. Chronicle moves every
/// application value through these helpers instead: they bind and read with
/// explicit lengths, and still run through GRDB's statements, so transaction
/// observers (ValueObservation) see the writes.
extension GRDB.Statement {
  /// Binds `values` to the statement's parameters in order, with explicit lengths.
  package func bindExactly(_ values: some Sequence<SQLiteValue>) {
    // Resets, clears the bindings and marks them valid, so that a later
    // execute() or cursor only resets: the bindings below stay in place.
    setUncheckedArguments([])
    for (index, value) in zip(Int32(1)..., values) {
      _ = value.bind(to: sqliteStatement, at: index)
    }
  }

  /// Every column of the current row of a stepped statement.
  package func exactValues() -> [SQLiteValue] {
    (0..<Int32(columnCount)).map { SQLiteValue(statement: sqliteStatement, column: $0) }
  }
}

extension Database {
  /// Executes `sql` (one statement, cached) with `values` bound byte for byte.
  package func execute(sql: String, values: some Collection<SQLiteValue>) throws {
    let statement = try cachedStatement(sql: sql)
    statement.bindExactly(values)
    try statement.execute()
  }

  /// Calls `body` with each row of `sql`, read byte for byte.
  package func forEachRow(
    sql: String, values: some Collection<SQLiteValue> = [SQLiteValue](), cached: Bool = true,
    _ body: ([SQLiteValue]) throws -> Void
  ) throws {
    let statement = try cached ? cachedStatement(sql: sql) : makeStatement(sql: sql)
    statement.bindExactly(values)
    let cursor = try Row.fetchCursor(statement)
    while try cursor.next() != nil { try body(statement.exactValues()) }
  }

  /// Every row of `sql`, read byte for byte.
  package func fetchRows(
    sql: String, values: some Collection<SQLiteValue> = [SQLiteValue](), cached: Bool = true
  ) throws -> [[SQLiteValue]] {
    var rows: [[SQLiteValue]] = []
    try forEachRow(sql: sql, values: values, cached: cached) { rows.append($0) }
    return rows
  }

  /// The first row of `sql`, read byte for byte, or nil when there is none.
  package func fetchFirstRow(
    sql: String, values: some Collection<SQLiteValue> = [SQLiteValue](), cached: Bool = true
  ) throws -> [SQLiteValue]? {
    let statement = try cached ? cachedStatement(sql: sql) : makeStatement(sql: sql)
    statement.bindExactly(values)
    let cursor = try Row.fetchCursor(statement)
    guard try cursor.next() != nil else { return nil }
    let row = statement.exactValues()
    // Leave the cached statement reset, not halfway through its rows.
    statement.bindExactly([])
    return row
  }

  /// The first row of `sql` as named values, read byte for byte, or nil.
  package func fetchFirstNamedRow(
    sql: String, values: some Collection<SQLiteValue> = [SQLiteValue]()
  ) throws -> [NamedValue]? {
    let statement = try makeStatement(sql: sql)
    statement.bindExactly(values)
    let cursor = try Row.fetchCursor(statement)
    guard try cursor.next() != nil else { return nil }
    return zip(statement.columnNames, statement.exactValues()).map { NamedValue(column: $0, value: $1) }
  }

  /// Every row of `sql` as named values, read byte for byte.
  package func fetchNamedRows(
    sql: String, values: some Collection<SQLiteValue> = [SQLiteValue]()
  ) throws -> [[NamedValue]] {
    let statement = try makeStatement(sql: sql)
    statement.bindExactly(values)
    let names = statement.columnNames
    var rows: [[NamedValue]] = []
    let cursor = try Row.fetchCursor(statement)
    while try cursor.next() != nil {
      rows.append(zip(names, statement.exactValues()).map { NamedValue(column: $0, value: $1) })
    }
    return rows
  }
}
