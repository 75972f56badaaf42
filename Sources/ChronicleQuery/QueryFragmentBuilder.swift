/// Collects the terms of a `where`, `having` or `order` closure written with
/// Swift's control flow:
///
/// ```swift
/// Reminder.where {
///   if !includeCompleted { !$0.isCompleted }
///   for word in words { $0.title.contains(word) }
/// }
/// Reminder.order {
///   if byTitle { $0.title } else { $0.dueDate.desc() }
/// }
/// ```
///
/// Conditions (`Clause == Bool`) are AND-ed; a branch that gives none adds
/// none, so a closure that gives no condition at all leaves the statement
/// unfiltered. Ordering terms (`Clause == Void`) are kept in order.
@resultBuilder
public enum QueryFragmentBuilder<Clause> {
  public static func buildBlock(_ components: [QueryFragment]...) -> [QueryFragment] {
    components.flatMap { $0 }
  }
  public static func buildOptional(_ component: [QueryFragment]?) -> [QueryFragment] { component ?? [] }
  public static func buildEither(first component: [QueryFragment]) -> [QueryFragment] { component }
  public static func buildEither(second component: [QueryFragment]) -> [QueryFragment] { component }
  public static func buildArray(_ components: [[QueryFragment]]) -> [QueryFragment] { components.flatMap { $0 } }
  public static func buildLimitedAvailability(_ component: [QueryFragment]) -> [QueryFragment] { component }
}

extension QueryFragmentBuilder<Bool> {
  public static func buildExpression(_ condition: some QueryExpression<Bool>) -> [QueryFragment] {
    [condition.queryFragment]
  }
  /// A nullable condition (a Bool column on the nullable side of an outer
  /// join): NULL filters the row out, as false does.
  public static func buildExpression(_ condition: some QueryExpression<Bool?>) -> [QueryFragment] {
    [condition.queryFragment]
  }
}

extension QueryFragmentBuilder<Void> {
  public static func buildExpression<each Term: QueryExpression>(_ terms: (repeat each Term)) -> [QueryFragment] {
    var fragments: [QueryFragment] = []
    for term in repeat each terms { fragments.append(term.queryFragment) }
    return fragments
  }
}
