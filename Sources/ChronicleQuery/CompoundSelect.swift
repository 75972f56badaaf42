/// Selects combined by `UNION`, `UNION ALL`, `INTERSECT` or `EXCEPT`:
/// `Reminder.select(\.title).union(RemindersList.select(\.title))`.
public struct CompoundSelect<Output>: SelectStatement, @unchecked Sendable {
  public typealias QueryValue = Output
  let parts: [QueryFragment]
  let decode: (inout SQLiteQueryDecoder) throws -> Output

  public var tableName: String? { nil }
  public var query: QueryFragment { parts.joined(separator: " ") }
  public func decodeRow(_ decoder: inout SQLiteQueryDecoder) throws -> Output { try decode(&decoder) }
}

/// An operator between selects.
enum CompoundOperator: String {
  case union = "UNION", unionAll = "UNION ALL", intersect = "INTERSECT", except = "EXCEPT"
}

extension SelectStatement {
  /// The rows of both, without duplicates; with `all`, every row of both.
  public func union(all: Bool = false, _ other: some SelectStatement<QueryValue>) -> CompoundSelect<QueryValue> {
    compound(all ? .unionAll : .union, other)
  }

  /// The rows in both.
  public func intersect(_ other: some SelectStatement<QueryValue>) -> CompoundSelect<QueryValue> {
    compound(.intersect, other)
  }

  /// The rows of this one that `other` does not have.
  public func except(_ other: some SelectStatement<QueryValue>) -> CompoundSelect<QueryValue> {
    compound(.except, other)
  }

  private func compound(_ operation: CompoundOperator, _ other: some SelectStatement<QueryValue>) -> CompoundSelect<QueryValue> {
    let left = (self as? CompoundSelect<QueryValue>).map(\.query) ?? compoundOperand
    return CompoundSelect(parts: [left, QueryFragment(sql: operation.rawValue), other.compoundOperand]) { decoder in
      try self.decodeRow(&decoder)
    }
  }

  /// The statement as an operand of a compound: a select with ORDER BY or
  /// LIMIT (which would apply to the whole compound) or a compound on the
  /// right becomes a subquery.
  var compoundOperand: QueryFragment {
    if let select = self as? any SelectClausesProvider, select.clauses.ordering.isEmpty, select.clauses.limit == nil, select.clauses.offset == nil {
      return query
    }
    if self is any ValuesStatement { return query }
    return QueryFragment("SELECT * FROM ") + parenthesized(query)
  }
}

/// The selects built from ``SelectClauses``.
protocol SelectClausesProvider {
  var clauses: SelectClauses { get set }
}

extension Select: SelectClausesProvider, _ClauseSelect {}

/// A select built from clauses (of one table or of joined ones), as
/// opposed to a compound or `VALUES`: what a chained static select can be
/// (`Tag.order(by: \.title).withReminders`), since this select's own clauses
/// go before its.
public protocol _ClauseSelect: SelectStatement {}

/// A `VALUES` statement, which a compound takes as it is.
protocol ValuesStatement {}

extension Values: ValuesStatement {}
