// Sign, bitwise, membership and existence operators, as SQLite has them.

func unary<V>(_ op: String, _ operand: QueryFragment) -> SQLQueryExpression<V> {
  SQLQueryExpression(QueryFragment(sql: op) + wrapped(operand))
}

// MARK: Sign

/// The negation of a number: `-$0.balance`.
public prefix func - <T: QueryNumeric>(operand: some QueryExpressionSyntax<T>) -> SQLQueryExpression<T> {
  unary("-", operand.queryFragment)
}
/// A number as it is: `+$0.balance`.
public prefix func + <T: QueryNumeric>(operand: some QueryExpressionSyntax<T>) -> SQLQueryExpression<T> {
  unary("+", operand.queryFragment)
}

// MARK: Bitwise (integers)

public func & <T: QueryNumeric & BinaryInteger>(lhs: some QueryExpressionSyntax<T>, rhs: some QueryExpression<T>) -> SQLQueryExpression<T> {
  binary(lhs.queryFragment, "&", rhs.queryFragment)
}
public func | <T: QueryNumeric & BinaryInteger>(lhs: some QueryExpressionSyntax<T>, rhs: some QueryExpression<T>) -> SQLQueryExpression<T> {
  binary(lhs.queryFragment, "|", rhs.queryFragment)
}
public func << <T: QueryNumeric & BinaryInteger>(lhs: some QueryExpressionSyntax<T>, rhs: some QueryExpression<T>) -> SQLQueryExpression<T> {
  binary(lhs.queryFragment, "<<", rhs.queryFragment)
}
public func >> <T: QueryNumeric & BinaryInteger>(lhs: some QueryExpressionSyntax<T>, rhs: some QueryExpression<T>) -> SQLQueryExpression<T> {
  binary(lhs.queryFragment, ">>", rhs.queryFragment)
}
/// The bits of an integer inverted: `~$0.flags`.
public prefix func ~ <T: QueryNumeric & BinaryInteger>(operand: some QueryExpressionSyntax<T>) -> SQLQueryExpression<T> {
  unary("~", operand.queryFragment)
}

// MARK: Membership written from the collection's side

extension Sequence where Element: QueryBindable {
  /// Whether the expression's value is one of these: `[1, 2].contains($0.id)`
  /// is `$0.id.in([1, 2])`.
  public func contains(_ element: some QueryExpressionSyntax<Element>) -> SQLQueryExpression<Bool> {
    element.in(self)
  }
}

extension ClosedRange where Bound: QueryBindable {
  /// Whether the expression's value lies in the range, bounds included:
  /// `(1...3).contains($0.priority)` is `BETWEEN 1 AND 3`.
  public func contains(_ element: some QueryExpressionSyntax<Bound>) -> SQLQueryExpression<Bool> {
    element.between(lowerBound, and: upperBound)
  }
}

extension Range where Bound: QueryBindable {
  /// Whether the expression's value lies in the half-open range:
  /// `(0..<10).contains($0.score)` is `score >= 0 AND score < 10`.
  public func contains(_ element: some QueryExpressionSyntax<Bound>) -> SQLQueryExpression<Bool> {
    let value = element.queryFragment
    let atLeast: SQLQueryExpression<Bool> = binary(value, ">=", lowerBound.queryFragment)
    let below: SQLQueryExpression<Bool> = binary(value, "<", upperBound.queryFragment)
    return binary(atLeast.queryFragment, "AND", below.queryFragment)
  }
}

extension SelectStatement where QueryValue: QueryBindable {
  /// Whether the subquery selects the expression's value:
  /// `Tag.select(\.title).contains($0.title)` is `title IN (SELECT …)`.
  public func contains(_ element: some QueryExpression<QueryValue>) -> SQLQueryExpression<Bool> {
    element.in(self)
  }
}

extension SelectStatement {
  /// Whether the subquery selects any row: `EXISTS (SELECT …)`.
  public func exists() -> SQLQueryExpression<Bool> {
    SQLQueryExpression(parenthesized(QueryFragment("EXISTS ") + parenthesized(query)))
  }
}

extension Table {
  /// Whether the table holds any row: `EXISTS (SELECT … FROM table)`.
  public static func exists() -> SQLQueryExpression<Bool> { all.exists() }
}
