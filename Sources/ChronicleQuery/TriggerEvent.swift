/// What fires a trigger, and what it runs: an insert, an update or a delete
/// on `On`, with the statements to run for each row.
///
/// The row is given as columns qualified by `new` (the row after an insert
/// or update) or `old` (the row before an update or delete):
///
/// ```swift
/// .insert { new in
///   Reminder.find(new.id).update { $0.position = Reminder.select { ($0.position.max() ?? -1) + 1 } }
/// }
/// .update(of: { [$0.title] }) { old, new in
///   AuditEntry.insert { ($0.reminderID, $0.oldTitle) } values: { (new.id, old.title) }
/// }
/// .delete(when: { old in old.isCompleted.not() }) { old in … }
/// ```
public struct TriggerEvent<On: Table>: Sendable {
  /// `INSERT`, `UPDATE`, `UPDATE OF "a", "b"` or `DELETE`.
  let operation: String
  /// `insert`, `update` or `delete`, for the trigger's default name.
  let kind: String
  let condition: QueryFragment?
  let body: [QueryFragment]

  /// After or before each inserted row (`new`), or instead of an insert into a view.
  public static func insert(
    @TriggerBodyBuilder forEachRow body: (_ new: On.TableColumns) -> [QueryFragment],
    when condition: ((_ new: On.TableColumns) -> any QueryExpression<Bool>)? = nil
  ) -> Self {
    let new = On.TableColumns(qualifier: "new")
    return Self(operation: "INSERT", kind: "insert", condition: condition?(new).queryFragment, body: body(new))
  }

  /// After or before each updated row (`old` and `new`), or instead of an
  /// update of a view; `of` limits it to updates of those columns.
  public static func update(
    of columns: ((On.TableColumns) -> [any TableColumnExpression<On>])? = nil,
    @TriggerBodyBuilder forEachRow body: (_ old: On.TableColumns, _ new: On.TableColumns) -> [QueryFragment],
    when condition: ((_ old: On.TableColumns, _ new: On.TableColumns) -> any QueryExpression<Bool>)? = nil
  ) -> Self {
    updating(columns.map { $0(On.columns).flatMap(\.names) }, body: body, condition: condition)
  }

  /// After or before each update of the columns `of` names, written as
  /// upstream writes them: `.update { ($0.title, $0.notes) } forEachRow: { old, new in … }`,
  /// `.update { $0.status } forEachRow: …`.
  public static func update<each C: TableColumnExpression>(
    of columns: (On.TableColumns) -> (repeat each C),
    @TriggerBodyBuilder forEachRow body: (_ old: On.TableColumns, _ new: On.TableColumns) -> [QueryFragment],
    when condition: ((_ old: On.TableColumns, _ new: On.TableColumns) -> any QueryExpression<Bool>)? = nil
  ) -> Self {
    let chosen = columns(On.columns)
    var names: [String] = []
    for column in repeat each chosen { names += column.names }
    return updating(names, body: body, condition: condition)
  }

  /// `UPDATE [OF columns]` with its body and condition.
  private static func updating(
    _ columnNames: [String]?,
    body: (_ old: On.TableColumns, _ new: On.TableColumns) -> [QueryFragment],
    condition: ((_ old: On.TableColumns, _ new: On.TableColumns) -> any QueryExpression<Bool>)?
  ) -> Self {
    let old = On.TableColumns(qualifier: "old")
    let new = On.TableColumns(qualifier: "new")
    var operation = "UPDATE"
    if let columnNames { operation += " OF " + columnNames.map(quotedIdentifier).joined(separator: ", ") }
    return Self(operation: operation, kind: "update", condition: condition?(old, new).queryFragment, body: body(old, new))
  }

  /// After or before each deleted row (`old`), or instead of a delete from a view.
  public static func delete(
    @TriggerBodyBuilder forEachRow body: (_ old: On.TableColumns) -> [QueryFragment],
    when condition: ((_ old: On.TableColumns) -> any QueryExpression<Bool>)? = nil
  ) -> Self {
    let old = On.TableColumns(qualifier: "old")
    return Self(operation: "DELETE", kind: "delete", condition: condition?(old).queryFragment, body: body(old))
  }
}

/// Collects a trigger's statements: one or several inserts, updates,
/// deletes or selects, in order.
@resultBuilder
public enum TriggerBodyBuilder {
  public static func buildExpression(_ statement: some QueryStatement) -> [QueryFragment] { [statement.query] }
  public static func buildBlock(_ statements: [QueryFragment]...) -> [QueryFragment] { statements.flatMap { $0 } }
}
