import GRDB

/// `write` on any GRDB `DatabaseWriter`, in place of GRDB's own in every
/// file that imports Chronicle (which re-exports GRDB): the same
/// transaction, and when the writer is a ``ChronicleDatabase`` the event
/// of its changes appended before the commit, as ``ChronicleDatabase/write(_:)``
/// does. So SQLiteData's spelling is captured as written:
///
/// ```swift
/// @Dependency(\.defaultDatabase) var database  // any DatabaseWriter
/// try database.write { db in
///   try Reminder.insert { Reminder.Draft(title: "Milk") }.execute(db)
/// }
/// ```
///
/// A file that imports GRDB beside Chronicle sees both `write`s and
/// reports the call as ambiguous: import Chronicle alone.
extension DatabaseWriter {
  /// Runs `updates` in a write transaction, and commits it with the event
  /// of its changes when the writer is a ``ChronicleDatabase``.
  ///
  /// If `updates` throws, the transaction rolls back and nothing is appended.
  @_disfavoredOverload  // as GRDB's: in async code, the async `write` is the one chosen
  public func write<T>(_ updates: (Database) throws -> T) throws -> T {
    guard let database = self as? ChronicleDatabase else { return try self.GRDB::write(updates) }
    return try database.write(updates)
  }

  /// Asynchronous `write`.
  public func write<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
    guard let database = self as? ChronicleDatabase else { return try await self.GRDB::write(updates) }
    return try await database.write(updates)
  }

  /// Schedules `write` and returns at once; `completion` gets
  /// the connection and the result once the transaction ends.
  public func asyncWrite<T>(
    _ updates: @escaping @Sendable (Database) throws -> T,
    completion: @escaping @Sendable (Database, Result<T, Error>) -> Void
  ) {
    guard let database = self as? ChronicleDatabase else { return self.GRDB::asyncWrite(updates, completion: completion) }
    database.writer.GRDB::asyncWrite({ db in
      let value = try updates(db)
      _ = try database.appendLocalEvent(db)
      return value
    }, completion: completion)
  }
}
