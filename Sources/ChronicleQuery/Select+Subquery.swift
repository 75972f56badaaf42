extension Select: QueryExpression {
  /// The select as a scalar subquery, `(SELECT …)`: its first row's value,
  /// or NULL when it has none. Use one that selects a single column:
  ///
  /// ```swift
  /// RemindersList.find(id).update {
  ///   $0.position = RemindersList.select { ($0.position.max() ?? -1) + 1 }
  /// }
  /// ```
  public var queryFragment: QueryFragment { parenthesized(query) }
}
