import GRDB

/// A complete SQL statement that yields rows of `QueryValue` (Void for none).
public protocol QueryStatement<QueryValue>: Sendable {
  associatedtype QueryValue
  /// The statement's SQL and bindings.
  var query: QueryFragment { get }
  /// The table read, for decoding errors.
  var tableName: String? { get }
  /// Reads one result row.
  func decodeRow(_ decoder: inout QueryDecoder) throws -> QueryValue
  /// Throws when the statement was built from input it cannot run with.
  func validate() throws
}

extension QueryStatement {
  public func validate() throws {}

  func prepared(_ db: Database) throws -> GRDB.Statement {
    try validate()
    let statement = try db.cachedStatement(sql: query.sql)
    try statement.setArguments(StatementArguments(query.bindings.map(\.databaseValue)))
    return statement
  }

  /// Runs the statement, ignoring any rows it returns.
  public func execute(_ db: Database) throws {
    try prepared(db).execute()
  }

  /// Every row.
  public func fetchAll(_ db: Database) throws -> [QueryValue] {
    var result: [QueryValue] = []
    let cursor = try fetchCursor(db)
    while let value = try cursor.next() { result.append(value) }
    return result
  }

  /// The first row, if any.
  public func fetchOne(_ db: Database) throws -> QueryValue? {
    try fetchCursor(db).next()
  }

  /// A cursor over the rows, for results too large to hold at once. Use it
  /// inside the database access that created it.
  public func fetchCursor(_ db: Database) throws -> QueryCursor<QueryValue> {
    let statement = try prepared(db)
    return QueryCursor(rows: try Row.fetchCursor(statement), statement: statement.sqliteStatement, tableName: tableName, decode: decodeRow)
  }
}

/// Iterates the rows of a statement, decoding each as it comes.
public final class QueryCursor<Element>: Cursor {
  private let rows: RowCursor
  private let statement: SQLiteStatement
  private let tableName: String?
  private let decode: (inout QueryDecoder) throws -> Element

  init(rows: RowCursor, statement: SQLiteStatement, tableName: String?, decode: @escaping (inout QueryDecoder) throws -> Element) {
    self.rows = rows
    self.statement = statement
    self.tableName = tableName
    self.decode = decode
  }

  public func next() throws -> Element? {
    guard try rows.next() != nil else { return nil }
    var decoder = QueryDecoder(statement: statement, tableName: tableName)
    return try decode(&decoder)
  }
}

/// A statement was asked for a row that is not there.
public struct RowNotFound: Error, Equatable, Sendable, CustomStringConvertible {
  public var table: String
  public var key: String

  public var description: String {
    "no row in \(table) with primary key \(key). Fix: check the key, or use find(_:).fetchOne(db), which returns nil."
  }
}
