// Compound assignments of a column inside an update closure: `$0.count /= 2`,
// `$0.flags |= 4`. Each assigns the column an expression of its old value.

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
