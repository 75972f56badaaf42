import GRDB

/// The one path from events to tables.
///
/// - A peer's own events are applied as they were recorded
///   (``EventApplier``): they are what happened there.
/// - Received events are merged per column, last writer wins: Sync's
///   ``MergeApplier`` decides, and writes each row once per batch through
///   ``TableRowWriter``. A run of consecutive received events is one batch,
///   settled when the run ends (rows written, foreign keys checked, merge
///   state saved, observers told), before the next own event or at
///   ``finish(_:)``.
///
/// Sync's merge, replay, step and rebuild (into shadow tables) apply events
/// through it; compaction and clone through replay. The caller owns the
/// transactions, and foreign keys must be off on the connection: rows arrive
/// in any order, and the log already holds every change a cascade made.
final class Projector {
  let localPeer: PeerID
  /// This peer's own events, as recorded.
  private let recorded = EventApplier()
  /// The run of received events in progress, if any.
  private var run: MergeApplier?

  /// - Parameter retainsDeletedRows: whether an own delete keeps the row's
  ///   last values in the merge state, as capture does on the live database,
  ///   so that received events merged later can bring the row back whole.
  init(localPeer: PeerID, retainsDeletedRows: Bool) {
    self.localPeer = localPeer
    recorded.retainsDeletedRows = retainsDeletedRows
  }

  /// What an own event's update or delete that finds no row does.
  var missingRows: EventApplier.MissingRows {
    get { recorded.missingRows }
    set { recorded.missingRows = newValue }
  }

  /// Trigger definitions the applied history holds, created by ``finish(_:)``
  /// (their effects are in the log already, as row changes).
  var pendingTriggers: [(name: String, sql: String)] {
    get { recorded.pendingTriggers }
    set { recorded.pendingTriggers = newValue }
  }

  /// Applies one of this peer's own events as recorded, after settling the
  /// run of received events before it.
  /// - Parameter insertsReplace: an insert replaces a row with the same key
  ///   instead of failing (a rebuild, where an event that reshaped a table
  ///   carries its rows again).
  func applyRecorded(_ event: ChangeEvent, insertsReplace: Bool = false, _ db: Database) throws {
    try endReceivedRun()
    recorded.insertsReplace = insertsReplace
    try recorded.apply(event, to: db)
    // As on the live database after its own write: rows parked for a parent
    // the event put back come back (``ChronicleDatabase/appendLocalEvent(_:)``).
    if try MergeStore(db: db).hasParked(for: .parent) {
      try MergeApplier(db, local: localPeer, localEpoch: .max).restoreRowsWhoseParentsArePresent()
    }
  }

  /// Merges one received event, and stores it in the log; returns false for
  /// an event the log holds already. The first received event after an own
  /// one (or the first of all) starts a run with the applier `startRun`
  /// makes. Errors are Sync's (``SyncError``), naming `source`.
  @discardableResult
  func merge(_ incoming: IncomingEvent, source: String, startRun: () throws -> MergeApplier) throws -> Bool {
    if run == nil { run = try startRun() }
    return try run!.apply(incoming, source: source)
  }

  /// Settles the run of received events in progress, if any: writes its
  /// rows, parks rows whose parent is absent and brings back those whose
  /// parent arrived, saves the merge state and tells observers. Returns
  /// what the run merged.
  @discardableResult
  func endReceivedRun() throws -> MergeReport {
    guard let run else { return MergeReport() }
    self.run = nil
    if run.appliedEvents > 0 { try run.settleForeignKeys() }
    try run.finishBatch()
    var report = MergeReport()
    report.appliedEvents = run.appliedEvents
    report.duplicateEvents = run.duplicateEvents
    report.rowChanges = run.appliedRowChanges
    return report
  }

  /// Forgets the run in progress without settling it: its rows and fold
  /// mark were rolled back with the savepoint that held them.
  func abandonReceivedRun() {
    run = nil
  }

  /// Ends the history: settles the received events and creates the triggers
  /// it defines.
  func finish(_ db: Database) throws {
    try endReceivedRun()
    try recorded.finish(db)
  }
}
