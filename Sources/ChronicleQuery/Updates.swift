/// The assignments of an UPDATE (or of an upsert's DO UPDATE), written as
/// property assignments: `$0.title = "Milk"`, `$0.count += 1`,
/// `$0.isDone = !$0.isDone`.
@dynamicMemberLookup
public struct Updates<Base: Table> {
  /// Each assignment's target (a quoted column, or a column group's
  /// parenthesized columns) and value.
  private(set) var assignments: [(target: String, value: QueryFragment)] = []

  private static func target(_ column: TableColumn<Base, some QueryRepresentable>) -> String {
    let names = column.names.map(quotedIdentifier)
    return names.count == 1 ? names[0] : "(" + names.joined(separator: ", ") + ")"
  }

  /// A column's value in the update: what this update assigned it so far,
  /// or the column. Assign an expression (`$0.title = $0.title.upper()`,
  /// `$0.count = $0.count / 4`) or change it in place
  /// (`$0.isCompleted.toggle()`, `$0.title.append("!")`, `$0.count += 1`).
  ///
  /// The value is a concrete ``SQLQueryExpression``, not an existential:
  /// passed to a generic function (`Case($0.priority)`, a
  /// `@DatabaseFunction`), an existential would compete with the plain
  /// value subscript below and Swift would find the read ambiguous.
  public subscript<V>(dynamicMember keyPath: KeyPath<Base.TableColumns, TableColumn<Base, V>>) -> SQLQueryExpression<V> {
    get { SQLQueryExpression(current(keyPath).queryFragment) }
    set { assign(keyPath, newValue.queryFragment) }
  }

  /// The same column assigned a column of this table or another:
  /// `$0.title = excluded.title` in an upsert, `$0.title = new.title` in a
  /// trigger on another table. Write-only: reads are the concrete subscript
  /// above. An expression of another type is assigned as
  /// `SQLQueryExpression(expression)`: a subscript taking any expression
  /// would make every literal assignment (`$0.title = "Milk"`) ambiguous.
  @_disfavoredOverload
  public subscript<V, Other: Table>(dynamicMember keyPath: KeyPath<Base.TableColumns, TableColumn<Base, V>>) -> TableColumn<Other, V> {
    @available(*, unavailable, message: "read a column in an update as an expression: '$0.column'")
    get { fatalError("unavailable") }
    set { assign(keyPath, newValue.queryFragment) }
  }

  /// The same column assigned a scalar subquery, of one table or of joined
  /// ones: `$0.position = RemindersList.select { ($0.position.max() ?? -1) + 1 }`.
  /// Write-only.
  @_disfavoredOverload
  public subscript<V, Subquery: SelectStatement>(dynamicMember keyPath: KeyPath<Base.TableColumns, TableColumn<Base, V>>) -> Subquery
  where Subquery.QueryValue == V {
    @available(*, unavailable, message: "read a column in an update as an expression: '$0.column'")
    get { fatalError("unavailable") }
    set { assign(keyPath, parenthesized(newValue.query)) }
  }

  /// An optional column assigned a CASE without `else`, NULL where no
  /// `when` matches: `$0.dueDate = Case().when($0.priority != nil, then: date)`.
  /// Write-only.
  @_disfavoredOverload
  public subscript<Result: QueryBindable, CaseBase>(dynamicMember keyPath: KeyPath<Base.TableColumns, TableColumn<Base, Result?>>) -> Case<CaseBase, Result> {
    @available(*, unavailable, message: "read a column in an update as an expression: '$0.column'")
    get { fatalError("unavailable") }
    set { assign(keyPath, newValue.queryFragment) }
  }

  /// A column group assigned the expressions of each of its columns:
  /// `$0.timestamps = Timestamps.Columns(createdAt: …, updatedAt: …)`.
  /// Write-only.
  @_disfavoredOverload
  public subscript<V: Selection>(dynamicMember keyPath: KeyPath<Base.TableColumns, TableColumn<Base, V>>) -> V.Columns {
    @available(*, unavailable, message: "read a column in an update as an expression: '$0.column'")
    get { fatalError("unavailable") }
    set { assign(keyPath, newValue.queryFragment) }
  }

  /// The same column assigned a Swift value of the model's type, bound as
  /// the column stores it: `$0.priority = .high`, `$0.notes = "Oat"` (an
  /// optional column given a value), `$0.dueDate = Date()`. Write-only.
  ///
  /// The value is implicitly unwrapped so that reading it would need a
  /// forced unwrap: Swift then ranks a read through here (`$0.count += 1`
  /// with the standard library's `Int.+=`, `!$0.isDone` with `Bool`'s `!`)
  /// below the expression subscript above instead of settling on it
  /// before trying the query builder's generic operators. The cost: `nil`
  /// assigned to a column that is not optional compiles, binds NULL, and
  /// SQLite refuses the statement ("NOT NULL constraint failed").
  @_disfavoredOverload
  public subscript<V>(dynamicMember keyPath: KeyPath<Base.TableColumns, TableColumn<Base, V>>) -> V.QueryOutput! {
    @available(*, unavailable, message: "read a column in an update as an expression: '$0.column'")
    get { fatalError("unavailable") }
    set { assign(Base.columns[keyPath: keyPath], value: newValue) }
  }

  /// Assigns a Swift value as the column stores it, NULL for nil; a
  /// group's columns each on their own (`"isOutOfStock" = 1,
  /// "isOnBackOrder" = 0`), as upstream writes them.
  mutating func assign<V>(_ column: TableColumn<Base, V>, value: V.QueryOutput?) {
    var bound: [QueryFragment]
    if let value {
      var values: [(column: String, value: QueryBinding)] = []
      V.appendColumns(named: "", of: value, to: &values)
      bound = values.map { QueryFragment(binding: $0.value) }
    } else {
      bound = Array(repeating: QueryFragment(sql: "NULL"), count: column.names.count)
    }
    for (name, fragment) in zip(column.names, bound) {
      assign(target: quotedIdentifier(name), fragment)
    }
  }

  /// A column group's own columns, each assigned as a column is:
  /// `$0.status.isOutOfStock = true`, `$0.timestamps.updatedAt = Date()`,
  /// `$0.status.isOnBackOrder = !$0.status.isOutOfStock`. Assign the whole
  /// group with a value of its type or its `Columns(…)`.
  public subscript<V: Selection>(dynamicMember keyPath: KeyPath<Base.TableColumns, TableColumn<Base, V>>) -> ColumnGroupUpdates<Base, V> {
    get { ColumnGroupUpdates(updates: self, group: Base.columns[keyPath: keyPath]) }
    set { self = newValue.updates }
  }

  private func current<V>(_ keyPath: KeyPath<Base.TableColumns, TableColumn<Base, V>>) -> any QueryExpression<V> {
    current(Base.columns[keyPath: keyPath])
  }

  /// What this update assigned `column` so far, or the column.
  func current<V>(_ column: TableColumn<Base, V>) -> any QueryExpression<V> {
    let target = Self.target(column)
    if let assigned = assignments.last(where: { $0.target == target }) {
      return SQLQueryExpression<V>(assigned.value)
    }
    return column
  }

  mutating func assign<V>(_ keyPath: KeyPath<Base.TableColumns, TableColumn<Base, V>>, _ value: QueryFragment) {
    assign(Base.columns[keyPath: keyPath], value)
  }

  mutating func assign<V>(_ column: TableColumn<Base, V>, _ value: QueryFragment) {
    let target = Self.target(column)
    assign(target: target, target.hasPrefix("(") ? wrapped(value) : value)
  }

  /// Sets `target` (a quoted column, or a group's parenthesized columns)
  /// to `fragment`, in place of what this update assigned it before.
  private mutating func assign(target: String, _ fragment: QueryFragment) {
    if let index = assignments.firstIndex(where: { $0.target == target }) {
      assignments[index].value = fragment
    } else {
      assignments.append((target, fragment))
    }
  }

  /// Flips a Bool column: `$0.toggle(\.isDone)`.
  public mutating func toggle(_ keyPath: KeyPath<Base.TableColumns, TableColumn<Base, Bool>>) {
    assign(keyPath, (!SQLQueryExpression<Bool>(current(keyPath).queryFragment)).queryFragment)
  }

  mutating func assign(_ column: String, _ fragment: QueryFragment) {
    assignments.append((quotedIdentifier(column), fragment))
  }

  var setClause: QueryFragment {
    assignments.map { QueryFragment(sql: "\($0.target) = ") + $0.value }.joined(separator: ", ")
  }
}

/// An UPDATE: `Item.find(id).update { $0.title = "Milk" }`.
public struct Update<Base: Table, Output>: QueryStatement, @unchecked Sendable {
  public typealias QueryValue = Output
  var updates: Updates<Base>
  var conditions: [QueryFragment]
  var returning: QueryFragment?
  let decode: (inout SQLiteQueryDecoder) throws -> Output

  init(updates: Updates<Base>, conditions: [QueryFragment], returning: QueryFragment?, decode: @escaping (inout SQLiteQueryDecoder) throws -> Output) {
    self.updates = updates
    self.conditions = conditions
    self.returning = returning
    self.decode = decode
  }

  public var tableName: String? { Base.tableName }
  public func decodeRow(_ decoder: inout SQLiteQueryDecoder) throws -> Output { try decode(&decoder) }

  public var query: QueryFragment {
    guard !updates.assignments.isEmpty else { return QueryFragment("SELECT NULL WHERE 0") }
    var sql = QueryFragment(sql: "UPDATE \(Base.qualifiedSource) SET ") + updates.setClause
    if !conditions.isEmpty { sql.append(QueryFragment(" WHERE ") + conjunction(conditions)) }
    if let returning { sql.append(QueryFragment(" RETURNING ") + returning) }
    return sql
  }

  /// The same update, returning `columns` of each updated row.
  func returning<NewOutput>(_ columns: [QueryFragment], decode: @escaping (inout SQLiteQueryDecoder) throws -> NewOutput) -> Update<Base, NewOutput> {
    Update<Base, NewOutput>(updates: updates, conditions: conditions, returning: columns.joined(separator: ", "), decode: decode)
  }
}

/// A DELETE: `Item.where { $0.count == 0 }.delete()`.
public struct Delete<Base: Table, Output>: QueryStatement, @unchecked Sendable {
  public typealias QueryValue = Output
  var conditions: [QueryFragment]
  var returning: QueryFragment?
  let decode: (inout SQLiteQueryDecoder) throws -> Output

  init(conditions: [QueryFragment], returning: QueryFragment?, decode: @escaping (inout SQLiteQueryDecoder) throws -> Output) {
    self.conditions = conditions
    self.returning = returning
    self.decode = decode
  }

  public var tableName: String? { Base.tableName }
  public func decodeRow(_ decoder: inout SQLiteQueryDecoder) throws -> Output { try decode(&decoder) }

  public var query: QueryFragment {
    var sql = QueryFragment(sql: "DELETE FROM \(Base.qualifiedSource)")
    if !conditions.isEmpty { sql.append(QueryFragment(" WHERE ") + conjunction(conditions)) }
    if let returning { sql.append(QueryFragment(" RETURNING ") + returning) }
    return sql
  }

  /// The same delete, returning `columns` of each deleted row.
  func returning<NewOutput>(_ columns: [QueryFragment], decode: @escaping (inout SQLiteQueryDecoder) throws -> NewOutput) -> Delete<Base, NewOutput> {
    Delete<Base, NewOutput>(conditions: conditions, returning: columns.joined(separator: ", "), decode: decode)
  }
}

extension Select where Output == From {
  /// Updates the selected rows.
  public func update(set updates: (inout Updates<From>) -> Void) -> Update<From, Void> {
    var assignments = Updates<From>()
    updates(&assignments)
    return Update(updates: assignments, conditions: conditions, returning: nil) { _ in }
  }

  /// Deletes the selected rows.
  public func delete() -> Delete<From, Void> {
    Delete(conditions: conditions, returning: nil) { _ in }
  }
}
