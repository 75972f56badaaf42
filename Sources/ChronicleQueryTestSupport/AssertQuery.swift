import Chronicle
import Dependencies
import InlineSnapshotTesting

/// Snapshots what a statement returns, and with `includeSQL` its SQL, inline
/// in the test, as SQLiteData's `assertQuery` does:
///
/// ```swift
/// assertQuery(Reminder.select(\.title).order(by: \.title)) {
///   """
///   ┌─────────────┐
///   │ "Groceries" │
///   │ "Haircut"   │
///   └─────────────┘
///   """
/// }
///
/// assertQuery(includeSQL: true, Tag.insert { Tag(title: "car") }.returning(\.title)) {
///   """
///   INSERT INTO "tags"
///   ("title")
///   VALUES
///   ('car')
///   RETURNING "title"
///   """
/// } results: {
///   """
///   ┌───────┐
///   │ "car" │
///   └───────┘
///   """
/// }
/// ```
///
/// The statement runs in a write transaction of `database`, or of
/// `@Dependency(\.defaultDatabase)` when it is nil. Each row is a line of
/// the table (a tuple's values its columns, each value as `customDump`
/// prints it); no rows is `(No results)`; a statement SQLite refuses
/// records SQLite's message. The SQL is the statement's `description`: a
/// clause to a line, values in place. Leave a snapshot out and the test
/// records it, as inline snapshots do.
///
/// - Parameters:
///   - includeSQL: Whether to snapshot the SQL as well (the first trailing
///     closure, then `results:`).
///   - query: The statement.
///   - database: The database to run it on; nil for the default database.
///   - sql: The SQL's snapshot, or the results' when `includeSQL` is false.
///   - results: The results' snapshot when `includeSQL` is true.
public func assertQuery<Statement: QueryStatement>(
  includeSQL: Bool = false,
  _ query: Statement,
  database: (any DatabaseWriter)? = nil,
  sql: (() -> String)? = nil,
  results: (() -> String)? = nil,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  function: StaticString = #function,
  line: UInt = #line,
  column: UInt = #column
) {
  if includeSQL {
    assertInlineSnapshot(
      of: query.query.description,
      as: .lines,
      message: "Query did not match",
      syntaxDescriptor: InlineSnapshotSyntaxDescriptor(trailingClosureLabel: "sql", trailingClosureOffset: 0),
      matches: sql,
      fileID: fileID, file: filePath, function: function, line: line, column: column
    )
  }
  assertInlineSnapshot(
    of: resultsSnapshot(of: query, database: database),
    as: .lines,
    message: "Results did not match",
    syntaxDescriptor: InlineSnapshotSyntaxDescriptor(trailingClosureLabel: "results", trailingClosureOffset: includeSQL ? 1 : 0),
    matches: includeSQL ? results : sql,
    fileID: fileID, file: filePath, function: function, line: line, column: column
  )
}

/// Snapshots a row given in Swift as a select of its values, each named
/// as its column, as upstream's tests use a table value as a statement:
/// `assertQuery(Item(title: "Phone", quantity: 1))` is
/// `SELECT 'Phone' AS "title", 1 AS "quantity"` and that row read back.
/// The same as `assertQuery(Values(row))`.
public func assertQuery<Row: Table>(
  includeSQL: Bool = false,
  _ row: Row,
  database: (any DatabaseWriter)? = nil,
  sql: (() -> String)? = nil,
  results: (() -> String)? = nil,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  function: StaticString = #function,
  line: UInt = #line,
  column: UInt = #column
) {
  assertQuery(
    includeSQL: includeSQL, Values(row), database: database, sql: sql, results: results,
    fileID: fileID, filePath: filePath, function: function, line: line, column: column)
}

/// Snapshots an optional row as a select of its values, or of a NULL for
/// each column when it is nil (`assertQuery(Item?.none)`), read back as
/// the optional row. The same as `assertQuery(Values(row))`.
public func assertQuery<Row: Table>(
  includeSQL: Bool = false,
  _ row: Row?,
  database: (any DatabaseWriter)? = nil,
  sql: (() -> String)? = nil,
  results: (() -> String)? = nil,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  function: StaticString = #function,
  line: UInt = #line,
  column: UInt = #column
) {
  assertQuery(
    includeSQL: includeSQL, Values(row), database: database, sql: sql, results: results,
    fileID: fileID, filePath: filePath, function: function, line: line, column: column)
}

/// The statement's rows as a table, `(No results)`, or the error that
/// stopped it.
func resultsSnapshot(of query: some QueryStatement, database: (any DatabaseWriter)?) -> String {
  do {
    @Dependency(\.defaultDatabase) var defaultDatabase
    let rows = try (database ?? defaultDatabase).write { try query.fetchAll($0) }
    return rows.isEmpty ? "(No results)" : ResultTable(rows: rows).text
  } catch let error as DatabaseError {
    return error.message ?? "\(error)"
  } catch {
    return "\(error)"
  }
}
