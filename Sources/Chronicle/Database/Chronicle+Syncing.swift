extension Chronicle {
  /// `chronicle_is_syncing()`: true while Chronicle merges remote events
  /// (or deletes local data) on this connection.
  public static var isSyncing: SQLQueryExpression<Bool> { SQLQueryExpression("chronicle_is_syncing()") }

  /// `NOT chronicle_is_syncing()`: the condition of a trigger that writes
  /// tracked tables, so that it runs for the app's own writes and not for
  /// merged ones, whose rows already hold what it computed on their peer:
  ///
  /// ```swift
  /// try Reminder.createTemporaryTrigger(
  ///   after: .insert(forEachRow: { new in … }, when: { _ in Chronicle.isNotSyncing })
  /// ).execute(db)
  /// ```
  ///
  /// A merge during which a trigger writes a tracked table is refused with
  /// ``SyncError/triggerWroteWhileMerging(source:table:)``.
  public static var isNotSyncing: SQLQueryExpression<Bool> { SQLQueryExpression("NOT chronicle_is_syncing()") }
}
