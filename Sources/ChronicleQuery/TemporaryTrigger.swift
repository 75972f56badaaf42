extension Table {
  /// `CREATE TEMPORARY TRIGGER … AFTER …`: runs `event`'s statements after
  /// each row it inserts, updates or deletes.
  ///
  /// ```swift
  /// try Reminder.createTemporaryTrigger(
  ///   after: .insert { new in
  ///     Reminder.find(new.id).update { $0.position = Reminder.select { ($0.position.max() ?? -1) + 1 } }
  ///   }
  /// ).execute(db)
  /// ```
  ///
  /// - Parameters:
  ///   - name: the trigger's name; by default one made of the event, the
  ///     table and where in the source the trigger is created, so that
  ///     running the same line again with `ifNotExists` does nothing.
  ///   - ifNotExists: do nothing when a trigger of that name exists.
  ///
  /// Values the statements bind are written into the trigger's SQL as
  /// literals (SQLite triggers cannot have parameters). A temporary trigger
  /// belongs to the connection that creates it: create it where the writes
  /// it reacts to run (a `ChronicleDatabase` writes on one connection).
  ///
  /// With Chronicle, the rows a trigger writes are captured with the
  /// statement that fired it, in the same event. A trigger that writes
  /// tracked tables must not run while remote changes are merged (their
  /// rows already hold what it computed on their peer): give it
  /// `when: { _ in Chronicle.isNotSyncing }`.
  public static func createTemporaryTrigger(
    _ name: String? = nil, ifNotExists: Bool = false, after event: TriggerEvent<Self>,
    fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column
  ) -> TemporaryTrigger<Self> {
    TemporaryTrigger(
      name: name ?? TemporaryTrigger<Self>.defaultName("after", event, fileID, line, column),
      ifNotExists: ifNotExists, timing: "AFTER", event: event)
  }

  /// `CREATE TEMPORARY TRIGGER … BEFORE …`: runs `event`'s statements
  /// before each row it inserts, updates or deletes. See
  /// ``createTemporaryTrigger(_:ifNotExists:after:fileID:line:column:)``.
  public static func createTemporaryTrigger(
    _ name: String? = nil, ifNotExists: Bool = false, before event: TriggerEvent<Self>,
    fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column
  ) -> TemporaryTrigger<Self> {
    TemporaryTrigger(
      name: name ?? TemporaryTrigger<Self>.defaultName("before", event, fileID, line, column),
      ifNotExists: ifNotExists, timing: "BEFORE", event: event)
  }

  /// `CREATE TEMPORARY TRIGGER … INSTEAD OF …` on a view (a type made with
  /// ``createTemporaryView(ifNotExists:as:)``): runs `event`'s statements in
  /// place of each insert, update or delete of the view's rows, so that the
  /// view can be written. See
  /// ``createTemporaryTrigger(_:ifNotExists:after:fileID:line:column:)``.
  public static func createTemporaryTrigger(
    _ name: String? = nil, ifNotExists: Bool = false, insteadOf event: TriggerEvent<Self>,
    fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column
  ) -> TemporaryTrigger<Self> {
    TemporaryTrigger(
      name: name ?? TemporaryTrigger<Self>.defaultName("instead_of", event, fileID, line, column),
      ifNotExists: ifNotExists, timing: "INSTEAD OF", event: event)
  }
}

/// A `CREATE TEMPORARY TRIGGER` statement; run it with `execute(db)`.
public struct TemporaryTrigger<On: Table>: QueryStatement {
  public typealias QueryValue = Void
  /// The trigger's name.
  public let name: String
  let ifNotExists: Bool
  let timing: String
  let event: TriggerEvent<On>

  public var tableName: String? { On.tableName }
  public func decodeRow(_ decoder: inout SQLiteQueryDecoder) throws {}

  public var query: QueryFragment {
    var sql = "CREATE TEMPORARY TRIGGER \(ifNotExists ? "IF NOT EXISTS " : "")\(quotedIdentifier(name)) "
    sql += "\(timing) \(event.operation) ON \(quotedIdentifier(On.tableName)) FOR EACH ROW "
    if let condition = event.condition { sql += "WHEN \(condition.inlinedSQL) " }
    sql += "BEGIN " + event.body.filter { !$0.sql.isEmpty }.map { $0.inlinedSQL + "; " }.joined() + "END"
    return QueryFragment(sql: sql)
  }

  /// `DROP TRIGGER` of this trigger.
  public func drop(ifExists: Bool = false) -> SQLQueryExpression<Void> {
    SQLQueryExpression(QueryFragment(sql: "DROP TRIGGER \(ifExists ? "IF EXISTS " : "")temp.\(quotedIdentifier(name))"))
  }

  static func defaultName(_ timing: String, _ event: TriggerEvent<On>, _ fileID: StaticString, _ line: UInt, _ column: UInt) -> String {
    "\(timing)_\(event.kind)_on_\(On.tableName)@\(fileID):\(line):\(column)"
  }
}
