import Foundation
import GRDB

/// What a compaction did.
public struct CompactionReport: Sendable {
  /// The log position of the last pruned event; nil when nothing could be pruned.
  public var throughPosition: Int64?
  /// Events pruned.
  public var prunedEvents: Int
  /// Events left in the log.
  public var remainingEvents: Int
  /// Rows the baseline holds.
  public var baselineRows: Int
  /// Bytes of the pruned events' payloads, and of the baseline's.
  public var prunedBytes: Int
  public var baselineBytes: Int
}

extension ChronicleDatabase {
  /// Replaces the oldest events with a baseline: the state of the tables
  /// they led to. Only a prefix of the log whose events `vector` covers is
  /// pruned: give the version vector every known peer has acknowledged
  /// (each has every event it covers), so no peer needs a pruned event.
  ///
  /// Replay, verify, rebuild and step then start from the baseline; a peer
  /// that still lacks a pruned event can no longer get it from this one
  /// (``SyncError/compactedAway(source:origin:needed:baseline:)``), and a new
  /// peer starts from a copy (``clone(into:)``).
  @discardableResult
  public func compact(before vector: VersionVector) throws -> CompactionReport {
    let previous = try baseline()
    // The longest prefix of the log that the vector covers and that holds
    // each origin's events without a gap (so the baseline is a vector too).
    var covered = previous?.vector ?? VersionVector()
    let through = try read { db -> Int64? in
      var last: Int64?
      // Events refused here for good count as held, as in the version
      // vector; not a revoked device's events still waiting for the rest of
      // their chain (they are taken later, into the log).
      var settled = try RefusedEvents(db: db).settledSequences()
      let membership = GroupMembership(db: db)
      for origin in settled.keys {
        guard let top = try membership.member(origin)?.lastCheckpoint else { continue }
        settled[origin] = settled[origin]?.filter { $0 > top }
      }
      try EventLog.scanRecords(db) { record in
        guard let origin = record.origin else { return false }
        while let refused = settled[origin], refused.contains(covered[origin] + 1), vector.contains(origin: origin, sequence: covered[origin] + 1) {
          covered[origin] += 1
        }
        guard vector.contains(origin: origin, sequence: record.sequence), record.sequence == covered[origin] + 1 else { return false }
        covered[origin] = record.sequence
        last = record.position
        return true
      }
      return last
    }
    guard let through else {
      return CompactionReport(
        throughPosition: nil, prunedEvents: 0, remainingEvents: try log.count(), baselineRows: 0, prunedBytes: 0, baselineBytes: 0)
    }

    // The state at that point, from the log alone (and the older baseline).
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-compact-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let snapshotPath = directory.appendingPathComponent("baseline.sqlite").path
    try replay(into: snapshotPath, options: ReplayOptions(until: .position(through), computesDigests: false))
    let peer = peerID
    let (baseline, mergeRows, rowCount) = try DatabaseQueue(path: snapshotPath).write { db in
      try MergeApplier(db, local: peer, localEpoch: UInt64.max).foldLocalEvents()
      let (event, rows) = try Self.baselineEvent(db, peer: peer, previous: previous)
      let encoded = try EventCodec.encode(event, compressionLevel: 6)
      let epoch = try EventLog.lastSchemaEpoch(db, origin: peer)
      let hlc = try LocalLogPosition.latestClock(db)
      let baseline = LogBaseline(
        throughPosition: through, vector: covered, timestamp: hlc,
        schemaEpoch: epoch ?? previous?.schemaEpoch ?? 0, event: event, bytes: encoded.bytes)
      return (baseline, try MergeStore(db: db).allStates(), rows)
    }

    let session = self.session
    return try writer.writeWithoutTransaction { db in
      try session.uncaptured(db) { _ in
        var report = CompactionReport(
          throughPosition: through, prunedEvents: 0, remainingEvents: 0, baselineRows: rowCount, prunedBytes: 0, baselineBytes: baseline.bytes.count)
        try db.inTransaction(.immediate) {
          // The live merge state must have seen every pruned event.
          let applier = try MergeApplier.forMerging(db, local: peer, localEpoch: .max)
          try applier.foldLocalEvents()
          try applier.finishBatch()
          report.prunedBytes = try EventLog.storedBytes(db, through: through)
          try baseline.save(db, mergeState: mergeRows)
          report.prunedEvents = try EventLog.removeEvents(db, through: through)
          report.remainingEvents = try EventLog.count(db)
          return .commit
        }
        return report
      }
    }
  }

  /// The baseline event of a replayed snapshot: its schema, the migrations
  /// recorded so far, and every row of its tracked tables.
  static func baselineEvent(_ db: Database, peer: PeerID, previous: LogBaseline?) throws -> (ChangeEvent, Int) {
    var operations: [EventOperation] = []
    var tables: [TableDescriptor] = []
    for object in try SchemaSnapshot.read(db).objects { operations.append(.schema(.execute(sql: object.sql))) }
    var migrations: [SchemaMigration] = []
    if let previous {
      for case .schema(.migration(let migration)) in previous.event.operations { migrations.append(migration) }
    }
    try EventLog.forEach(db) { stored in
      for case .schema(.migration(let migration)) in stored.event.operations where stored.event.origin == peer { migrations.append(migration) }
    }
    operations += migrations.map { .schema(.migration($0)) }
    var rowCount = 0
    for name in try TrackedTables.names(db) {
      guard let shape = try TableShape.read(db, table: name) else { continue }
      let index = tables.count
      tables.append(TableDescriptor(name: shape.name, columns: shape.columns, primaryKey: shape.primaryKey))
      try db.forEachRow(sql: "SELECT \(shape.columns.map(quotedIdentifier).joined(separator: ", ")) FROM main.\(quotedIdentifier(shape.name))", cached: false) { values in
        operations.append(.insert(table: index, values: values))
        rowCount += 1
      }
    }
    let clock = try LocalLogPosition.latestClock(db)
    return (ChangeEvent(origin: peer, sequence: 1, timestamp: clock, schemaEpoch: 0, tables: tables, operations: operations), rowCount)
  }
}
