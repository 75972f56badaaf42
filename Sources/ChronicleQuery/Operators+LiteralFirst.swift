// Operators with a Swift value on the left and a builder expression on the
// right: `1 + $0.count`, `"#" + $0.title`, `nil == $0.priority`, `3 < $0.id`.
// The right side must be a builder expression, so Swift's own operators on two
// plain values are never in competition.

// MARK: Equality

public func == <T: QueryBindable>(lhs: T, rhs: some QueryExpressionSyntax<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, T.self is any _OptionalQueryValue.Type ? "IS" : "=", rhs.queryFragment)
}
public func != <T: QueryBindable>(lhs: T, rhs: some QueryExpressionSyntax<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, T.self is any _OptionalQueryValue.Type ? "IS NOT" : "<>", rhs.queryFragment)
}
/// An optional value against a column that is never NULL: `nil as Int? == $0.id` is `NULL IS id`.
public func == <T: QueryBindable>(lhs: T?, rhs: some QueryExpressionSyntax<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "IS", rhs.queryFragment)
}
public func != <T: QueryBindable>(lhs: T?, rhs: some QueryExpressionSyntax<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "IS NOT", rhs.queryFragment)
}

// MARK: Ordering comparisons

public func < <T: QueryBindable>(lhs: T, rhs: some QueryExpressionSyntax<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "<", rhs.queryFragment)
}
public func <= <T: QueryBindable>(lhs: T, rhs: some QueryExpressionSyntax<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "<=", rhs.queryFragment)
}
public func > <T: QueryBindable>(lhs: T, rhs: some QueryExpressionSyntax<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, ">", rhs.queryFragment)
}
public func >= <T: QueryBindable>(lhs: T, rhs: some QueryExpressionSyntax<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, ">=", rhs.queryFragment)
}

// MARK: Logic

public func && (lhs: Bool, rhs: some QueryExpressionSyntax<Bool>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "AND", rhs.queryFragment)
}
public func || (lhs: Bool, rhs: some QueryExpressionSyntax<Bool>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "OR", rhs.queryFragment)
}

// MARK: Arithmetic and concatenation

public func + <T: QueryNumeric>(lhs: T, rhs: some QueryExpressionSyntax<T>) -> SQLQueryExpression<T> {
  binary(lhs.queryFragment, "+", rhs.queryFragment)
}
public func - <T: QueryNumeric>(lhs: T, rhs: some QueryExpressionSyntax<T>) -> SQLQueryExpression<T> {
  binary(lhs.queryFragment, "-", rhs.queryFragment)
}
public func * <T: QueryNumeric>(lhs: T, rhs: some QueryExpressionSyntax<T>) -> SQLQueryExpression<T> {
  binary(lhs.queryFragment, "*", rhs.queryFragment)
}
public func / <T: QueryNumeric>(lhs: T, rhs: some QueryExpressionSyntax<T>) -> SQLQueryExpression<T> {
  binary(lhs.queryFragment, "/", rhs.queryFragment)
}
/// The remainder: optional, as SQLite gives NULL for a zero divisor.
public func % <T: QueryNumeric>(lhs: T, rhs: some QueryExpressionSyntax<T>) -> SQLQueryExpression<T.Optionalized> {
  binary(lhs.queryFragment, "%", rhs.queryFragment)
}
/// String concatenation (`||`): `"#" + $0.title`.
public func + (lhs: String, rhs: some QueryExpressionSyntax<String>) -> SQLQueryExpression<String> {
  binary(lhs.queryFragment, "||", rhs.queryFragment)
}

// MARK: Bitwise (integers)

public func & <T: QueryNumeric & BinaryInteger>(lhs: T, rhs: some QueryExpressionSyntax<T>) -> SQLQueryExpression<T> {
  binary(lhs.queryFragment, "&", rhs.queryFragment)
}
public func | <T: QueryNumeric & BinaryInteger>(lhs: T, rhs: some QueryExpressionSyntax<T>) -> SQLQueryExpression<T> {
  binary(lhs.queryFragment, "|", rhs.queryFragment)
}
public func << <T: QueryNumeric & BinaryInteger>(lhs: T, rhs: some QueryExpressionSyntax<T>) -> SQLQueryExpression<T> {
  binary(lhs.queryFragment, "<<", rhs.queryFragment)
}
public func >> <T: QueryNumeric & BinaryInteger>(lhs: T, rhs: some QueryExpressionSyntax<T>) -> SQLQueryExpression<T> {
  binary(lhs.queryFragment, ">>", rhs.queryFragment)
}
