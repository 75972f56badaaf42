extension Table {
  /// `CREATE TEMPORARY VIEW`: this table type's rows, computed by `select`.
  ///
  /// ```swift
  /// @Table @Selection struct ReminderWithList {
  ///   let reminderTitle: String
  ///   let remindersListTitle: String
  /// }
  ///
  /// try ReminderWithList.createTemporaryView(
  ///   as: Reminder.join(RemindersList.all) { $0.remindersListID.eq($1.id) }
  ///     .select { ReminderWithList.Columns(reminderTitle: $0.title, remindersListTitle: $1.title) }
  /// ).execute(db)
  ///
  /// let rows = try ReminderWithList.order(by: \.reminderTitle).fetchAll(db)
  /// ```
  ///
  /// The view is named after the type's table and has its columns, in
  /// order. Values the select binds are written into the view's SQL as
  /// literals (SQLite views cannot have parameters).
  ///
  /// A temporary view belongs to the connection that creates it. With a
  /// pool of connections (a `ChronicleDatabase` reads on several), create
  /// it in `Configuration.prepareDatabase`, which runs on every connection
  /// as it opens, so that reads find it too.
  public static func createTemporaryView(ifNotExists: Bool = false, as select: some SelectStatement<Self>) -> TemporaryView<Self> {
    TemporaryView(ifNotExists: ifNotExists, select: select.query)
  }
}

/// A `CREATE TEMPORARY VIEW` statement; run it with `execute(db)`.
public struct TemporaryView<View: Table>: QueryStatement {
  public typealias QueryValue = Void
  let ifNotExists: Bool
  let select: QueryFragment

  public var tableName: String? { View.tableName }
  public func decodeRow(_ decoder: inout SQLiteQueryDecoder) throws {}

  public var query: QueryFragment {
    let columns = distinctColumnNames(View.TableColumns.allColumns.flatMap(\.names)).map(quotedIdentifier).joined(separator: ", ")
    return QueryFragment(
      sql: "CREATE TEMPORARY VIEW \(ifNotExists ? "IF NOT EXISTS " : "")\(quotedIdentifier(View.tableName)) "
        + "(\(columns)) AS \(select.inlinedSQL)")
  }

  /// `DROP VIEW` of this view.
  public func drop(ifExists: Bool = false) -> SQLQueryExpression<Void> {
    SQLQueryExpression(QueryFragment(sql: "DROP VIEW \(ifExists ? "IF EXISTS " : "")temp.\(quotedIdentifier(View.tableName))"))
  }
}
