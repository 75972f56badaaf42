import GRDB
import GRDBSQLite

/// A complete SQL statement that yields rows of `QueryValue` (Void for none).
public protocol QueryStatement<QueryValue>: Sendable {
  associatedtype QueryValue
  /// The statement's SQL and bindings.
  var query: QueryFragment { get }
  /// The table read, for decoding errors.
  var tableName: String? { get }
  /// Reads one result row.
  func decodeRow(_ decoder: inout SQLiteQueryDecoder) throws -> QueryValue
  /// Throws when the statement was built from input it cannot run with.
  func validate() throws
  /// The statement as run: ``query``, or several statements with the same
  /// effect when one would bind more than `maxBindings` values (a large
  /// multi-row insert).
  func parts(maxBindings: Int) -> [QueryFragment]
}

extension QueryStatement {
  public func validate() throws {}

  public func parts(maxBindings: Int) -> [QueryFragment] { [query] }

  /// The parts to run, validated. Prepare each just before running it:
  /// parts with the same SQL share one cached statement.
  @usableFromInline
  func runnableParts(_ db: Database) throws -> [QueryFragment] {
    try validate()
    return parts(maxBindings: Int(sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_VARIABLE_NUMBER, -1)))
  }

  /// Runs the statement, ignoring any rows it returns.
  public func execute(_ db: Database) throws {
    for part in try runnableParts(db) { try prepare(part, db).execute() }
  }

  /// Every row.
  @inlinable
  public func fetchAll(_ db: Database) throws -> [QueryValue] {
    var result: [QueryValue] = []
    for part in try runnableParts(db) {
      let statement = try prepare(part, db)
      let handle = statement.sqliteStatement
      let name = tableName
      // GRDB's forEach steps without building a Row per result row.
      try Row.fetchCursor(statement).forEach { _ in
        var decoder = SQLiteQueryDecoder(statement: handle, tableName: name)
        result.append(try decodeRow(&decoder))
      }
    }
    return result
  }

  /// The first row, if any.
  @inlinable
  public func fetchOne(_ db: Database) throws -> QueryValue? {
    try fetchCursor(db).next()
  }

  /// A cursor over the rows, for results too large to hold at once. Use it
  /// inside the database access that created it.
  @inlinable
  public func fetchCursor(_ db: Database) throws -> QueryCursor<QueryValue> {
    QueryCursor(db: db, parts: try runnableParts(db), tableName: tableName, decode: decodeRow)
  }
}

/// A cached statement for `fragment`, with its values bound.
///
/// Values are bound with `sqlite3_bind_*` directly rather than through
/// `StatementArguments`: a 100,000-row insert binds half a million values,
/// and the conversion costs more than the insert itself.
@usableFromInline
func prepare(_ fragment: QueryFragment, _ db: Database) throws -> GRDB.Statement {
  let statement = try db.cachedStatement(sql: fragment.sql)
  let handle = statement.sqliteStatement
  let expected = Int(sqlite3_bind_parameter_count(handle))
  guard expected == fragment.bindings.count else {
    throw DatabaseError(
      resultCode: .SQLITE_RANGE,
      message: "the statement has \(expected) parameters but \(fragment.bindings.count) values are bound. "
        + "Fix: write values as interpolations (\\(value)) rather than '?' placeholders",
      sql: fragment.sql)
  }
  statement.setUncheckedArguments(StatementArguments())  // resets and clears the previous bindings
  for (index, binding) in zip(Int32(1)..., fragment.bindings) {
    if case .invalid(let problem) = binding {
      throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "cannot bind parameter \(index): \(problem)", sql: fragment.sql)
    }
    let code = binding.bind(to: handle, at: index)
    guard code == SQLITE_OK else {
      throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot bind parameter \(index)", sql: fragment.sql)
    }
  }
  return statement
}

/// Iterates the rows of a statement, decoding each as it comes.
public final class QueryCursor<Element>: Cursor {
  @usableFromInline let db: Database
  @usableFromInline var parts: IndexingIterator<[QueryFragment]>
  @usableFromInline var current: (rows: RowCursor, statement: SQLiteStatement)?
  @usableFromInline let tableName: String?
  @usableFromInline let decode: (inout SQLiteQueryDecoder) throws -> Element

  @inlinable
  init(db: Database, parts: [QueryFragment], tableName: String?, decode: @escaping (inout SQLiteQueryDecoder) throws -> Element) {
    self.db = db
    self.parts = parts.makeIterator()
    self.tableName = tableName
    self.decode = decode
  }

  @inlinable
  public func next() throws -> Element? {
    while true {
      if let current, try current.rows.next() != nil {
        var decoder = SQLiteQueryDecoder(statement: current.statement, tableName: tableName)
        return try decode(&decoder)
      }
      guard let part = parts.next() else { return nil }
      let statement = try prepare(part, db)
      current = (try Row.fetchCursor(statement), statement.sqliteStatement)
    }
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
