/// A Swift value bound to a statement (`?`), typed as its representation:
/// what `#bind` makes.
///
/// ```swift
/// Reminder.update { $0.tags = #bind(["home", "car"]) }     // tags: [String].JSONRepresentation
/// Item.where { $0.createdAt < #bind(cutoff, as: Date.UnixTimeRepresentation.self) }
/// ```
public enum BoundValue {
  /// `value` bound through `Value`: inferred from where the expression is
  /// used, or given as `as:`.
  public static func expression<Value: QueryBindable>(
    _ value: Value.QueryOutput, as type: Value.Type = Value.self
  ) -> SQLQueryExpression<Value> {
    SQLQueryExpression(QueryFragment(binding: Value(queryOutput: value).queryBinding))
  }
}
