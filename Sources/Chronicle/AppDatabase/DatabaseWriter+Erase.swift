import GRDB

/// `erase()` on any GRDB `DatabaseWriter`, in place of GRDB's in every file
/// that imports Chronicle. GRDB's empties the whole file, which on a
/// ``ChronicleDatabase`` would take Chronicle's own tables with it and
/// leave the open database writing into nothing.
extension DatabaseWriter {
  /// Deletes the database's content: GRDB's `erase()`; on a
  /// ``ChronicleDatabase``, this peer's data, log and schema, after which it
  /// is a new database under a new identity (``ChronicleDatabase/deleteLocalData()``
  /// with the app's tables, views and triggers too). No event records it:
  /// other peers keep their data.
  public func erase() throws {
    guard let database = self as? ChronicleDatabase else { return try self.GRDB::erase() }
    try database.deleteLocalData(erasingSchema: true)
  }

  /// Asynchronous `erase()`.
  public func erase() async throws {
    guard let database = self as? ChronicleDatabase else { return try await self.GRDB::erase() }
    try await Task.detached { try database.deleteLocalData(erasingSchema: true) }.value
  }
}
