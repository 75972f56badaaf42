// Compound assignments of a column inside an update closure: `$0.count /= 2`,
// `$0.flags |= 4`. Each assigns the column an expression of its old value.

private func binary<V>(_ lhs: QueryFragment, _ op: String, _ rhs: QueryFragment) -> SQLQueryExpression<V> {
  SQLQueryExpression(parenthesized(lhs + QueryFragment(sql: " \(op) ") + rhs))
}

public func /= <T: QueryNumeric>(lhs: inout any QueryExpression<T>, rhs: some QueryExpression<T>) {
  lhs = binary(lhs.queryFragment, "/", rhs.queryFragment) as SQLQueryExpression<T>
}
public func &= <T: QueryNumeric & BinaryInteger>(lhs: inout any QueryExpression<T>, rhs: some QueryExpression<T>) {
  lhs = binary(lhs.queryFragment, "&", rhs.queryFragment) as SQLQueryExpression<T>
}
public func |= <T: QueryNumeric & BinaryInteger>(lhs: inout any QueryExpression<T>, rhs: some QueryExpression<T>) {
  lhs = binary(lhs.queryFragment, "|", rhs.queryFragment) as SQLQueryExpression<T>
}
public func <<= <T: QueryNumeric & BinaryInteger>(lhs: inout any QueryExpression<T>, rhs: some QueryExpression<T>) {
  lhs = binary(lhs.queryFragment, "<<", rhs.queryFragment) as SQLQueryExpression<T>
}
public func >>= <T: QueryNumeric & BinaryInteger>(lhs: inout any QueryExpression<T>, rhs: some QueryExpression<T>) {
  lhs = binary(lhs.queryFragment, ">>", rhs.queryFragment) as SQLQueryExpression<T>
}
