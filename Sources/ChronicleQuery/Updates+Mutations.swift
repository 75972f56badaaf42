// Compound assignments of a column inside an update closure: `$0.count /= 2`,
// `$0.flags |= 4`. Each assigns the column an expression of its old value.

public func /= <T: QueryNumeric>(lhs: inout SQLQueryExpression<T>, rhs: some QueryExpression<T>) {
  lhs = binary(lhs.queryFragment, "/", rhs.queryFragment) as SQLQueryExpression<T>
}
public func &= <T: QueryNumeric & BinaryInteger>(lhs: inout SQLQueryExpression<T>, rhs: some QueryExpression<T>) {
  lhs = binary(lhs.queryFragment, "&", rhs.queryFragment) as SQLQueryExpression<T>
}
public func |= <T: QueryNumeric & BinaryInteger>(lhs: inout SQLQueryExpression<T>, rhs: some QueryExpression<T>) {
  lhs = binary(lhs.queryFragment, "|", rhs.queryFragment) as SQLQueryExpression<T>
}
public func <<= <T: QueryNumeric & BinaryInteger>(lhs: inout SQLQueryExpression<T>, rhs: some QueryExpression<T>) {
  lhs = binary(lhs.queryFragment, "<<", rhs.queryFragment) as SQLQueryExpression<T>
}
public func >>= <T: QueryNumeric & BinaryInteger>(lhs: inout SQLQueryExpression<T>, rhs: some QueryExpression<T>) {
  lhs = binary(lhs.queryFragment, ">>", rhs.queryFragment) as SQLQueryExpression<T>
}

extension SQLQueryExpression<Bool> {
  /// Negates the expression in place: `$0.isCompleted.toggle()` in an
  /// update assigns `NOT "isCompleted"`.
  public mutating func toggle() {
    self = !self
  }
}

extension SQLQueryExpression<String> {
  /// Appends text in place: `$0.title.append("!")` in an update assigns
  /// `"title" || '!'`.
  public mutating func append(_ other: some QueryExpression<String>) {
    self = SQLQueryExpression(binary(queryFragment, "||", other.queryFragment) as SQLQueryExpression<String>)
  }

  /// Appends text in place; the same as ``append(_:)``.
  public mutating func append(contentsOf other: some QueryExpression<String>) {
    append(other)
  }
}

extension SQLQueryExpression where QueryValue: QueryNumeric {
  /// Negates a number in place: `$0.balance.negate()` assigns `-"balance"`.
  public mutating func negate() {
    self = SQLQueryExpression(-self)
  }
}
