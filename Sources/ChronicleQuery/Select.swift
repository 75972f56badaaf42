import GRDB

/// A SELECT from one table: `Item.where { $0.isInStock }.order(by: \.title).limit(10)`.
///
/// `Output` is what each row decodes to: the table's type, one column's
/// type, or a tuple of them after `select`. Joining another table gives a
/// ``Select2``.
@dynamicMemberLookup
public struct Select<From: Table, Output>: SelectStatement, @unchecked Sendable {
  public typealias QueryValue = Output
  var clauses: SelectClauses
  /// The table's columns, qualified by the name the query reads it under
  /// (the table's, an alias or a common table's).
  let fromColumns: From.TableColumns
  let decode: (inout SQLiteQueryDecoder) throws -> Output

  @usableFromInline
  init(columns: QueryFragment, decode: @escaping (inout SQLiteQueryDecoder) throws -> Output) {
    self.clauses = SelectClauses(resultColumns: [columns], from: From.selectSource)
    self.fromColumns = From.columns
    self.decode = decode
  }

  init(clauses: SelectClauses, fromColumns: From.TableColumns, decode: @escaping (inout SQLiteQueryDecoder) throws -> Output) {
    self.clauses = clauses
    self.fromColumns = fromColumns
    self.decode = decode
  }

  public var tableName: String? { From.tableName }

  public func decodeRow(_ decoder: inout SQLiteQueryDecoder) throws -> Output { try decode(&decoder) }

  public var query: QueryFragment { clauses.query }

  private func with(_ change: (inout SelectClauses) -> Void) -> Self {
    var copy = self
    change(&copy.clauses)
    return copy
  }

  /// Adds a condition (AND-ed with the others).
  @_disfavoredOverload
  public func `where`(_ predicate: (From.TableColumns) -> some QueryExpression<Bool>) -> Self {
    with { $0.conditions.append(predicate(fromColumns).queryFragment) }
  }

  /// Adds the conditions a closure gives, written with `if`, `switch` or
  /// `for` (AND-ed with the others; none when no branch gives one):
  /// `.where { if !showCompleted { !$0.isCompleted } }`.
  public func `where`(@QueryFragmentBuilder<Bool> _ predicate: (From.TableColumns) -> [QueryFragment]) -> Self {
    with { $0.conditions += predicate(fromColumns) }
  }

  /// Adds a Bool column as a condition: `.where(\.isInStock)`.
  public func `where`(_ column: KeyPath<From.TableColumns, TableColumn<From, Bool>>) -> Self {
    with { $0.conditions.append(fromColumns[keyPath: column].queryFragment) }
  }

  /// Orders by a column, ascending: `.order(by: \.title)`.
  public func order<V>(by column: KeyPath<From.TableColumns, TableColumn<From, V>>) -> Self {
    with { $0.ordering.append(fromColumns[keyPath: column].queryFragment) }
  }

  /// Orders by terms: `.order { ($0.priority.desc(), $0.title) }`.
  @_disfavoredOverload
  public func order<each Term: QueryExpression>(by terms: (From.TableColumns) -> (repeat each Term)) -> Self {
    let values = terms(fromColumns)
    var fragments: [QueryFragment] = []
    for term in repeat each values { fragments.append(term.queryFragment) }
    return with { $0.ordering += fragments }
  }

  /// Orders by the terms a closure gives, written with `if` or `switch`:
  /// `.order { if byTitle { $0.title } else { ($0.priority.desc(), $0.title) } }`.
  public func order(@QueryFragmentBuilder<Void> by terms: (From.TableColumns) -> [QueryFragment]) -> Self {
    with { $0.ordering += terms(fromColumns) }
  }

  /// Groups rows by a column: `.group(by: \.id)`.
  public func group<V>(by column: KeyPath<From.TableColumns, TableColumn<From, V>>) -> Self {
    with { $0.grouping.append(fromColumns[keyPath: column].queryFragment) }
  }

  /// Groups rows by terms: `.group { ($0.storeID, $0.category) }`.
  public func group<each Term: QueryExpression>(by terms: (From.TableColumns) -> (repeat each Term)) -> Self {
    let values = terms(fromColumns)
    var fragments: [QueryFragment] = []
    for term in repeat each values { fragments.append(term.queryFragment) }
    return with { $0.grouping += fragments }
  }

  /// Adds a condition on groups (HAVING), AND-ed with the others.
  @_disfavoredOverload
  public func having(_ predicate: (From.TableColumns) -> some QueryExpression<Bool>) -> Self {
    with { $0.groupConditions.append(predicate(fromColumns).queryFragment) }
  }

  /// Adds the conditions on groups a closure gives, written with `if`,
  /// `switch` or `for`.
  public func having(@QueryFragmentBuilder<Bool> _ predicate: (From.TableColumns) -> [QueryFragment]) -> Self {
    with { $0.groupConditions += predicate(fromColumns) }
  }

  /// At most `count` rows (`nil` for no limit: `.limit(nil)`), after
  /// skipping `offset` rows.
  public func limit(_ count: Int?, offset: Int? = nil) -> Self {
    with {
      $0.limit = count?.queryFragment
      if let offset { $0.offset = offset.queryFragment }
    }
  }

  /// At most as many rows as an expression gives (a subquery, a bound
  /// value: `.limit { _ in pageSize }`), after skipping what `offset` gives.
  public func limit(
    _ count: (From.TableColumns) -> some QueryExpression<Int>,
    offset: ((From.TableColumns) -> any QueryExpression<Int>)? = nil
  ) -> Self {
    with {
      $0.limit = count(fromColumns).queryFragment
      if let offset { $0.offset = offset(fromColumns).queryFragment }
    }
  }

  /// Skips the first `count` rows.
  public func offset(_ count: Int) -> Self { with { $0.offset = count.queryFragment } }

  /// Drops duplicate rows.
  public func distinct(_ isDistinct: Bool = true) -> Self { with { $0.isDistinct = isDistinct } }

  /// The same clauses with other result columns.
  func selecting<NewOutput>(_ columns: [QueryFragment], decode: @escaping (inout SQLiteQueryDecoder) throws -> NewOutput) -> Select<From, NewOutput> {
    var clauses = clauses
    clauses.resultColumns = columns
    return Select<From, NewOutput>(clauses: clauses, fromColumns: fromColumns, decode: decode)
  }

  /// The same clauses with `columns` added to the result columns; each row
  /// decodes what it did, then the added values.
  func appending<NewOutput>(
    _ columns: [QueryFragment], decode added: @escaping (inout SQLiteQueryDecoder, Output) throws -> NewOutput
  ) -> Select<From, NewOutput> {
    var clauses = clauses
    clauses.resultColumns += columns
    let earlier = decode
    return Select<From, NewOutput>(clauses: clauses, fromColumns: fromColumns) { decoder in
      let previous = try earlier(&decoder)
      return try added(&decoder, previous)
    }
  }

  /// The number of rows: `count(*)`; after ``distinct(_:)``, of the
  /// distinct rows; after `group(by:)`, of the groups.
  public func count() -> Select<From, Int> {
    Select<From, Int>(clauses: clauses.counting, fromColumns: fromColumns) { decoder in try Int(decoder: &decoder) }
  }

  /// The number of rows that match `filter`: `count(*) FILTER (WHERE …)`,
  /// `Reminder.where { $0.score > 1 }.count { !$0.isCompleted }` (per
  /// group, after `group(by:)`).
  public func count(filter: (From.TableColumns) -> some QueryExpression<Bool>) -> Select<From, Int> {
    selecting([QueryFragment("count(*) FILTER (WHERE ") + filter(fromColumns).queryFragment + QueryFragment(")")]) { decoder in
      try Int(decoder: &decoder)
    }
  }

  /// The number of rows.
  public func fetchCount(_ db: Database) throws -> Int {
    try count().fetchOne(db) ?? 0
  }

  /// The conditions, for an UPDATE or DELETE of the selected rows.
  var conditions: [QueryFragment] { clauses.conditions }
}

/// A statement that yields rows: a select, a join, a compound select, a
/// query with common tables.
public protocol SelectStatement<QueryValue>: QueryStatement {}
