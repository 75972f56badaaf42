import Foundation
import GRDB
import GRDBSQLite

/// Puts rows of one table in and takes them out by primary key, through
/// statements prepared once per table (and per column set) and bound through
/// SQLite's C API: the writes merging makes, decided elsewhere.
///
/// Values and keys are given in the table's column order (``TableShape``):
/// a key is its key columns' values in key order; a row is one optional value
/// per column (nil: the column takes its default), as a slice of the
/// caller's storage (a merge batch keeps every row in one array).
final class TableRowWriter {
  let shape: TableShape
  /// Each column's index in ``shape``, by name.
  let columnIndex: [String: Int]
  private let db: Database
  private var inserts = ColumnSetStatements()
  /// Inserts of ``rowsPerInsert`` rows.
  private var multiRowInserts = ColumnSetStatements()
  private var updates = ColumnSetStatements()
  private var selectStatement: GRDB.Statement?
  private var presenceStatement: GRDB.Statement?
  private var deleteStatement: GRDB.Statement?
  /// Whether rows were written since observers were last told.
  private var hasWritten = false
  /// The text and blob bytes of the last statement's values, kept for the
  /// next one's (see ``withStableBytes(_:)``).
  private var stableBytes = StableValueBytes()

  init(_ db: Database, shape: TableShape) {
    self.db = db
    self.shape = shape
    self.columnIndex = Dictionary(shape.columns.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
  }

  // MARK: - SQL

  /// `INSERT` of the given columns (indexes into the shape's columns).
  static func insertSQL(_ shape: TableShape, columns: [Int], rows: Int = 1) -> String {
    "INSERT INTO main.\(quotedIdentifier(shape.name)) (\(columns.map { quotedIdentifier(shape.columns[$0]) }.joined(separator: ", "))) VALUES "
      + repeatElement("(\(databaseQuestionMarks(count: columns.count)))", count: rows).joined(separator: ", ")
  }

  /// `UPDATE` of the given columns of the row with a key.
  static func updateSQL(_ shape: TableShape, columns: [Int]) -> String {
    let assignments = columns.map { "\(quotedIdentifier(shape.columns[$0])) = ?" }.joined(separator: ", ")
    return "UPDATE main.\(quotedIdentifier(shape.name)) SET \(assignments) WHERE \(keyCondition(shape))"
  }

  /// `SELECT` of every column of the row with a key.
  static func selectSQL(_ shape: TableShape) -> String {
    "SELECT \(shape.columns.map(quotedIdentifier).joined(separator: ", ")) FROM main.\(quotedIdentifier(shape.name)) WHERE \(keyCondition(shape))"
  }

  /// `DELETE` of the row with a key.
  static func deleteSQL(_ shape: TableShape) -> String {
    "DELETE FROM main.\(quotedIdentifier(shape.name)) WHERE \(keyCondition(shape))"
  }

  private static func keyCondition(_ shape: TableShape) -> String {
    shape.primaryKey.map { "\(quotedIdentifier(shape.columns[$0])) = ?" }.joined(separator: " AND ")
  }

  // MARK: - Writing

  /// Inserts a row with the columns it has values for (the others take their defaults).
  func insert(_ row: ArraySlice<SQLiteValue?>) throws {
    let statement = try cached(&inserts, row) { Self.insertSQL(shape, columns: $0) }
    try statement.run { binding in
      for value in row { if let value { try binding.bind(value) } }
    }
    hasWritten = true
  }

  /// Inserts `count` rows, the one `row` gives for each index: runs of rows
  /// with values for the same columns go ``rowsPerInsert`` to a statement.
  func insert(count: Int, _ row: (Int) -> ArraySlice<SQLiteValue?>) throws {
    var start = 0
    while start < count {
      let first = row(start)
      var end = start + 1
      if let mask = Self.columnMask(first) {
        while end < count, end - start < Self.rowsPerInsert, Self.columnMask(row(end)) == mask { end += 1 }
      }
      if end - start == Self.rowsPerInsert {
        let statement = try cached(&multiRowInserts, first) { Self.insertSQL(shape, columns: $0, rows: Self.rowsPerInsert) }
        try withStableBytes { bytes in
          for index in start..<end {
            for value in row(index) { if let value { bytes.collect(value) } }
          }
          try bytes.withBinder { binder in
            try statement.run { binding in
              for index in start..<end {
                for value in row(index) { if let value { try binder.bind(value, to: &binding) } }
              }
            }
          }
        }
        hasWritten = true
      } else {
        for index in start..<end { try insert(row(index)) }
      }
      start = end
    }
  }

  /// Rows one statement of ``insert(count:_:)`` inserts.
  static let rowsPerInsert = 64

  /// Sets the columns that `row` has values for (nil: unchanged) on the row with `key`.
  func update(_ row: ArraySlice<SQLiteValue?>, key: ArraySlice<SQLiteValue>) throws {
    guard row.contains(where: { $0 != nil }) else { return }
    let statement = try cached(&updates, row) { Self.updateSQL(shape, columns: $0) }
    try withStableBytes { bytes in
      for value in row { if let value { bytes.collect(value) } }
      for value in key { bytes.collect(value) }
      try bytes.withBinder { binder in
        try statement.run { binding in
          for value in row { if let value { try binder.bind(value, to: &binding) } }
          for value in key { try binder.bind(value, to: &binding) }
        }
      }
    }
    hasWritten = true
  }

  /// Runs `body` with the writer's buffer for the text and blob bytes of a
  /// statement's values (see ``StableValueBytes``), emptied. The buffer is
  /// taken out of the writer while in use: accessed through the writer (a
  /// class), it would be checked for exclusive access at every value.
  private func withStableBytes(_ body: (inout StableValueBytes) throws -> Void) throws {
    var bytes = stableBytes
    stableBytes = StableValueBytes()
    bytes.removeAll()
    defer { stableBytes = bytes }
    try body(&bytes)
  }

  /// Whether the row with `key` is in the table.
  func contains(key: some Sequence<SQLiteValue>) throws -> Bool {
    if presenceStatement == nil {
      presenceStatement = try db.makeStatement(sql: "SELECT 1 FROM main.\(quotedIdentifier(shape.name)) WHERE \(Self.keyCondition(shape))")
    }
    return try presenceStatement!.firstRow(key, { _ in true }) ?? false
  }

  /// Deletes the row with `key` and returns its values; nil when it is absent.
  func takeOut(key: some Sequence<SQLiteValue>) throws -> [SQLiteValue]? {
    if selectStatement == nil { selectStatement = try db.makeStatement(sql: Self.selectSQL(shape)) }
    let count = Int32(shape.columns.count)
    guard let row = try selectStatement!.firstRow(key, { handle in
      (0..<count).map { SQLiteValue(statement: handle, column: $0) }
    }) else { return nil }
    if deleteStatement == nil { deleteStatement = try db.makeStatement(sql: Self.deleteSQL(shape)) }
    try deleteStatement!.run(key)
    hasWritten = true
    return row
  }

  /// Tells GRDB's observers (`ValueObservation`, the app's `FetchAll`) that
  /// the table changed: statements run through the C API are not seen by them.
  func notifyObservers() throws {
    guard hasWritten else { return }
    hasWritten = false
    try db.notifyChanges(in: GRDB.Table<Row>(shape.name))
  }

  /// The statement for the columns `row` has values for, prepared on first
  /// use; statements are found by a bit per column (a table of up to 64
  /// columns), so finding one hashes no array.
  private func cached(_ statements: inout ColumnSetStatements, _ row: ArraySlice<SQLiteValue?>, _ sql: ([Int]) -> String) throws -> GRDB.Statement {
    let mask = Self.columnMask(row)
    if let mask, let last = statements.last, last.mask == mask { return last.statement }
    if let mask, let statement = statements.byMask[mask] {
      statements.last = (mask, statement)
      return statement
    }
    let columns = row.enumerated().filter { $0.element != nil }.map(\.offset)
    if mask == nil, let statement = statements.byColumns[columns] { return statement }
    let statement = try db.makeStatement(sql: sql(columns))
    if let mask {
      statements.byMask[mask] = statement
      statements.last = (mask, statement)
    } else {
      statements.byColumns[columns] = statement
    }
    return statement
  }

  /// Bit `i` set when `row` has a value for column `i`; nil for a table of more than 64 columns.
  private static func columnMask(_ row: ArraySlice<SQLiteValue?>) -> UInt64? {
    guard row.count <= 64 else { return nil }
    var mask: UInt64 = 0
    var bit: UInt64 = 1
    for value in row {
      if value != nil { mask |= bit }
      bit <<= 1
    }
    return mask
  }
}

/// Prepared statements by the set of columns they write.
private struct ColumnSetStatements {
  /// Tables of up to 64 columns: bit `i` set for column `i`.
  var byMask: [UInt64: GRDB.Statement] = [:]
  /// Wider tables: the column indexes.
  var byColumns: [[Int]: GRDB.Statement] = [:]
  /// The statement found last: rows of a batch mostly write the same columns.
  var last: (mask: UInt64, statement: GRDB.Statement)?
}
