// Comparisons of an expression with a plain value of its type, the value's
// type read from the expression: what lets an implicit member name the
// value (`$0.priority == .high`, `$0.level.in([.low, .medium])`). Against
// `some QueryExpression<T>` alone Swift cannot look `.high` up (it tried
// Concurrency's `TaskPriority.high` and failed). The SQL is the expression
// forms'. Disfavored: where an expression form also applies it wins, so
// that `.now` stays SQLite's `now` (`$0.createdAt < .now`) rather than the
// client's `Date.now` bound as a value.

@_disfavoredOverload
public func == <T: QueryBindable>(lhs: some QueryExpressionSyntax<T>, rhs: T) -> SQLQueryExpression<Bool> {
  lhs == SQLQueryExpression<T>(rhs.queryFragment)
}
@_disfavoredOverload
public func != <T: QueryBindable>(lhs: some QueryExpressionSyntax<T>, rhs: T) -> SQLQueryExpression<Bool> {
  lhs != SQLQueryExpression<T>(rhs.queryFragment)
}
@_disfavoredOverload
public func == <T: QueryBindable>(lhs: some QueryExpressionSyntax<T?>, rhs: T) -> SQLQueryExpression<Bool> {
  lhs == SQLQueryExpression<T>(rhs.queryFragment)
}
@_disfavoredOverload
public func != <T: QueryBindable>(lhs: some QueryExpressionSyntax<T?>, rhs: T) -> SQLQueryExpression<Bool> {
  lhs != SQLQueryExpression<T>(rhs.queryFragment)
}
@_disfavoredOverload
public func < <T: QueryBindable>(lhs: some QueryExpressionSyntax<T>, rhs: T) -> SQLQueryExpression<Bool> {
  lhs < SQLQueryExpression<T>(rhs.queryFragment)
}
@_disfavoredOverload
public func <= <T: QueryBindable>(lhs: some QueryExpressionSyntax<T>, rhs: T) -> SQLQueryExpression<Bool> {
  lhs <= SQLQueryExpression<T>(rhs.queryFragment)
}
@_disfavoredOverload
public func > <T: QueryBindable>(lhs: some QueryExpressionSyntax<T>, rhs: T) -> SQLQueryExpression<Bool> {
  lhs > SQLQueryExpression<T>(rhs.queryFragment)
}
@_disfavoredOverload
public func >= <T: QueryBindable>(lhs: some QueryExpressionSyntax<T>, rhs: T) -> SQLQueryExpression<Bool> {
  lhs >= SQLQueryExpression<T>(rhs.queryFragment)
}
@_disfavoredOverload
public func < <T: QueryBindable>(lhs: some QueryExpressionSyntax<T?>, rhs: T) -> SQLQueryExpression<Bool> {
  lhs < SQLQueryExpression<T>(rhs.queryFragment)
}
@_disfavoredOverload
public func <= <T: QueryBindable>(lhs: some QueryExpressionSyntax<T?>, rhs: T) -> SQLQueryExpression<Bool> {
  lhs <= SQLQueryExpression<T>(rhs.queryFragment)
}
@_disfavoredOverload
public func > <T: QueryBindable>(lhs: some QueryExpressionSyntax<T?>, rhs: T) -> SQLQueryExpression<Bool> {
  lhs > SQLQueryExpression<T>(rhs.queryFragment)
}
@_disfavoredOverload
public func >= <T: QueryBindable>(lhs: some QueryExpressionSyntax<T?>, rhs: T) -> SQLQueryExpression<Bool> {
  lhs >= SQLQueryExpression<T>(rhs.queryFragment)
}

extension QueryExpression where QueryValue: QueryBindable {
  /// `self = value`: `$0.level.eq(.high)`.
  @_disfavoredOverload
  public func eq(_ value: QueryValue) -> SQLQueryExpression<Bool> { eq(SQLQueryExpression<QueryValue>(value.queryFragment)) }
  /// `self <> value`.
  @_disfavoredOverload
  public func neq(_ value: QueryValue) -> SQLQueryExpression<Bool> { neq(SQLQueryExpression<QueryValue>(value.queryFragment)) }
  /// `self IS value`: `$0.level.is(.high)`. (`is(nil)` is `IS NULL`.)
  @_disfavoredOverload
  public func `is`(_ value: QueryValue) -> SQLQueryExpression<Bool> { self.is(SQLQueryExpression<QueryValue>(value.queryFragment)) }
  /// `self IS NOT value`.
  @_disfavoredOverload
  public func isNot(_ value: QueryValue) -> SQLQueryExpression<Bool> { isNot(SQLQueryExpression<QueryValue>(value.queryFragment)) }
  /// `self IN (values...)`, the values an array literal: `$0.level.in([.low, .medium])`.
  @_disfavoredOverload
  public func `in`(_ values: [QueryValue]) -> SQLQueryExpression<Bool> { membership("IN", values, whenEmpty: "0") }
  /// `self NOT IN (values...)`, the values an array literal.
  @_disfavoredOverload
  public func notIn(_ values: [QueryValue]) -> SQLQueryExpression<Bool> { membership("NOT IN", values, whenEmpty: "1") }
}
