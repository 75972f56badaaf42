/// The assignments of an UPDATE (or of an upsert's DO UPDATE), written as
/// property assignments: `$0.title = "Milk"`, `$0.count += 1`,
/// `$0.isDone = !$0.isDone`.
@dynamicMemberLookup
public struct Updates<Base: Table> {
  private(set) var assignments: [(column: String, value: QueryFragment)] = []

  public subscript<V>(dynamicMember keyPath: KeyPath<Base.TableColumns, TableColumn<Base, V>>) -> any QueryExpression<V> {
    get {
      let column = Base.columns[keyPath: keyPath]
      if let assigned = assignments.last(where: { $0.column == column.name }) {
        return SQLQueryExpression<V>(assigned.value)
      }
      return column
    }
    set {
      let column = Base.columns[keyPath: keyPath]
      let fragment = newValue.queryFragment
      if let index = assignments.firstIndex(where: { $0.column == column.name }) {
        assignments[index].value = fragment
      } else {
        assignments.append((column.name, fragment))
      }
    }
  }

  /// Flips a Bool column: `$0.toggle(\.isDone)`.
  public mutating func toggle(_ keyPath: KeyPath<Base.TableColumns, TableColumn<Base, Bool>>) {
    let current = self[dynamicMember: keyPath]
    self[dynamicMember: keyPath] = !current
  }

  mutating func assign(_ column: String, _ fragment: QueryFragment) {
    assignments.append((column, fragment))
  }

  var setClause: QueryFragment {
    assignments.map { QueryFragment("\(quotedIdentifier($0.column)) = ") + $0.value }.joined(separator: ", ")
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
    var sql = QueryFragment("UPDATE \(quotedIdentifier(Base.tableName)) SET ") + updates.setClause
    if !conditions.isEmpty { sql.append(QueryFragment(" WHERE ") + conditions.joined(separator: " AND ")) }
    if let returning { sql.append(QueryFragment(" RETURNING ") + returning) }
    return sql
  }

  /// Returns one column of the updated rows: `.returning(\.title)`.
  public func returning<V>(_ column: KeyPath<Base.TableColumns, TableColumn<Base, V>>) -> Update<Base, V> {
    Update<Base, V>(updates: updates, conditions: conditions, returning: Base.columns[keyPath: column].queryFragment) { try $0.decode(V.self) }
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
    var sql = QueryFragment("DELETE FROM \(quotedIdentifier(Base.tableName))")
    if !conditions.isEmpty { sql.append(QueryFragment(" WHERE ") + conditions.joined(separator: " AND ")) }
    if let returning { sql.append(QueryFragment(" RETURNING ") + returning) }
    return sql
  }

  /// Returns one column of the deleted rows.
  public func returning<V>(_ column: KeyPath<Base.TableColumns, TableColumn<Base, V>>) -> Delete<Base, V> {
    Delete<Base, V>(conditions: conditions, returning: Base.columns[keyPath: column].queryFragment) { try $0.decode(V.self) }
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
