import GRDB

/// A SELECT from one table: `Item.where { $0.isInStock }.order(by: \.title).limit(10)`.
///
/// `Output` is what each row decodes to: the table's type, one column's
/// type, or a tuple of them after `select`.
public struct Select<From: Table, Output>: QueryStatement, @unchecked Sendable {
  public typealias QueryValue = Output
  var columns: QueryFragment
  var isDistinct = false
  var conditions: [QueryFragment] = []
  var ordering: [QueryFragment] = []
  var limitFragment: QueryFragment?
  var offsetFragment: QueryFragment?
  /// A subquery read instead of the table.
  var source: QueryFragment?
  let decode: (inout QueryDecoder) throws -> Output

  @usableFromInline
  init(columns: QueryFragment, decode: @escaping (inout QueryDecoder) throws -> Output) {
    self.columns = columns
    self.decode = decode
  }

  public var tableName: String? { From.tableName }

  public func decodeRow(_ decoder: inout QueryDecoder) throws -> Output { try decode(&decoder) }

  public var query: QueryFragment {
    var sql = QueryFragment(sql: isDistinct ? "SELECT DISTINCT " : "SELECT ")
    sql.append(columns)
    sql.append(QueryFragment(" FROM ") + (source ?? QueryFragment(sql: quotedIdentifier(From.tableName))))
    if !conditions.isEmpty { sql.append(QueryFragment(" WHERE ") + conditions.joined(separator: " AND ")) }
    if !ordering.isEmpty { sql.append(QueryFragment(" ORDER BY ") + ordering.joined(separator: ", ")) }
    if let limitFragment {
      sql.append(QueryFragment(" LIMIT ") + limitFragment)
      if let offsetFragment { sql.append(QueryFragment(" OFFSET ") + offsetFragment) }
    } else if let offsetFragment {
      sql.append(QueryFragment(" LIMIT -1 OFFSET ") + offsetFragment)
    }
    return sql
  }

  private func with(_ change: (inout Self) -> Void) -> Self {
    var copy = self
    change(&copy)
    return copy
  }

  /// Adds a condition (AND-ed with the others).
  public func `where`(_ predicate: (From.TableColumns) -> some QueryExpression<Bool>) -> Self {
    with { $0.conditions.append(predicate(From.columns).queryFragment) }
  }

  /// Adds a Bool column as a condition: `.where(\.isInStock)`.
  public func `where`(_ column: KeyPath<From.TableColumns, TableColumn<From, Bool>>) -> Self {
    with { $0.conditions.append(From.columns[keyPath: column].queryFragment) }
  }

  /// Orders by a column, ascending: `.order(by: \.title)`.
  public func order<V>(by column: KeyPath<From.TableColumns, TableColumn<From, V>>) -> Self {
    with { $0.ordering.append(From.columns[keyPath: column].queryFragment) }
  }

  /// Orders by terms: `.order { ($0.priority.desc(), $0.title) }`.
  public func order<each Term: QueryExpression>(by terms: (From.TableColumns) -> (repeat each Term)) -> Self {
    let values = terms(From.columns)
    var fragments: [QueryFragment] = []
    for term in repeat each values { fragments.append(term.queryFragment) }
    return with { $0.ordering += fragments }
  }

  /// At most `count` rows.
  public func limit(_ count: Int) -> Self { with { $0.limitFragment = count.queryFragment } }

  /// Skips the first `count` rows.
  public func offset(_ count: Int) -> Self { with { $0.offsetFragment = count.queryFragment } }

  /// Drops duplicate rows.
  public func distinct(_ isDistinct: Bool = true) -> Self { with { $0.isDistinct = isDistinct } }

  /// The same clauses with other result columns.
  func selecting<NewOutput>(_ columns: [QueryFragment], decode: @escaping (inout QueryDecoder) throws -> NewOutput) -> Select<From, NewOutput> {
    var result = Select<From, NewOutput>(columns: columns.joined(separator: ", "), decode: decode)
    result.copyClauses(from: self)
    return result
  }

  /// The number of rows: `count(*)`; after ``distinct(_:)``, of the distinct rows.
  public func count() -> Select<From, Int> {
    var result = Select<From, Int>(columns: QueryFragment("count(*)")) { decoder in try decoder.decode(Int.self) }
    if isDistinct || limitFragment != nil || offsetFragment != nil {
      result.source = parenthesized(query)
    } else {
      result.conditions = conditions
    }
    return result
  }

  mutating func copyClauses<Other>(from other: Select<From, Other>) {
    isDistinct = other.isDistinct
    conditions = other.conditions
    ordering = other.ordering
    limitFragment = other.limitFragment
    offsetFragment = other.offsetFragment
  }

  /// The number of rows.
  public func fetchCount(_ db: Database) throws -> Int {
    try count().fetchOne(db) ?? 0
  }
}
