/// An SQL expression whose value has the Swift type `QueryValue`.
public protocol QueryExpression<QueryValue> {
  associatedtype QueryValue
  /// The expression's SQL.
  var queryFragment: QueryFragment { get }
}

/// An expression written as SQL, typed by the caller.
public struct SQLQueryExpression<QueryValue>: QueryExpression, Sendable {
  public let queryFragment: QueryFragment

  public init(_ fragment: QueryFragment, as type: QueryValue.Type = QueryValue.self) {
    self.queryFragment = fragment
  }

  public init(_ expression: some QueryExpression<QueryValue>) {
    self.queryFragment = expression.queryFragment
  }
}

/// Wraps a fragment in parentheses unless it is a single term.
func parenthesized(_ fragment: QueryFragment) -> QueryFragment {
  QueryFragment("(") + fragment + QueryFragment(")")
}
