// Column groups and whole rows on an outer join's nullable side compared
// with a value, as on the other side: `$1.status == Status()`,
// `$1.status.lt(status)`, `$1.eq(product)`. Where the join found no row
// every column is NULL: `=`, `<>`, `<`… read NULL (the row is filtered out),
// `IS`/`IS NOT` read false/true.

extension NullableColumns {
  /// Every column of the group equals `value`'s; NULL where the join found no row.
  public func eq<Root, Group: Selection>(_ value: Group) -> SQLQueryExpression<Bool?> where Base == TableColumn<Root, Group> {
    rowComparison(queryFragment, "=", base.values(of: value))
  }
  /// Some column of the group differs from `value`'s; NULL where the join found no row.
  public func neq<Root, Group: Selection>(_ value: Group) -> SQLQueryExpression<Bool?> where Base == TableColumn<Root, Group> {
    rowComparison(queryFragment, "<>", base.values(of: value))
  }
  /// Equal, a NULL column equal to NULL: false where the join found no row.
  public func `is`<Root, Group: Selection>(_ value: Group) -> SQLQueryExpression<Bool> where Base == TableColumn<Root, Group> {
    rowComparison(queryFragment, "IS", base.values(of: value))
  }
  /// Different, a NULL column different from a value: true where the join found no row.
  public func isNot<Root, Group: Selection>(_ value: Group) -> SQLQueryExpression<Bool> where Base == TableColumn<Root, Group> {
    rowComparison(queryFragment, "IS NOT", base.values(of: value))
  }
  /// Before `value`, column by column; NULL where the join found no row.
  public func lt<Root, Group: Selection>(_ value: Group) -> SQLQueryExpression<Bool?> where Base == TableColumn<Root, Group> {
    rowComparison(queryFragment, "<", base.values(of: value))
  }
  public func lte<Root, Group: Selection>(_ value: Group) -> SQLQueryExpression<Bool?> where Base == TableColumn<Root, Group> {
    rowComparison(queryFragment, "<=", base.values(of: value))
  }
  public func gt<Root, Group: Selection>(_ value: Group) -> SQLQueryExpression<Bool?> where Base == TableColumn<Root, Group> {
    rowComparison(queryFragment, ">", base.values(of: value))
  }
  public func gte<Root, Group: Selection>(_ value: Group) -> SQLQueryExpression<Bool?> where Base == TableColumn<Root, Group> {
    rowComparison(queryFragment, ">=", base.values(of: value))
  }

  /// Every column of the group equals the other group's (`Status.Columns(…)`,
  /// another table's); NULL where the join found no row.
  public func eq<Root, Group: Selection>(_ other: some QueryExpression<Group>) -> SQLQueryExpression<Bool?> where Base == TableColumn<Root, Group> {
    rowComparison(queryFragment, "=", other.queryFragment)
  }
  public func neq<Root, Group: Selection>(_ other: some QueryExpression<Group>) -> SQLQueryExpression<Bool?> where Base == TableColumn<Root, Group> {
    rowComparison(queryFragment, "<>", other.queryFragment)
  }

  /// `$1.status == Status()`: ``is(_:)``, as on the other side.
  public static func == <Root, Group: Selection>(lhs: Self, rhs: Group) -> SQLQueryExpression<Bool> where Base == TableColumn<Root, Group> {
    lhs.is(rhs)
  }
  public static func != <Root, Group: Selection>(lhs: Self, rhs: Group) -> SQLQueryExpression<Bool> where Base == TableColumn<Root, Group> {
    lhs.isNot(rhs)
  }
  public static func < <Root, Group: Selection>(lhs: Self, rhs: Group) -> SQLQueryExpression<Bool?> where Base == TableColumn<Root, Group> {
    lhs.lt(rhs)
  }
  public static func <= <Root, Group: Selection>(lhs: Self, rhs: Group) -> SQLQueryExpression<Bool?> where Base == TableColumn<Root, Group> {
    lhs.lte(rhs)
  }
  public static func > <Root, Group: Selection>(lhs: Self, rhs: Group) -> SQLQueryExpression<Bool?> where Base == TableColumn<Root, Group> {
    lhs.gt(rhs)
  }
  public static func >= <Root, Group: Selection>(lhs: Self, rhs: Group) -> SQLQueryExpression<Bool?> where Base == TableColumn<Root, Group> {
    lhs.gte(rhs)
  }
}

extension NullableColumns where Base: TableDefinition {
  /// Every column of the row equals `row`'s; NULL where the join found no row.
  public func eq(_ row: Base.QueryValue) -> SQLQueryExpression<Bool?> { rowComparison(queryFragment, "=", base.values(of: row)) }
  /// Some column of the row differs from `row`'s; NULL where the join found no row.
  public func neq(_ row: Base.QueryValue) -> SQLQueryExpression<Bool?> { rowComparison(queryFragment, "<>", base.values(of: row)) }
  /// Equal, a NULL column equal to NULL: false where the join found no row.
  public func `is`(_ row: Base.QueryValue) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, "IS", base.values(of: row)) }
  /// Different, a NULL column different from a value: true where the join found no row.
  public func isNot(_ row: Base.QueryValue) -> SQLQueryExpression<Bool> { rowComparison(queryFragment, "IS NOT", base.values(of: row)) }
  /// Before `row`, column by column; NULL where the join found no row.
  public func lt(_ row: Base.QueryValue) -> SQLQueryExpression<Bool?> { rowComparison(queryFragment, "<", base.values(of: row)) }
  public func lte(_ row: Base.QueryValue) -> SQLQueryExpression<Bool?> { rowComparison(queryFragment, "<=", base.values(of: row)) }
  public func gt(_ row: Base.QueryValue) -> SQLQueryExpression<Bool?> { rowComparison(queryFragment, ">", base.values(of: row)) }
  public func gte(_ row: Base.QueryValue) -> SQLQueryExpression<Bool?> { rowComparison(queryFragment, ">=", base.values(of: row)) }

  public static func == (lhs: Self, rhs: Base.QueryValue) -> SQLQueryExpression<Bool> { lhs.is(rhs) }
  public static func != (lhs: Self, rhs: Base.QueryValue) -> SQLQueryExpression<Bool> { lhs.isNot(rhs) }
  public static func < (lhs: Self, rhs: Base.QueryValue) -> SQLQueryExpression<Bool?> { lhs.lt(rhs) }
  public static func <= (lhs: Self, rhs: Base.QueryValue) -> SQLQueryExpression<Bool?> { lhs.lte(rhs) }
  public static func > (lhs: Self, rhs: Base.QueryValue) -> SQLQueryExpression<Bool?> { lhs.gt(rhs) }
  public static func >= (lhs: Self, rhs: Base.QueryValue) -> SQLQueryExpression<Bool?> { lhs.gte(rhs) }
}
