import Foundation
import GRDB

/// Replays a log's events, in log order, into a target database the way the
/// source database took them in, through the ``Projector``: the source
/// peer's own events as recorded, received events merged exactly as sync
/// merged them. Around it, what a replay adds: signatures checked against
/// the events' devices, a partial replay's choice of tables, the merge state
/// reshaped by migrations as the live database reshaped it.
///
/// Every event applied is appended to the target's own log, so the target is
/// itself a Chronicle database and merges later received events against the
/// right versions. The caller owns transactions; foreign keys must be off.
final class LogReplayer {
  let localPeer: PeerID
  private let projector: Projector
  private var selection: TableSelection?
  /// Schema epoch of the last local event applied.
  private(set) var localEpoch: UInt64 = 0

  /// Whether the merge state is kept as the live database kept it (deleted
  /// rows' values, migrations reshaping it): needed when received events
  /// follow, or when the target is to be a Chronicle database that syncs.
  private let keepsMergeState: Bool

  init(localPeer: PeerID, tables: Set<String>?, keepsMergeState: Bool) {
    self.localPeer = localPeer
    self.keepsMergeState = keepsMergeState
    self.selection = tables.map(TableSelection.init)
    self.projector = Projector(localPeer: localPeer, retainsDeletedRows: keepsMergeState)
  }

  /// What an own event's update or delete that finds no row does (see
  /// ``EventApplier/MissingRows``).
  var missingRows: EventApplier.MissingRows {
    get { projector.missingRows }
    set { projector.missingRows = newValue }
  }

  /// Creates Chronicle's tables in an empty target.
  static func prepareTarget(_ db: Database) throws {
    try InternalSchema.migrate(db)
  }

  /// Starts the target from a compacted log's baseline: its schema and rows,
  /// its merge state, and (when the target keeps the log) the baseline itself.
  func applyBaseline(_ baseline: LogBaseline, mergeState: [NamedMergeState], keepsLog: Bool, _ db: Database) throws {
    var event = baseline.event
    if let selection {
      let wanted = try selection.wantedTableIndexes(of: event, db)
      event.operations = event.operations.filter { operation in operation.tableIndex.map { wanted.contains($0) } ?? true }
    }
    try projector.applyRecorded(event, db)
    localEpoch = baseline.schemaEpoch
    selection?.schemaChanged()
    try MergeStore(db: db).insert(mergeState)
    if keepsLog { try baseline.save(db, mergeState: mergeState) }
    for case .schema(.migration(let migration)) in baseline.event.operations {
      try ChronicleMeta(db: db).set(.migration(migration.name), to: 0)
    }
  }

  /// Applies one event (inside the caller's transaction).
  func apply(_ stored: StoredEvent, bytes: [UInt8], _ db: Database) throws {
    // A signed event must still be its device's: a log changed after the
    // fact does not replay.
    if let problem = EventSignature.originProblem(of: bytes, origin: stored.event.origin) {
      throw ChronicleError.replayFailed(event: stored.event.id.description, reason: problem.description)
    }
    var event = stored.event
    if let selection {
      let wanted = try selection.wantedTableIndexes(of: event, db)
      event.operations = event.operations.filter { operation in operation.tableIndex.map { wanted.contains($0) } ?? true }
    }
    let encoded = EventCodec.Encoded(bytes: bytes, rawBodySize: stored.rawSize, checksum: stored.checksum)
    if event.origin == localPeer {
      try projector.endReceivedRun()
      let migrations = event.operations.compactMap { operation -> SchemaMigration? in
        if case .schema(.migration(let migration)) = operation { migration } else { nil }
      }
      var keyOrigins: [String: [Int64: PeerID]] = [:]
      if !migrations.isEmpty && keepsMergeState {
        // As the migration did on the live database: note key origins, apply, reshape.
        let through = try EventLog.lastPosition(db)
        for migration in migrations {
          for case .migrateKeys(let table, let column, _) in migration.steps {
            keyOrigins[table.lowercased()] = try KeyMigration.rowOrigins(db, table: table, column: column, through: through)
          }
        }
      }
      try projector.applyRecorded(event, db)
      if keepsMergeState {
        for migration in migrations {
          try MergeStateMigration.apply(
            migration.steps, keyOrigins: keyOrigins, localPeer: localPeer, upcasters: Upcasters(), skipsMissingCode: true, db)
        }
      }
      localEpoch = event.schemaEpoch
      if event.rowChangeCount != event.operations.count { selection?.schemaChanged() }
      // Into tables only, with nothing to merge, the log is not needed.
      guard keepsMergeState else { return }
      let position = try EventAppender.insert(db, event: stored.event, encoded: encoded, rows: .unknown)
      for case .schema(.migration(let migration)) in event.operations {
        try ChronicleMeta(db: db).set(.migration(migration.name), to: position)
      }
    } else {
      do {
        try projector.merge(IncomingEvent(event: event, encoded: encoded), source: "the log") {
          // As sync merged it: at the epoch the source had reached, older
          // events read through its migrations, the merge state folded first.
          try TrackedTables.refresh(db)
          let merge = try MergeApplier.forMerging(db, local: localPeer, localEpoch: localEpoch)
          try merge.foldLocalEvents()
          return merge
        }
      } catch let error as SyncError {
        throw ChronicleError.replayFailed(event: event.id.description, reason: "\(error)")
      }
    }
  }

  /// Settles the run of received events in progress, if any (see
  /// ``Projector/endReceivedRun()``).
  func endReceivedRun() throws {
    try projector.endReceivedRun()
  }

  /// Ends the replay: settles received events and creates the triggers the
  /// history defines (created last: their effects are in the log already).
  func finish(_ db: Database) throws {
    try projector.finish(db)
  }

  // MARK: - Lenient replay

  /// What ``restore(_:)`` needs to forget an event rolled back on its own.
  struct Checkpoint {
    fileprivate var pendingTriggers: [(name: String, sql: String)]
    fileprivate var localEpoch: UInt64
  }

  func checkpoint() -> Checkpoint {
    Checkpoint(pendingTriggers: projector.pendingTriggers, localEpoch: localEpoch)
  }

  /// Forgets an event whose savepoint was rolled back.
  func restore(_ checkpoint: Checkpoint) {
    projector.pendingTriggers = checkpoint.pendingTriggers
    localEpoch = checkpoint.localEpoch
    projector.abandonReceivedRun()  // its fold mark and rows were rolled back with the event
    selection?.schemaChanged()
  }
}

/// The tables a partial replay keeps: those asked for, and the tables they
/// reference through foreign keys (transitively), whose rows theirs need.
final class TableSelection {
  let requested: Set<String>
  private var closure: Set<String>?

  init(_ requested: Set<String>) {
    self.requested = Set(requested.map { $0.lowercased() })
  }

  func schemaChanged() { closure = nil }

  /// Lower-cased names of the kept tables, in the target's current schema.
  func keptTables(_ db: Database) throws -> Set<String> {
    if let closure { return closure }
    let kept = try ForeignKeyGraph(db: db).withAncestors(requested)
    closure = kept
    return kept
  }

  func wantedTableIndexes(of event: ChangeEvent, _ db: Database) throws -> Set<Int> {
    let kept = try keptTables(db)
    return Set(event.tables.indices.filter { kept.contains(event.tables[$0].name.lowercased()) })
  }
}
