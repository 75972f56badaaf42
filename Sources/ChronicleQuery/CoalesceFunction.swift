/// `coalesce(…)`, the first of its arguments that is not NULL: what `??`
/// builds. A chain (`$0.dueDate ?? $0.createdAt ?? now`) stays one call.
public struct CoalesceFunction<QueryValue: QueryBindable>: QueryExpressionSyntax, Sendable {
  let arguments: [QueryFragment]

  public var queryFragment: QueryFragment {
    QueryFragment("coalesce(") + arguments.joined(separator: ", ") + QueryFragment(")")
  }
}

/// `coalesce(lhs, rhs)`: `$0.notes ?? ""` is never NULL.
public func ?? <T: QueryBindable>(lhs: some QueryExpressionSyntax<T?>, rhs: some QueryExpression<T>) -> CoalesceFunction<T> {
  CoalesceFunction(arguments: [lhs.queryFragment, rhs.queryFragment])
}

/// `coalesce(lhs, rhs)`, both optional: NULL when both are.
public func ?? <T: QueryBindable>(lhs: some QueryExpressionSyntax<T?>, rhs: some QueryExpression<T?>) -> CoalesceFunction<T?> {
  CoalesceFunction(arguments: [lhs.queryFragment, rhs.queryFragment])
}

/// `coalesce(lhs, …)`: `lhs` joins the call on its right.
public func ?? <T: QueryBindable>(lhs: some QueryExpressionSyntax<T?>, rhs: CoalesceFunction<T>) -> CoalesceFunction<T> {
  CoalesceFunction(arguments: [lhs.queryFragment] + rhs.arguments)
}

/// `coalesce(lhs, …)`, all optional.
public func ?? <T: QueryBindable>(lhs: some QueryExpressionSyntax<T?>, rhs: CoalesceFunction<T?>) -> CoalesceFunction<T?> {
  CoalesceFunction(arguments: [lhs.queryFragment] + rhs.arguments)
}

/// `coalesce(lhs, rhs)` of two expressions of one type (two optional
/// columns): without it, Swift's own `??` would take `lhs` as an optional
/// and return it, dropping `rhs`.
public func ?? <E: QueryExpressionSyntax>(lhs: E, rhs: E) -> CoalesceFunction<E.QueryValue> where E.QueryValue: _OptionalQueryValue & QueryBindable {
  CoalesceFunction(arguments: [lhs.queryFragment, rhs.queryFragment])
}

/// `coalesce((SELECT …), rhs)`: a scalar subquery that may find no row, with
/// a value for that case: `Reminder.select { $0.id.max() } ?? 0`.
public func ?? <From, T: QueryBindable>(lhs: Select<From, T?>, rhs: some QueryExpression<T>) -> CoalesceFunction<T> {
  CoalesceFunction(arguments: [lhs.queryFragment, rhs.queryFragment])
}

/// `coalesce((SELECT …), rhs)`, both optional.
public func ?? <From, T: QueryBindable>(lhs: Select<From, T?>, rhs: some QueryExpression<T?>) -> CoalesceFunction<T?> {
  CoalesceFunction(arguments: [lhs.queryFragment, rhs.queryFragment])
}
