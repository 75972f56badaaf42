import GRDB

extension ChronicleDatabase {
  /// After this device's own write (in its transaction, its event
  /// appended): rows parked because their parent was absent come back if
  /// the write put the parent back, as they do on a peer that merges the
  /// parent. Otherwise they would stay parked here, and only here, until
  /// some merge settled them. The rows come back as merges bring them:
  /// without an event (every peer derives them from the same history), and
  /// a replay of the log does the same after each own event
  /// (``Projector/applyRecorded(_:insertsReplace:_:)``).
  func restoreRowsWhoseParentsCameBack(_ db: Database) throws {
    guard try MergeStore(db: db).hasParked(for: .parent) else { return }
    let local = peerID
    try session.uncaptured(db) { uncaptured in
      try MergeApplier(db, local: local, localEpoch: .max).restoreRowsWhoseParentsArePresent()
      if let table = uncaptured.tableWrittenByTrigger {
        throw SyncError.triggerWroteWhileMerging(source: "the rows this write brought back from parking", table: table)
      }
    }
  }
}
