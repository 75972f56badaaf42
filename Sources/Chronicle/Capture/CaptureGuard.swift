import GRDB

/// Refuses the commit of a transaction whose captured changes have no event
/// (a write that bypassed ``ChronicleDatabase/write(_:)``), and clears the
/// capture buffer when a transaction ends.
///
/// GRDB retains it for the life of the writer connection, and through it the
/// capture session that the preupdate hook points to.
final class CaptureGuard: TransactionObserver {
  let session: CaptureSession

  init(session: CaptureSession) { self.session = session }

  func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
  func databaseDidChange(with event: DatabaseEvent) {}

  func databaseWillCommit() throws {
    guard session.hasPendingChanges else { return }
    let tables = session.pendingTableNames
    session.discardPendingChanges()
    throw ChronicleError.uncapturedWrite(tables: tables)
  }

  func databaseDidCommit(_ db: Database) { session.discardPendingChanges() }
  func databaseDidRollback(_ db: Database) { session.transactionDidRollBack() }
}
