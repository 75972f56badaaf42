import Foundation
import GRDB

extension ChronicleDatabase {
  /// Rebuilds the tracked tables from the whole log, through the upcasters
  /// of the migrations it records, and swaps them in atomically.
  ///
  /// The history is replayed into shadow tables with the current schema, in
  /// a side file next to the database (`<path>.rebuild`), a few hundred
  /// events per transaction; each transaction records a checkpoint, so a
  /// rebuild that is interrupted resumes where it stopped. Readers and
  /// writers keep working meanwhile (events written during the rebuild are
  /// applied too). The shadow tables are checked (`PRAGMA integrity_check`,
  /// `foreign_key_check`) and compared with the live ones; then one write
  /// transaction replaces the rows of every tracked table and the merge
  /// state, without an event: the log already holds every change.
  ///
  /// Triggers on tracked tables fire during the swap unless they say
  /// `WHEN NOT chronicle_is_syncing()`, as they should for merges.
  @discardableResult
  public func rebuild(options: RebuildOptions = RebuildOptions()) throws -> RebuildReport {
    do {
      return try rebuildOnce(options)
    } catch is ReceivedDuringRebuild {
      // Another peer's events arrived, and the shadow did not keep what
      // merging them needs (its own log): start over, knowing.
      DatabaseFiles.remove(path + ".rebuild")
      return try rebuildOnce(options)
    }
  }

  private func rebuildOnce(_ options: RebuildOptions) throws -> RebuildReport {
    let peer = peerID
    let side = path + ".rebuild"
    let (upcaster, schema, tracked, hasReceived, hasFolded) = try read { db in
      (try EventUpcaster.load(db, localPeer: peer, upcasters: options.upcasters), try SchemaSnapshot.read(db),
       try TrackedTables.names(db),
       try EventLog.hasReceivedEvents(db, localPeer: peer),
       try ChronicleMeta(db: db).value(.mergeFoldedThrough) != nil)
    }
    try upcaster.checkRegistered()
    let (baseline, baselineRows) = try read { db in (try LogBaseline.read(db), try LogBaseline.mergeState(db)) }
    // Merge state is rebuilt whole (versions folded from the log) once
    // anything has needed it: a received event, a fold (a peer that prepared
    // to merge, even if nothing came), or a compaction baseline. Otherwise
    // the live file has none beyond the values deleted rows retain, nor a
    // fold mark, and the shadow keeps the same.
    let keepsMergeState = hasReceived || hasFolded || baseline != nil
    let shadow = try ShadowDatabase.openOrCreate(at: side, for: self, schema: schema, keepsMergeState: keepsMergeState)
    let resumedAfter = shadow.through > (baseline?.throughPosition ?? 0) ? shadow.through : nil
    var counts = (events: 0, rows: 0)
    let total = try log.count()

    // Apply the log in checkpointed batches, up to its current end.
    var applier = ShadowApplier(localPeer: peer, upcaster: upcaster, keepsMergeState: keepsMergeState)
    applier.emptiedAt = try read { db in try ShadowApplier.lastEmptied(db, upcaster: upcaster, localPeer: peer) }
    if let baseline, shadow.through < baseline.throughPosition {
      // A compacted log starts from its baseline: its rows (in the current
      // shape) and its merge state.
      try shadow.queue.writeWithoutTransaction { db in
        try db.inTransaction {
          _ = try applier.apply(baseline.stored, isBaseline: true, db)
          try MergeStore(db: db).insert(baselineRows)
          try shadow.saveCheckpoint(baseline.stored, db)
          return .commit
        }
      }
    }
    // The next batch is read (and decoded) from the log on another thread
    // while this one applies to the shadow: the two connections are apart.
    let eventsPerCheckpoint = options.eventsPerCheckpoint
    func readAhead(after position: Int64) -> BackgroundWork<[StoredEvent]> {
      BackgroundWork { [self] in
        try read { db in
          var batch: [StoredEvent] = []
          try EventLog.forEachEncoded(db, EventFilter(positions: (position + 1)...Int64.max, limit: eventsPerCheckpoint)) { stored, _ in
            batch.append(stored)
          }
          return batch
        }
      }
    }
    func catchUp() throws {
      var next = readAhead(after: shadow.through)
      while true {
        let batch = try next.value()
        if batch.isEmpty { break }
        next = readAhead(after: batch.last!.id)
        try shadow.queue.writeWithoutTransaction { db in
          try db.inTransaction {
            for stored in batch {
              counts.rows += try applier.apply(stored, db)
              counts.events += 1
              if let limit = options.stopsAfterEvents, counts.events > limit { throw RebuildInterrupted() }
            }
            try applier.endReceivedRun()
            try shadow.saveCheckpoint(batch.last!, db)
            return .commit
          }
        }
        options.progress?(ReplayProgress(eventsRead: Int(shadow.through), totalEvents: max(total, Int(shadow.through)), rowChanges: counts.rows))
      }
      try shadow.finish(localPeer: peer, keepsMergeState: keepsMergeState)
    }
    try catchUp()

    // Verify the shadow, and compare it with the live tables.
    try shadow.checkIntegrity()
    var comparison = Comparison()
    var swapped = false
    var adoptedEvent: StoredEvent?
    if options.isDryRun || options.adoptsLiveRows {
      let rebuilt = Self.digests(of: shadow, tables: tracked)
      comparison = try compare(live: try digests(tables: tracked), rebuilt: try rebuilt.value(), shadow: shadow)
    }
    if !options.isDryRun {
      // Writes made meanwhile are applied first; the swap itself holds the
      // write lock, so none can slip in between.
      for attempt in 1...5 {
        do {
          if options.adoptsLiveRows {
            adoptedEvent = try adoptLiveRows(against: shadow, tables: tracked)
          } else {
            comparison = try swap(from: shadow, tables: tracked, keepsMergeState: keepsMergeState)
            swapped = true
          }
          break
        } catch is ShadowBehind {
          guard attempt < 5 else { throw ChronicleError.rebuildFailed("writes kept arriving while it swapped; run it again (it resumes)") }
          try catchUp()
          try shadow.checkIntegrity()
        }
      }
    }
    let checks = zip(comparison.live, comparison.rebuilt).map { pair in
      VerificationReport.TableCheck(table: pair.0.table, live: pair.0, replayed: pair.1)
    }
    let differences = comparison.differences
    try shadow.remove()
    return RebuildReport(
      eventCount: counts.events, rowChangeCount: counts.rows, resumedAfter: resumedAfter, tables: checks,
      differences: differences, swapped: swapped, adoptedEvent: adoptedEvent)
  }

  /// The live tables' digests beside the shadow's and, where they differ, the rows that do.
  private struct Comparison {
    var live: [TableDigest] = []
    var rebuilt: [TableDigest] = []
    var differences: DatabaseDiff?
  }

  private func compare(live: [TableDigest], rebuilt: [TableDigest], shadow: ShadowDatabase) throws -> Comparison {
    let differing = zip(live, rebuilt).filter { $0 != $1 }.map(\.0.table)
    return Comparison(
      live: live, rebuilt: rebuilt, differences: differing.isEmpty ? nil : try DatabaseDiff.compare(path, shadow.path, tables: differing, rowLimit: 20))
  }

  /// The shadow tables' digests, read on another thread while the caller reads the live ones.
  private static func digests(of shadow: ShadowDatabase, tables: [String]) -> BackgroundWork<[TableDigest]> {
    let queue = shadow.queue
    return BackgroundWork { try queue.read { db in try TableDigest.compute(db, tables: tables) } }
  }

  /// Replaces the rows of the tracked tables and the merge state with the
  /// shadow's, in one transaction that appends no event; retried when
  /// writes arrived since the shadow caught up. The live tables are compared
  /// with the shadow's inside the transaction (the two digests read side by
  /// side), and only those that differ are copied: a rebuild that finds the
  /// tables right (the usual case after a migration) rewrites no row of them.
  private func swap(from shadow: ShadowDatabase, tables: [String], keepsMergeState: Bool) throws -> Comparison {
    let session = self.session
    return try writer.writeWithoutTransaction { db in
      try session.uncaptured(db, foreignKeysOff: true) { _ in
        try db.execute(sql: "ATTACH DATABASE ? AS chronicle_rebuild", arguments: [shadow.path])
        defer { try? db.execute(sql: "DETACH DATABASE chronicle_rebuild") }
        var comparison = Comparison()
        try db.inTransaction(.immediate) {
          let latest = try EventLog.lastPosition(db)
          guard latest == shadow.through else { throw ShadowBehind() }
          // Nothing is written yet: the live file as other connections read it is as this one sees it.
          let rebuilt = Self.digests(of: shadow, tables: tables)
          comparison = try compare(live: try TableDigest.compute(db, tables: tables), rebuilt: try rebuilt.value(), shadow: shadow)
          for (live, rebuilt) in zip(comparison.live, comparison.rebuilt) where live != rebuilt {
            let table = live.table
            let columns = try String.fetchAll(
              db, sql: "SELECT name FROM pragma_table_xinfo(?, 'main') WHERE hidden = 0 ORDER BY cid", arguments: [table])
              .map(quotedIdentifier).joined(separator: ", ")
            try db.execute(sql: "DELETE FROM main.\(quotedIdentifier(table))")
            try db.execute(sql: "INSERT INTO main.\(quotedIdentifier(table)) (\(columns)) SELECT \(columns) FROM chronicle_rebuild.\(quotedIdentifier(table))")
          }
          if try MergeDictionary.agrees(with: "chronicle_rebuild", db) {
            // The shadow started with this file's numbers: copied as stored,
            // unless this file holds the same already.
            try MergeDictionary.adoptNumbers(from: "chronicle_rebuild", db)
            if try !MergeStore.storedStatesAreEqual(db, to: "chronicle_rebuild") {
              try MergeStore.copyStoredStates(db, from: "chronicle_rebuild")
            }
          } else {
            try MergeStore.deleteAllStates(db)
            // Numbers given here meanwhile mean something else there: re-encoded on the way.
            let live = MergeStore(db: db)
            try MergeStore(db: db, schema: "chronicle_rebuild").forEachState { try live.save(table: $0.table, key: $0.key, $0.state) }
          }
          if keepsMergeState { try MergeApplier(db, local: peerID, localEpoch: 0).setFoldMark(latest) }
          var violations: [Row] = []
          for table in tables { violations += try Row.fetchAll(db, sql: "PRAGMA main.foreign_key_check(\(quotedIdentifier(table)))") }
          guard violations.isEmpty else {
            throw ChronicleError.rebuildFailed(
              "the rebuilt tables break \(violations.count) foreign key(s), first in \(violations[0][0] as String? ?? "?"); nothing was swapped")
          }
          // The tables are the log's projection again: nothing outside it is left.
          try UntrackedWrites.clearSuspicion(db)
          return .commit
        }
        return comparison
      }
    }
  }
}

/// The log has events the shadow has not applied yet.
struct ShadowBehind: Error {}

/// Another peer's events arrived during a rebuild that began without any.
private struct ReceivedDuringRebuild: Error {}

/// Applies events, upcast to the current shape, to the shadow tables
/// through the ``Projector``.
struct ShadowApplier {
  let localPeer: PeerID
  let upcaster: EventUpcaster
  /// Whether own events join the shadow's log, for its merges and its
  /// last fold to give them versions (a received event arriving in a
  /// rebuild begun without merge state starts it over).
  let keepsMergeState: Bool
  private let projector: Projector

  init(localPeer: PeerID, upcaster: EventUpcaster, keepsMergeState: Bool) {
    self.localPeer = localPeer
    self.upcaster = upcaster
    self.keepsMergeState = keepsMergeState
    self.projector = Projector(localPeer: localPeer, retainsDeletedRows: true)
    // A row written around Chronicle and then updated through it is not
    // in the log's projection: adopting records it, rebuilding discards it.
    projector.missingRows = .skip
  }

  /// Applies one event; returns its row operations after upcasting.
  /// - Parameter isBaseline: the event is a compaction baseline: its rows
  ///   carry the baseline's merge state, not versions of their own, so it
  ///   stays out of the shadow's log (which merges fold).
  mutating func apply(_ stored: StoredEvent, isBaseline: Bool = false, _ db: Database) throws -> Int {
    let original = stored.event
    // The shadow has the current schema: history's schema changes only
    // matter where this peer's emptied a table (a rebuild that carries its
    // rows whole, a drop). Another peer's were never executed here: merge
    // skips them, and so does a rebuild.
    var reshaped = false
    for operation in original.operations where original.origin == localPeer {
      guard case .schema(let change) = operation else { continue }
      reshaped = true
      if let emptied = Self.emptiedTable(change) {
        let current = upcaster.currentName(ofTable: emptied, writtenAt: stored.id)
        if try db.tableExists(current) { try db.execute(sql: "DELETE FROM main.\(quotedIdentifier(current))") }
      }
    }
    let event: ChangeEvent
    let rowCount: Int
    let emptiedAt = self.emptiedAt
    func keeps(_ table: String) -> Bool { emptiedAt[table].map { stored.id >= $0 } ?? true }
    // Taken out while fitting (which caches in self) works out new plans.
    var plans = UpcastPlans()
    swap(&plans, &self.plans)
    defer { swap(&plans, &self.plans) }
    if let planned = try plans.reshape(stored, upcaster: upcaster, fit: { try fitted($0, db) }, keeps: keeps) {
      (event, rowCount) = planned
    } else {
      let rows = try upcaster.rows(of: stored).compactMap { row -> UpcastRow? in
        keeps(row.table.lowercased()) ? try fitted(row, db) : nil
      }
      (event, rowCount) = (EventUpcaster.event(rows, like: original), rows.count)
    }
    if original.origin == localPeer {
      try projector.applyRecorded(event, insertsReplace: reshaped, db)
      if keepsMergeState && !isBaseline {
        let encoded = try EventCodec.encode(event, compressionLevel: 1)
        _ = try EventAppender.insert(db, event: event, encoded: encoded, rows: .unknown)
      }
    } else {
      guard keepsMergeState else { throw ReceivedDuringRebuild() }
      let encoded = try EventCodec.encode(event, compressionLevel: 1)
      do {
        try projector.merge(IncomingEvent(event: event, encoded: encoded), source: "the log") {
          // The events are in the current shape already: no upcaster.
          try TrackedTables.refresh(db)
          let merge = MergeApplier(db, local: localPeer, localEpoch: .max)
          try merge.foldLocalEvents()
          return merge
        }
      } catch let error as SyncError {
        throw ChronicleError.replayFailed(event: original.id.description, reason: "\(error)")
      }
    }
    return rowCount
  }

  /// How rows of each shape are reshaped, worked out once (see ``UpcastPlans``).
  private var plans = UpcastPlans()

  /// Each shadow table as rows name it (nil: no such table, or no key).
  private var fits: [String: TableFit?] = [:]

  /// A shadow table and its columns, to fit rows to it.
  private struct TableFit {
    var name: String
    /// Its column names as the table spells them, and lower-cased.
    var columns: Set<String>
    var lowercasedColumns: Set<String>

    /// Whether the table has `column` (case ignored); names as the table
    /// spells them, the usual case, are found without lower-casing them.
    func has(_ column: String) -> Bool {
      columns.contains(column) || lowercasedColumns.contains(column.lowercased())
    }
  }

  /// The last log position at which each table (current name, lower-cased)
  /// was emptied and refilled or dropped: rows written to it before that
  /// are skipped. They would be thrown away, and in the current shape they
  /// may not even fit (a column renamed with plain SQL, NOT NULL, has no
  /// value in them).
  var emptiedAt: [String: Int64] = [:]

  /// Finds ``emptiedAt`` from this peer's events that changed a shape:
  /// those whose schema epoch is above its previous event's. Another
  /// peer's schema changes were never executed here (each peer runs the
  /// app's migrations itself, and merge skips them), so a table it dropped
  /// or rebuilt keeps its rows here.
  static func lastEmptied(_ db: Database, upcaster: EventUpcaster, localPeer: PeerID) throws -> [String: Int64] {
    let positions = try EventLog.schemaEpochChanges(db, origin: localPeer)
    var emptied: [String: Int64] = [:]
    for position in positions {
      try EventLog.forEachEncoded(db, EventFilter(positions: position...position)) { stored, _ in
        for case .schema(let change) in stored.event.operations {
          guard let table = emptiedTable(change) else { continue }
          emptied[upcaster.currentName(ofTable: table, writtenAt: stored.id).lowercased()] = stored.id
        }
      }
    }
    return emptied
  }

  /// The row with only the columns its table has now (older writes to a
  /// column dropped outside a migration are ignored); nil when the table or
  /// a key column is gone.
  private mutating func fitted(_ row: UpcastRow, _ db: Database) throws -> UpcastRow? {
    if fits[row.table] == nil {
      fits[row.table] = .some(try TableShape.read(db, table: row.table).flatMap { shape in
        shape.primaryKey.isEmpty
          ? nil : TableFit(name: shape.name, columns: Set(shape.columns), lowercasedColumns: Set(shape.columns.map { $0.lowercased() }))
      })
    }
    guard let fit = fits[row.table]!, row.key.allSatisfy({ fit.has($0.column) }) else { return nil }
    var fitted = row
    fitted.table = fit.name
    if !fitted.values.allSatisfy({ fit.has($0.column) }) { fitted.values.removeAll { !fit.has($0.column) } }
    if fitted.kind == .update && fitted.values.isEmpty { return nil }
    return fitted
  }

  func endReceivedRun() throws {
    try projector.endReceivedRun()
  }

  /// The table a schema change emptied and refilled, or dropped, if any.
  static func emptiedTable(_ change: SchemaChange) -> String? {
    switch change {
    case .rebuildTable(let name, _, let copied, _) where copied.isEmpty:
      return name
    case .execute(let sql):
      let words = sql.split(whereSeparator: \.isWhitespace).map(String.init)
      guard words.count >= 3, words[0].uppercased() == "DROP", words[1].uppercased() == "TABLE" else { return nil }
      let name = words[2].uppercased() == "IF" && words.count >= 5 ? words[4] : words[2]
      return name.trimmingCharacters(in: CharacterSet(charactersIn: "\"`[]"))
    default:
      return nil
    }
  }
}
