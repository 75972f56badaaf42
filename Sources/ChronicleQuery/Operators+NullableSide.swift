// Logic, arithmetic and text predicates on optional values: the columns
// of an outer join's nullable side (`$1.isFlagged`, `$1.count`, `$1.title`),
// read as optionals.
// SQL's three-valued logic: NULL where a NULL side decides nothing
// (`NOT NULL`, `NULL AND 1`, `NULL LIKE 'a%'` are NULL, which a filter
// reads as false); `NULL AND 0` is 0 and `NULL OR 1` is 1.

public prefix func ! (operand: some QueryExpression<Bool?>) -> SQLQueryExpression<Bool?> {
  SQLQueryExpression(QueryFragment("NOT ") + parenthesized(operand.queryFragment))
}
public func && (lhs: some QueryExpression<Bool?>, rhs: some QueryExpression<Bool?>) -> SQLQueryExpression<Bool?> {
  binary(lhs.queryFragment, "AND", rhs.queryFragment)
}
public func && (lhs: some QueryExpression<Bool>, rhs: some QueryExpression<Bool?>) -> SQLQueryExpression<Bool?> {
  binary(lhs.queryFragment, "AND", rhs.queryFragment)
}
public func && (lhs: some QueryExpression<Bool?>, rhs: some QueryExpression<Bool>) -> SQLQueryExpression<Bool?> {
  binary(lhs.queryFragment, "AND", rhs.queryFragment)
}
public func || (lhs: some QueryExpression<Bool?>, rhs: some QueryExpression<Bool?>) -> SQLQueryExpression<Bool?> {
  binary(lhs.queryFragment, "OR", rhs.queryFragment)
}
public func || (lhs: some QueryExpression<Bool>, rhs: some QueryExpression<Bool?>) -> SQLQueryExpression<Bool?> {
  binary(lhs.queryFragment, "OR", rhs.queryFragment)
}
public func || (lhs: some QueryExpression<Bool?>, rhs: some QueryExpression<Bool>) -> SQLQueryExpression<Bool?> {
  binary(lhs.queryFragment, "OR", rhs.queryFragment)
}

public func + <T: QueryNumeric>(lhs: some QueryExpressionSyntax<T?>, rhs: some QueryExpression<T>) -> SQLQueryExpression<T?> {
  binary(lhs.queryFragment, "+", rhs.queryFragment)
}
public func - <T: QueryNumeric>(lhs: some QueryExpressionSyntax<T?>, rhs: some QueryExpression<T>) -> SQLQueryExpression<T?> {
  binary(lhs.queryFragment, "-", rhs.queryFragment)
}
public func * <T: QueryNumeric>(lhs: some QueryExpressionSyntax<T?>, rhs: some QueryExpression<T>) -> SQLQueryExpression<T?> {
  binary(lhs.queryFragment, "*", rhs.queryFragment)
}
public func / <T: QueryNumeric>(lhs: some QueryExpressionSyntax<T?>, rhs: some QueryExpression<T>) -> SQLQueryExpression<T?> {
  binary(lhs.queryFragment, "/", rhs.queryFragment)
}
public func % <T: QueryNumeric>(lhs: some QueryExpressionSyntax<T?>, rhs: some QueryExpression<T>) -> SQLQueryExpression<T?> {
  binary(lhs.queryFragment, "%", rhs.queryFragment)
}
public prefix func - <T: QueryNumeric>(operand: some QueryExpressionSyntax<T?>) -> SQLQueryExpression<T?> {
  unary("-", operand.queryFragment)
}

extension QueryExpression where QueryValue == String? {
  /// The text as the non-optional functions read it; NULL stays NULL.
  fileprivate var text: SQLQueryExpression<String> { SQLQueryExpression(queryFragment) }

  public func upper() -> SQLQueryExpression<String?> { SQLQueryExpression(text.upper().queryFragment) }
  public func lower() -> SQLQueryExpression<String?> { SQLQueryExpression(text.lower().queryFragment) }
  /// `length(self)`, in characters; NULL for NULL.
  public func length() -> SQLQueryExpression<Int?> { SQLQueryExpression(text.length().queryFragment) }
  /// `self LIKE pattern`; NULL for NULL.
  public func like(_ pattern: some QueryExpression<String>, escape: Character? = nil) -> SQLQueryExpression<Bool?> {
    SQLQueryExpression(text.like(pattern, escape: escape).queryFragment)
  }
  /// `self GLOB pattern`; NULL for NULL.
  public func glob(_ pattern: some QueryExpression<String>) -> SQLQueryExpression<Bool?> {
    SQLQueryExpression(text.glob(pattern).queryFragment)
  }
}

extension QueryExpressionSyntax where QueryValue == String? {
  /// Whether the text holds `substring` (LIKE, ASCII case-insensitive); NULL for NULL.
  public func contains(_ substring: some StringProtocol) -> SQLQueryExpression<Bool?> {
    SQLQueryExpression(text.contains(substring).queryFragment)
  }
  /// Whether the text starts with `prefix`; NULL for NULL.
  public func hasPrefix(_ prefix: some StringProtocol) -> SQLQueryExpression<Bool?> {
    SQLQueryExpression(text.hasPrefix(prefix).queryFragment)
  }
  /// Whether the text ends with `suffix`; NULL for NULL.
  public func hasSuffix(_ suffix: some StringProtocol) -> SQLQueryExpression<Bool?> {
    SQLQueryExpression(text.hasSuffix(suffix).queryFragment)
  }
}

extension QueryExpression where QueryValue: _OptionalQueryValue, QueryValue.Wrapped: QueryBindable {
  /// `self BETWEEN lower AND upper`, self optional; NULL for NULL.
  public func between(
    _ lower: some QueryExpression<QueryValue.Wrapped>, and upper: some QueryExpression<QueryValue.Wrapped>
  ) -> SQLQueryExpression<Bool?> {
    SQLQueryExpression(SQLQueryExpression<QueryValue.Wrapped>(queryFragment).between(lower, and: upper).queryFragment)
  }
}

extension ClosedRange where Bound: QueryBindable {
  /// Whether an optional value lies in the range, bounds included; NULL for
  /// NULL: `(1...3).contains($1.priority)` on an outer join's nullable side.
  public func contains(_ element: some QueryExpressionSyntax<Bound?>) -> SQLQueryExpression<Bool?> {
    element.between(lowerBound, and: upperBound)
  }
}
