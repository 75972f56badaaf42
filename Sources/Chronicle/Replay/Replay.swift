import Foundation
import GRDB

extension ChronicleLogSource {
  /// Rebuilds the database from its log alone, into a new file at `path`
  /// (which must not exist): the state at a point in history, to inspect,
  /// compare or hand to the other tools.
  ///
  /// The source peer's own events are applied as recorded, and received
  /// events are merged as sync merged them, so the replay of a whole log
  /// equals the live tables (``verify(options:)`` checks it). By default the
  /// result is itself a Chronicle database holding the replayed log; see
  /// ``ReplayOptions``.
  ///
  /// A strict replay that meets an event it cannot apply throws
  /// ``ChronicleError/replayFailed(event:reason:)`` naming the event and the
  /// reason, and leaves no file behind.
  @discardableResult
  public func replay(into path: String, options: ReplayOptions = ReplayOptions()) throws -> ReplayReport {
    guard !FileManager.default.fileExists(atPath: path) else { throw ChronicleError.outputExists(path) }
    do {
      var configuration = Configuration()
      configuration.foreignKeysEnabled = false
      configuration.prepareDatabase { db in db.addChronicleFunctions() }
      let target = try DatabaseQueue(path: path, configuration: configuration)
      // The connection is the replay's own: a page cache of up to 64 MiB
      // (SQLite's default is 2 MiB) keeps the pages that updates and
      // deletes all over the tables come back to, for its lifetime only.
      try target.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = OFF; PRAGMA cache_size = -65536") }
      let report = try replay(into: target, options: options)
      if options.keepsLog && options.tables == nil {
        // What Chronicle.open uses; switching needs no other connection.
        try target.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
      }
      try target.close()
      return report
    } catch {
      DatabaseFiles.remove(path)
      throw error
    }
  }

  /// Replays the log into `target`, an empty database, as ``replay(into:options:)-(String,_)``.
  @discardableResult
  public func replay(into target: some DatabaseWriter, options: ReplayOptions = ReplayOptions()) throws -> ReplayReport {
    let keepsLog = options.keepsLog && options.tables == nil
    let filter = EventFilter(positions: options.until?.positions)
    let total = try read { db in try EventLog.count(db, positions: filter.positions) }
    var events = 0, rows = 0, seen = 0
    var lastEvent: EventID?
    var failures: [ReplayFailure] = []
    let peer = peerID
    let (peerCreatedAt, hasReceivedEvents) = try read { db in
      (try String.fetchOne(db, sql: "SELECT created_at FROM chronicle_peer"),
       try EventLog.hasReceivedEvents(db, localPeer: peer))
    }
    let replayer = LogReplayer(localPeer: peer, tables: options.tables, keepsMergeState: keepsLog || hasReceivedEvents)
    // Strict: a row the log updates before it inserts it (written around
    // Chronicle, adopted later) is explained once the insert comes.
    if options.isStrict { replayer.missingRows = .deferUntilInserted }
    let (baseline, baselineRows) = try read { db in
      (try LogBaseline.read(db), try LogBaseline.mergeState(db))
    }
    if let baseline, let until = options.until {
      switch until {
      case .position(let position) where position < baseline.throughPosition:
        throw ChronicleError.historyCompacted(point: until.description, baseline: baseline.throughPosition)
      case .time(let time) where time < baseline.timestamp:
        throw ChronicleError.historyCompacted(point: until.description, baseline: baseline.throughPosition)
      default: break
      }
    }

    try target.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA foreign_keys = OFF")
      try db.inTransaction {
        try LogReplayer.prepareTarget(db)
        if let baseline { try replayer.applyBaseline(baseline, mergeState: baselineRows, keepsLog: keepsLog, db) }
        try read { source in
          try EventLog.forEachEncoded(source, filter) { stored, bytes in
            seen += 1
            if seen % 256 == 0 { options.progress?(ReplayProgress(eventsRead: seen, totalEvents: total, rowChanges: rows)) }
            guard options.until?.includes(stored) ?? true else { return }
            if options.isStrict {
              try replayer.apply(stored, bytes: bytes, db)
            } else {
              let checkpoint = replayer.checkpoint()
              do {
                try db.inSavepoint {
                  try replayer.apply(stored, bytes: bytes, db)
                  try replayer.endReceivedRun()
                  return .commit
                }
              } catch let error as ChronicleError {
                replayer.restore(checkpoint)
                let reason = if case .replayFailed(_, let reason) = error { reason } else { "\(error)" }
                failures.append(ReplayFailure(position: stored.id, event: stored.event.id, reason: reason))
                return
              }
            }
            events += 1
            rows += stored.event.rowChangeCount
            lastEvent = stored.event.id
          }
        }
        try replayer.finish(db)
        if keepsLog {
          try Self.finishChronicleDatabase(db, peer: peerID, createdAt: peerCreatedAt)
        } else {
          try Self.keepOnlyTables(db, selection: options.tables.map(TableSelection.init))
        }
        return .commit
      }
    }
    options.progress?(ReplayProgress(eventsRead: seen, totalEvents: total, rowChanges: rows))
    let digests = options.computesDigests ? try target.read { db in try TableDigest.compute(db) } : []
    return ReplayReport(eventCount: events, rowChangeCount: rows, lastEvent: lastEvent, failures: failures, digests: digests)
  }

  /// Makes the target a Chronicle database of the source's peer that opens
  /// without logging anything: its peer, tracked tables and logged schema.
  private static func finishChronicleDatabase(_ db: Database, peer: PeerID, createdAt: String?) throws {
    try db.execute(
      sql: "INSERT INTO chronicle_peer (singleton, peer_id, created_at) VALUES (1, ?, ?)",
      arguments: [Data(peer.bytes), createdAt ?? ISO8601DateFormatter().string(from: Date())])
    try TrackedTables.refresh(db)
    try SchemaStore.saveLoggedSnapshot(try SchemaSnapshot.read(db), db)
  }

  /// Drops Chronicle's tables, and the tables a partial replay leaves out.
  private static func keepOnlyTables(_ db: Database, selection: TableSelection?) throws {
    let kept = try selection?.keptTables(db)
    let tables = try String.fetchAll(db, sql: "SELECT name FROM main.sqlite_schema WHERE type = 'table' ORDER BY name")
    for table in tables where !table.lowercased().hasPrefix("sqlite_") {
      let isChronicle = InternalSchema.isReserved(table)
      guard isChronicle || kept.map({ !$0.contains(table.lowercased()) }) ?? false else { continue }
      try db.execute(sql: "DROP TABLE main.\(quotedIdentifier(table))")
    }
  }
}
