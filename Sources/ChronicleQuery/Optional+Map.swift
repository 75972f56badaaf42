// `map` and `flatMap` on an optional expression, as on a Swift optional:
// the transform sees the value as not optional, and NULL stays NULL without
// reaching it (a function that would reject NULL never sees one). On builder
// expressions only: a Swift optional is an expression too, and keeps its own
// `map` and `flatMap` without competing overloads.

extension QueryExpressionSyntax {
  /// The transform of this value when it is not NULL, and NULL otherwise:
  ///
  /// ```swift
  /// Reminder.select { $0.priority.map { $0 * 10 } }
  /// // SELECT CASE "reminders"."priority" IS NULL WHEN 1 THEN NULL ELSE ("reminders"."priority" * 10) END FROM "reminders"
  /// ```
  public func map<Wrapped, Mapped>(
    _ transform: (SQLQueryExpression<Wrapped>) throws -> some QueryExpression<Mapped>
  ) rethrows -> SQLQueryExpression<Mapped?> where QueryValue == Wrapped? {
    SQLQueryExpression(unlessNull(try transform(SQLQueryExpression(queryFragment)).queryFragment))
  }

  /// The transform of this value when it is not NULL (itself perhaps NULL),
  /// and NULL otherwise.
  public func flatMap<Wrapped, Mapped>(
    _ transform: (SQLQueryExpression<Wrapped>) throws -> some QueryExpression<Mapped?>
  ) rethrows -> SQLQueryExpression<Mapped?> where QueryValue == Wrapped? {
    SQLQueryExpression(unlessNull(try transform(SQLQueryExpression(queryFragment)).queryFragment))
  }

  /// `CASE self IS NULL WHEN 1 THEN NULL ELSE transformed END`, as upstream
  /// writes it; an aggregate as it is (`$0.score.flatMap { $0.sum() }` is
  /// `sum("score")`, as upstream writes it). The aggregate skips NULL
  /// itself, and the test around it would read one row of the group
  /// (SQLite's bare column): NULL there made the whole sum NULL.
  private func unlessNull(_ transformed: QueryFragment) -> QueryFragment {
    if transformed.containsAggregate { return transformed }
    return QueryFragment("CASE ") + queryFragment + QueryFragment(" IS NULL WHEN 1 THEN NULL ELSE ") + transformed + QueryFragment(" END")
  }
}
