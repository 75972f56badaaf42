// A static select that joins, chained after a select that chose its
// columns, as upstream spells it: with
// `static let withReminderCount = group(by: \.id).join(Reminder.all) { … }.select { $1.id.count() }`,
// `RemindersList.limit(1).select(\.title).withReminderCount` selects the
// title, then the count: each row `(String, Int)`.

extension Select {
  /// Chains a static select over two joined tables: its joins and columns
  /// after this select's columns, this select's conditions, grouping and
  /// order before its own, this one's limit where it sets none.
  @_disfavoredOverload
  public subscript<C0, C1, ScopeOutput>(dynamicMember scope: KeyPath<From.Type, Select2<C0, C1, ScopeOutput>>) -> Select2<C0, C1, (Output, ScopeOutput)> {
    let chained = From.self[keyPath: scope]
    let (first, then) = (decode, chained.decode)
    return Select2(clauses: chaining(chained.clauses), sources: chained.sources) { decoder in (try first(&decoder), try then(&decoder)) }
  }

  /// Chains a static select over three joined tables (see the two-table form).
  @_disfavoredOverload
  public subscript<C0, C1, C2, ScopeOutput>(dynamicMember scope: KeyPath<From.Type, Select3<C0, C1, C2, ScopeOutput>>) -> Select3<C0, C1, C2, (Output, ScopeOutput)> {
    let chained = From.self[keyPath: scope]
    let (first, then) = (decode, chained.decode)
    return Select3(clauses: chaining(chained.clauses), sources: chained.sources) { decoder in (try first(&decoder), try then(&decoder)) }
  }

  /// `later` with this select's clauses before its own, and its columns after this select's.
  private func chaining(_ later: SelectClauses) -> SelectClauses {
    var result = clauses.preceding(later)
    result.columns = [clauses.columns, later.columns].joined(separator: ", ")
    return result
  }
}
