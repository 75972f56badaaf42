// Triggers that write to the very row an insert or update touched, as
// upstream spells them: `createTemporaryTrigger(afterUpdateTouch: \.updatedAt)`.

extension Table {
  /// `AFTER UPDATE`: applies `updates` to each updated row
  /// (`afterUpdateTouch: { $0.position += 1 }`).
  ///
  /// SQLite does not run a trigger from its own statement (recursive
  /// triggers are off), so the touch does not fire it again. With
  /// Chronicle, give `when: { _, _ in Chronicle.isNotSyncing }` when the
  /// table is synced: merged rows already hold what the trigger wrote on
  /// their peer.
  public static func createTemporaryTrigger(
    _ name: String? = nil, ifNotExists: Bool = false, afterUpdateTouch updates: (inout Updates<Self>) -> Void,
    when condition: ((_ old: TableColumns, _ new: TableColumns) -> any QueryExpression<Bool>)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column
  ) -> TemporaryTrigger<Self> {
    let condition = condition?(TableColumns(qualifier: "old"), TableColumns(qualifier: "new")).queryFragment
    return touchTrigger(name, ifNotExists, "UPDATE", "update", condition, updates, fileID, line, column)
  }

  /// `AFTER UPDATE`: sets a date column of each updated row to now (or to
  /// `date`): `afterUpdateTouch: \.updatedAt`.
  public static func createTemporaryTrigger<V: QueryRepresentable>(
    _ name: String? = nil, ifNotExists: Bool = false, afterUpdateTouch dateColumn: KeyPath<TableColumns, TableColumn<Self, V>>,
    date: any QueryExpression = currentDate,
    when condition: ((_ old: TableColumns, _ new: TableColumns) -> any QueryExpression<Bool>)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column
  ) -> TemporaryTrigger<Self> {
    let condition = condition?(TableColumns(qualifier: "old"), TableColumns(qualifier: "new")).queryFragment
    return touchTrigger(name, ifNotExists, "UPDATE", "update", condition, { $0.assign(dateColumn, date.queryFragment) }, fileID, line, column)
  }

  /// `AFTER INSERT`: applies `updates` to each inserted row.
  public static func createTemporaryTrigger(
    _ name: String? = nil, ifNotExists: Bool = false, afterInsertTouch updates: (inout Updates<Self>) -> Void,
    when condition: ((_ new: TableColumns) -> any QueryExpression<Bool>)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column
  ) -> TemporaryTrigger<Self> {
    let condition = condition?(TableColumns(qualifier: "new")).queryFragment
    return touchTrigger(name, ifNotExists, "INSERT", "insert", condition, updates, fileID, line, column)
  }

  /// `AFTER INSERT`: sets a date column of each inserted row to now (or to `date`).
  public static func createTemporaryTrigger<V: QueryRepresentable>(
    _ name: String? = nil, ifNotExists: Bool = false, afterInsertTouch dateColumn: KeyPath<TableColumns, TableColumn<Self, V>>,
    date: any QueryExpression = currentDate,
    when condition: ((_ new: TableColumns) -> any QueryExpression<Bool>)? = nil,
    fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column
  ) -> TemporaryTrigger<Self> {
    let condition = condition?(TableColumns(qualifier: "new")).queryFragment
    return touchTrigger(name, ifNotExists, "INSERT", "insert", condition, { $0.assign(dateColumn, date.queryFragment) }, fileID, line, column)
  }

  /// Now, in the form dates are stored (`yyyy-MM-dd HH:mm:ss.SSS`, UTC).
  /// Upstream writes `datetime('subsec')`, which needs SQLite 3.42.
  public static var currentDate: SQLQueryExpression<String> {
    SQLQueryExpression(QueryFragment("strftime('%Y-%m-%d %H:%M:%f', 'now')"))
  }

  private static func touchTrigger(
    _ name: String?, _ ifNotExists: Bool, _ operation: String, _ kind: String, _ condition: QueryFragment?,
    _ updates: (inout Updates<Self>) -> Void, _ fileID: StaticString, _ line: UInt, _ column: UInt
  ) -> TemporaryTrigger<Self> {
    var assignments = Updates<Self>()
    updates(&assignments)
    let table = quotedIdentifier(tableName)
    let sameRow = QueryFragment(sql: "(\(table).\"rowid\" = \"new\".\"rowid\")")
    let touch = Update<Self, Void>(updates: assignments, conditions: [sameRow], returning: nil) { _ in }
    let event = TriggerEvent<Self>(operation: operation, kind: kind, condition: condition, body: [touch.query])
    return TemporaryTrigger(
      name: name ?? TemporaryTrigger<Self>.defaultName("after", event, fileID, line, column),
      ifNotExists: ifNotExists, timing: "AFTER", event: event)
  }
}
