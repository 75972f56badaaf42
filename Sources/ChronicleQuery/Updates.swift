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
  /// or the column. Assign an expression: `$0.title = $0.title.upper()`.
  public subscript<V>(dynamicMember keyPath: KeyPath<Base.TableColumns, TableColumn<Base, V>>) -> any QueryExpression<V> {
    get { current(keyPath) }
    set { assign(keyPath, newValue.queryFragment) }
  }

  private func current<V>(_ keyPath: KeyPath<Base.TableColumns, TableColumn<Base, V>>) -> any QueryExpression<V> {
    let column = Base.columns[keyPath: keyPath]
    let target = Self.target(column)
    if let assigned = assignments.last(where: { $0.target == target }) {
      return SQLQueryExpression<V>(assigned.value)
    }
    return column
  }

  mutating func assign<V>(_ keyPath: KeyPath<Base.TableColumns, TableColumn<Base, V>>, _ value: QueryFragment) {
    let target = Self.target(Base.columns[keyPath: keyPath])
    let fragment = target.hasPrefix("(") ? wrapped(value) : value
    if let index = assignments.firstIndex(where: { $0.target == target }) {
      assignments[index].value = fragment
    } else {
      assignments.append((target, fragment))
    }
  }

  /// Flips a Bool column: `$0.toggle(\.isDone)`.
  public mutating func toggle(_ keyPath: KeyPath<Base.TableColumns, TableColumn<Base, Bool>>) {
    assign(keyPath, (!current(keyPath)).queryFragment)
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
  let decode: (inout QueryDecoder) throws -> Output

  init(updates: Updates<Base>, conditions: [QueryFragment], returning: QueryFragment?, decode: @escaping (inout QueryDecoder) throws -> Output) {
    self.updates = updates
    self.conditions = conditions
    self.returning = returning
    self.decode = decode
  }

  public var tableName: String? { Base.tableName }
  public func decodeRow(_ decoder: inout QueryDecoder) throws -> Output { try decode(&decoder) }

  public var query: QueryFragment {
    guard !updates.assignments.isEmpty else { return QueryFragment("SELECT NULL WHERE 0") }
    var sql = QueryFragment(sql: "UPDATE \(quotedIdentifier(Base.tableName)) SET ") + updates.setClause
    if !conditions.isEmpty { sql.append(QueryFragment(" WHERE ") + conjunction(conditions)) }
    if let returning { sql.append(QueryFragment(" RETURNING ") + returning) }
    return sql
  }

  /// The same update, returning `columns` of each updated row.
  func returning<NewOutput>(_ columns: [QueryFragment], decode: @escaping (inout QueryDecoder) throws -> NewOutput) -> Update<Base, NewOutput> {
    Update<Base, NewOutput>(updates: updates, conditions: conditions, returning: columns.joined(separator: ", "), decode: decode)
  }
}

/// A DELETE: `Item.where { $0.count == 0 }.delete()`.
public struct Delete<Base: Table, Output>: QueryStatement, @unchecked Sendable {
  public typealias QueryValue = Output
  var conditions: [QueryFragment]
  var returning: QueryFragment?
  let decode: (inout QueryDecoder) throws -> Output

  init(conditions: [QueryFragment], returning: QueryFragment?, decode: @escaping (inout QueryDecoder) throws -> Output) {
    self.conditions = conditions
    self.returning = returning
    self.decode = decode
  }

  public var tableName: String? { Base.tableName }
  public func decodeRow(_ decoder: inout QueryDecoder) throws -> Output { try decode(&decoder) }

  public var query: QueryFragment {
    var sql = QueryFragment(sql: "DELETE FROM \(quotedIdentifier(Base.tableName))")
    if !conditions.isEmpty { sql.append(QueryFragment(" WHERE ") + conjunction(conditions)) }
    if let returning { sql.append(QueryFragment(" RETURNING ") + returning) }
    return sql
  }

  /// The same delete, returning `columns` of each deleted row.
  func returning<NewOutput>(_ columns: [QueryFragment], decode: @escaping (inout QueryDecoder) throws -> NewOutput) -> Delete<Base, NewOutput> {
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
