/// A term of ORDER BY: an expression with its direction.
public struct OrderingTerm: QueryExpression, Sendable {
  public typealias QueryValue = Void
  public let queryFragment: QueryFragment
  /// The expression ordered by, without its direction.
  package let base: QueryFragment
}

/// Where NULLs sort.
public enum NullsOrder: Sendable {
  case first, last
}

extension QueryExpression {
  /// Ascending order, NULLs where SQLite puts them (first) unless said.
  public func asc(nulls: NullsOrder? = nil) -> OrderingTerm { term("ASC", nulls) }
  /// Descending order, NULLs where SQLite puts them (last) unless said.
  public func desc(nulls: NullsOrder? = nil) -> OrderingTerm { term("DESC", nulls) }

  private func term(_ direction: String, _ nulls: NullsOrder?) -> OrderingTerm {
    var fragment = queryFragment + QueryFragment(sql: " \(direction)")
    switch nulls {
    case .first: fragment.append(" NULLS FIRST")
    case .last: fragment.append(" NULLS LAST")
    case nil: break
    }
    return OrderingTerm(queryFragment: fragment, base: queryFragment)
  }
}
