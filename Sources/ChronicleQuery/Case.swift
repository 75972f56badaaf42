/// A CASE expression.
///
/// Simple, comparing one value: `Case($0.priority).when(1, then: "Low").when(2, then: "High").else("None")`.
/// Searched, testing conditions: `Case().when($0.price < 10, then: "Budget").else("Premium")`.
/// Without ``else(_:)`` its value is NULL when nothing matches (`Result?`).
public struct Case<Base, Result: QueryBindable>: QueryExpression, QueryExpressionSyntax, Sendable {
  public typealias QueryValue = Result?
  let base: QueryFragment?
  let cases: [QueryFragment]

  /// A simple CASE on `base`: each ``when(_:then:)`` compares a value to it.
  public init(_ base: some QueryExpression<Base>) {
    self.base = base.queryFragment
    self.cases = []
  }

  init(base: QueryFragment?, cases: [QueryFragment]) {
    self.base = base
    self.cases = cases
  }

  /// `WHEN value THEN result`.
  public func when(_ value: some QueryExpression<Base>, then result: some QueryExpression<Result>) -> Self {
    Case(base: base, cases: cases + [QueryFragment("WHEN ") + value.queryFragment + QueryFragment(" THEN ") + result.queryFragment])
  }

  /// `WHEN value THEN result`, for plain values: `.when(.incomplete, then: .completing)`.
  public func when(_ value: Base, then result: Result) -> Self where Base: QueryBindable {
    when(value, then: SQLQueryExpression<Result>(result.queryFragment))
  }

  /// `ELSE result END`: the value when nothing matches.
  public func `else`(_ result: some QueryExpression<Result>) -> SQLQueryExpression<Result> {
    SQLQueryExpression(body + QueryFragment(" ELSE ") + result.queryFragment + QueryFragment(" END"))
  }

  /// `ELSE result END`, for a plain value.
  public func `else`(_ result: Result) -> SQLQueryExpression<Result> {
    `else`(SQLQueryExpression<Result>(result.queryFragment))
  }

  public var queryFragment: QueryFragment { body + QueryFragment(" END") }

  private var body: QueryFragment {
    var fragment = QueryFragment("CASE")
    if let base { fragment.append(QueryFragment(" ") + base) }
    for when in cases { fragment.append(QueryFragment(" ") + when) }
    return fragment
  }
}

extension Case where Base == Bool {
  /// A searched CASE: each ``when(_:then:)`` tests a condition.
  public init() {
    self.base = nil
    self.cases = []
  }

  /// `WHEN condition THEN result`, for a plain result:
  /// `Case().when($0.notes == nil, then: "none")`. (Without it, Swift would
  /// read the condition as a plain Bool too, with its own `== nil`.)
  public func when(_ condition: some QueryExpression<Bool>, then result: Result) -> Self {
    when(condition, then: SQLQueryExpression<Result>(result.queryFragment))
  }
}
