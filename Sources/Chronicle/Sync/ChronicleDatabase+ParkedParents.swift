import GRDB

extension ChronicleDatabase {
  /// Appends the event of this device's write transaction in progress
  /// (none when it changed nothing), then brings back the rows whose parent
  /// it put back: what every local write does before it commits.
  func appendLocalEvent(_ db: Database) throws -> AppendedEvent? {
    let appended = try session.appendEvent(db)
    if appended != nil { try restoreRowsWhoseParentsCameBack(db) }
    return appended
  }

  /// After this device's own write (in its transaction, its event
  /// appended): rows parked because their parent was absent come back if
  /// the write put the parent back, as they do on a peer that merges the
  /// parent. Otherwise they would stay parked here, and only here, until
  /// some merge settled them. The rows come back as merges bring them:
  /// without an event (every peer derives them from the same history), and
  /// a replay of the log does the same after each own event
  /// (``Projector/applyRecorded(_:insertsReplace:_:)``).
  private func restoreRowsWhoseParentsCameBack(_ db: Database) throws {
    // One cached statement per write (the live file has both tables of
    // merge state: opening it migrated them), through their partial indexes.
    guard try Bool.fetchOne(db.cachedStatement(sql: """
      SELECT EXISTS (SELECT 1 FROM main.chronicle_rows WHERE parked_reason = 'parent')
        OR EXISTS (SELECT 1 FROM main.chronicle_integer_rows WHERE parked_reason = 'parent')
      """)) == true else { return }
    let local = peerID
    try session.uncaptured(db) { uncaptured in
      try MergeApplier(db, local: local, localEpoch: .max).restoreRowsWhoseParentsArePresent()
      if let table = uncaptured.tableWrittenByTrigger {
        throw SyncError.triggerWroteWhileMerging(source: "the rows this write brought back from parking", table: table)
      }
    }
  }
}
