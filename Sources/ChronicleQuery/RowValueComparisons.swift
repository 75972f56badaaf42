// Whole rows and column groups compared as SQLite's row values:
// `$0.timestamps <= Timestamps(…)` is `("createdAt", "updatedAt") <= (?, ?)`,
// `$0.eq(tag)` compares every column of the row. Row values compare column
// by column, left to right, as tuples do in Swift.

/// `(lhs) op (rhs)`, each side a comma-separated list.
func rowComparison<V>(_ lhs: QueryFragment, _ op: String, _ rhs: QueryFragment) -> SQLQueryExpression<V> {
  binary(parenthesized(lhs), op, parenthesized(rhs))
}

extension TableColumn where Value: Selection {
  /// The group's values in `value`, bound in column order.
  func values(of value: Value) -> QueryFragment {
    var values: [(column: String, value: QueryBinding)] = []
    Value.appendColumns(named: name, of: value, to: &values)
    return boundRow(values)
  }

  /// Every column of the group equals `value`'s.
  public func eq(_ value: Value) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, "=", values(of: value)) }
  /// Some column of the group differs from `value`'s.
  public func neq(_ value: Value) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, "<>", values(of: value)) }
  /// Equal, a NULL column equal to NULL.
  public func `is`(_ value: Value) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, "IS", values(of: value)) }
  /// Different, a NULL column different from a value.
  public func isNot(_ value: Value) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, "IS NOT", values(of: value)) }
  /// Before `value`, comparing column by column.
  public func lt(_ value: Value) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, "<", values(of: value)) }
  public func lte(_ value: Value) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, "<=", values(of: value)) }
  public func gt(_ value: Value) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, ">", values(of: value)) }
  public func gte(_ value: Value) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, ">=", values(of: value)) }

  /// Every column of the group equals the other group's (another table's, or `Value.Columns(…)`).
  public func eq(_ other: some QueryExpression<Value>) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, "=", other.queryFragment) }
  public func neq(_ other: some QueryExpression<Value>) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, "<>", other.queryFragment) }
  public func lt(_ other: some QueryExpression<Value>) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, "<", other.queryFragment) }
  public func lte(_ other: some QueryExpression<Value>) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, "<=", other.queryFragment) }
  public func gt(_ other: some QueryExpression<Value>) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, ">", other.queryFragment) }
  public func gte(_ other: some QueryExpression<Value>) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, ">=", other.queryFragment) }

  public static func == (lhs: Self, rhs: Value) -> SQLQueryExpression<Bool> { lhs.is(rhs) }
  public static func != (lhs: Self, rhs: Value) -> SQLQueryExpression<Bool> { lhs.isNot(rhs) }
  public static func < (lhs: Self, rhs: Value) -> SQLQueryExpression<Bool> { lhs.lt(rhs) }
  public static func <= (lhs: Self, rhs: Value) -> SQLQueryExpression<Bool> { lhs.lte(rhs) }
  public static func > (lhs: Self, rhs: Value) -> SQLQueryExpression<Bool> { lhs.gt(rhs) }
  public static func >= (lhs: Self, rhs: Value) -> SQLQueryExpression<Bool> { lhs.gte(rhs) }
}

extension TableDefinition {
  /// Every column of `row`, bound in column order (generated columns too).
  func values(of row: QueryValue) -> QueryFragment {
    var values: [(column: String, value: QueryBinding)] = []
    for column in Self.allColumns { column.appendValues(of: row, to: &values) }
    return boundRow(values)
  }

  /// Every column of the row equals `row`'s: `Tag.where { $0.eq(tag) }`.
  public func eq(_ row: QueryValue) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, "=", values(of: row)) }
  /// Some column of the row differs from `row`'s.
  public func neq(_ row: QueryValue) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, "<>", values(of: row)) }
  /// Equal, a NULL column equal to NULL.
  public func `is`(_ row: QueryValue) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, "IS", values(of: row)) }
  /// Different, a NULL column different from a value.
  public func isNot(_ row: QueryValue) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, "IS NOT", values(of: row)) }

  /// Before `row`, comparing column by column: `Tag.where { $0.lt(tag) }`.
  public func lt(_ row: QueryValue) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, "<", values(of: row)) }
  public func lte(_ row: QueryValue) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, "<=", values(of: row)) }
  public func gt(_ row: QueryValue) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, ">", values(of: row)) }
  public func gte(_ row: QueryValue) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, ">=", values(of: row)) }

  public static func == (lhs: Self, rhs: QueryValue) -> SQLQueryExpression<Bool> { lhs.is(rhs) }
  public static func != (lhs: Self, rhs: QueryValue) -> SQLQueryExpression<Bool> { lhs.isNot(rhs) }
  public static func < (lhs: Self, rhs: QueryValue) -> SQLQueryExpression<Bool> { lhs.lt(rhs) }
  public static func <= (lhs: Self, rhs: QueryValue) -> SQLQueryExpression<Bool> { lhs.lte(rhs) }
  /// After `rhs`, column by column: `Tag.where { $0 > tag }` is `("title", "uses") > (?, ?)`.
  public static func > (lhs: Self, rhs: QueryValue) -> SQLQueryExpression<Bool> { lhs.gt(rhs) }
  public static func >= (lhs: Self, rhs: QueryValue) -> SQLQueryExpression<Bool> { lhs.gte(rhs) }
}
