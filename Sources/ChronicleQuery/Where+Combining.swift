/// Scopes combined as whole filters: `Reminder.flagged.or(Reminder.overdue)`,
/// `!Reminder.completed`, `Reminder.none`. Only conditions combine; the
/// other side's ordering, limits and joins are not taken.
extension Select where Output == From {
  /// This select with `other`'s conditions too:
  /// `Item.active.and(Item.createdAfter(lastWeek))`.
  public func and(_ other: Where<From>) -> Self {
    withConditions(clauses.conditions + other.clauses.conditions)
  }

  /// The rows that match this select's conditions or `other`'s:
  /// `WHERE (a) OR (b)`. A side without conditions adds nothing, so
  /// `Item.all.or(Item.where(\.isStarred))` is the starred items.
  public func or(_ other: Where<From>) -> Self {
    let mine = clauses.conditions, theirs = other.clauses.conditions
    guard !mine.isEmpty else { return withConditions(theirs) }
    guard !theirs.isEmpty else { return self }
    return withConditions([parenthesized(wrapped(conjunction(mine)) + QueryFragment(" OR ") + wrapped(conjunction(theirs)))])
  }

  /// The rows that do not match this select's conditions: `WHERE NOT (…)`;
  /// none at all for a select without conditions.
  public func not() -> Self {
    let condition = clauses.conditions.isEmpty ? QueryFragment("1") : conjunction(clauses.conditions)
    return withConditions([parenthesized(QueryFragment("NOT ") + wrapped(condition))])
  }

  /// `From.where(…)` written where a scope is expected, as an implicit
  /// member: `Reminder.where(\.isCompleted).and(.where(\.isFlagged))`.
  @_disfavoredOverload
  public static func `where`(_ predicate: (From.TableColumns) -> some QueryExpression<Bool>) -> Self {
    From.all.where(predicate)
  }

  /// `From.where { … }` with `if`, `switch` or `for`, as an implicit member.
  public static func `where`(@QueryFragmentBuilder<Bool> _ predicate: (From.TableColumns) -> [QueryFragment]) -> Self {
    From.all.where(predicate)
  }

  /// `From.where(\.flag)` as an implicit member: `.or(.where(\.isFlagged))`.
  public static func `where`(_ column: KeyPath<From.TableColumns, TableColumn<From, Bool>>) -> Self {
    From.all.where(column)
  }

  /// ``and(_:)`` as an operator.
  public static func && (lhs: Self, rhs: Self) -> Self { lhs.and(rhs) }

  /// ``or(_:)`` as an operator.
  public static func || (lhs: Self, rhs: Self) -> Self { lhs.or(rhs) }

  /// ``not()`` as an operator.
  public static prefix func ! (operand: Self) -> Self { operand.not() }

  private func withConditions(_ conditions: [QueryFragment]) -> Self {
    var clauses = self.clauses
    clauses.conditions = conditions
    return Select(clauses: clauses, fromColumns: fromColumns, decode: decode)
  }
}

extension Table {
  /// A select that matches no row (`WHERE 0`): a scope to start from when
  /// building one up with ``Select/or(_:)``.
  public static var none: Where<Self> {
    all.where { _ in SQLQueryExpression<Bool>(QueryFragment("0")) }
  }
}
