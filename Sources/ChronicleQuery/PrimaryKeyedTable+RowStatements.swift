// Statements about one row value, as upstream spells them:
// `Reminder.update(reminder)`, `Reminder.delete(reminder)`.

extension PrimaryKeyedTable {
  /// An UPDATE that writes every column of `row` except its primary key,
  /// to the row with `row`'s primary key.
  public static func update(_ row: Self) -> Update<Self, Void> {
    let key = columns.primaryKey
    var values: [(column: String, value: QueryBinding)] = []
    appendColumns(named: "", of: row, to: &values)
    var updates = Updates<Self>()
    for (column, value) in values where !key.names.contains(column) {
      updates.assign(column, QueryFragment(binding: value))
    }
    return Update(updates: updates, conditions: [keyCondition(of: row)], returning: nil) { _ in }
  }

  /// A DELETE of the row with `row`'s primary key.
  public static func delete(_ row: Self) -> Delete<Self, Void> {
    Delete(conditions: [keyCondition(of: row)], returning: nil) { _ in }
  }

  /// `("table"."id" = ?)` with `row`'s key (a row value for a key of several columns).
  private static func keyCondition(of row: Self) -> QueryFragment {
    let key = columns.primaryKey
    var values: [(column: String, value: QueryBinding)] = []
    key.appendValues(of: row, to: &values)
    let bound = values.map { QueryFragment(binding: $0.value) }.joined(separator: ", ")
    let (lhs, rhs) = key.names.count == 1 ? (key.queryFragment, bound) : (wrapped(key.queryFragment), wrapped(bound))
    return parenthesized(lhs + QueryFragment(" = ") + rhs)
  }
}
