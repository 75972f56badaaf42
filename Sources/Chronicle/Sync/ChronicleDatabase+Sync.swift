import Foundation
import GRDB

/// What applying a batch of remote events did.
public struct MergeReport: Sendable, Equatable {
  /// Events merged and stored in the log.
  public var appliedEvents = 0
  /// Events the log already held (no-ops).
  public var duplicateEvents = 0
  /// Row operations merged.
  public var rowChanges = 0
  /// Rows parked after the batch (waiting for an insert or a parent).
  public var parkedRows = 0
  /// Received events refused (recorded in the database, listed by
  /// ``ChronicleLogSource/refusedEvents()``); the rest applied without them.
  public var refused: [RefusedEvent] = []

  public init() {}

  /// Adds a later batch's counts; the parked rows are the later batch's.
  package mutating func add(_ batch: MergeReport) {
    appliedEvents += batch.appliedEvents
    duplicateEvents += batch.duplicateEvents
    rowChanges += batch.rowChanges
    parkedRows = batch.parkedRows
    refused += batch.refused
  }
}

/// A row that is live but not in its table, as `chronicle parked` shows it.
public struct ParkedRow: Sendable, Equatable {
  public var table: String
  /// The primary key values, in key order.
  public var key: [SQLiteValue]
  /// `incomplete` (an update came before the row's insert) or `parent` (a
  /// foreign key's parent row is absent).
  public var reason: String
  /// The column values known so far.
  public var values: [String: SQLiteValue]
}

extension ChronicleLogSource {
  /// The version vector of this database's log.
  public func versionVector() throws -> VersionVector {
    try read { db in try VersionVector.read(db) }
  }

  /// The received events this database refused, most recent first (see
  /// ``MergeReport/refused``).
  public func refusedEvents() throws -> [RefusedEvent] {
    try read { db in try RefusedEvents(db: db).all() }
  }

  /// Rows that are live but not in their table, and why.
  public func parkedRows() throws -> [ParkedRow] {
    try read { db in
      try MergeStore(db: db).parked().map { named in
        ParkedRow(
          table: named.table, key: try MergeStateKey.decode(named.key), reason: named.state.parkedReason?.rawValue ?? "",
          values: named.state.retained ?? [:])
      }
    }
  }
}

extension ChronicleDatabase {
  /// Serialized events this log holds beyond `vector`, in log order;
  /// only those of `origin` when given. This device's events are signed
  /// first (see ``identity``).
  public func serializedEvents(beyond vector: VersionVector, origin: PeerID? = nil) throws -> [[UInt8]] {
    var events: [[UInt8]] = []
    try forEachSerializedEvent(beyond: vector, origin: origin) { events.append(Array($0)) }
    return events
  }

  /// Each serialized event beyond `vector`, in log order, handed to `body`
  /// inside one read of the log (nothing is held beyond the event at hand).
  func forEachSerializedEvent(beyond vector: VersionVector, origin: PeerID? = nil, _ body: (Data) throws -> Void) throws {
    try sealOwnEvents()
    try read { db in
      try LogBaseline.requireCovered(vector, origin: origin, in: db)
      if let origin {
        for payload in try EventLog.payloads(db, origin: origin, sequencesAfter: vector[origin]) { try body(payload) }
        return
      }
      // Log order, from the first event any origin lacks: what is read
      // grows with what the other side lacks, not with the log.
      if let positions = try EventLog.summary(db, beyond: vector).positions {
        try EventLog.scanRecords(db, after: positions.lowerBound - 1, through: positions.upperBound, payloads: true) { record in
          guard let eventOrigin = record.origin, !vector.contains(origin: eventOrigin, sequence: record.sequence),
                let payload = record.payload else { return true }
          try body(payload)
          return true
        }
      }
      // Events refused here for good that the other side lacks: it settles
      // them too, rather than asking for them at every sync.
      for kept in try RefusedEvents.passedOn(beyond: vector, db) { try body(Data(kept.bytes)) }
    }
  }

  /// Merges remote events (per-column last-write-wins) in one transaction:
  /// all of them, or, on any error, none. They join the log with their
  /// origin, and create no local event.
  ///
  /// A bundle of more than a batch of events (about a thousand, or 1 MiB)
  /// is decoded and merged a batch at a time, still in one transaction:
  /// memory holds the bundle's bytes and one batch, whatever its length.
  /// When a row breaks a constraint of this database, the bundle is merged
  /// again a batch per transaction, and the event that brings the row is
  /// refused alone.
  public func applyRemote(bundle bytes: [UInt8], source: String) throws -> MergeReport {
    switch try EventBundle.envelope(bytes, source: source) {
    case .incomplete(let declared, let found):
      throw SyncError.badBundle(source: source, offset: found, reason: "truncated: \(found) of \(declared) bytes")
    case .complete(let serialized):
      let batches = Self.batches(of: serialized.events, maxEvents: bundleBatchEvents, maxBytes: Self.bundleBatchBytes)
      let report = batches.count > 1
        ? try applyRemote(serialized, inBatches: batches, source: source)
        : try applyRemote(try serialized.decoded(0..<serialized.events.count, source: source, gate: try decodeGate()), source: source)
      // The origins' signatures for relays: this database may forward the events.
      try saveEventRoutes(serialized.routes)
      return report
    }
  }

  /// About the most bytes of a bundle decoded and merged at once (as the
  /// transports' batches: ``MemoryTransport/maxBatchBytes``).
  static let bundleBatchBytes = 1 << 20

  /// Consecutive ranges of `events`, each of at most `maxEvents` events and
  /// about `maxBytes` (at least one event).
  static func batches(of events: [[UInt8]], maxEvents: Int, maxBytes: Int) -> [Range<Int>] {
    var batches: [Range<Int>] = []
    var start = 0, bytes = 0
    for (index, event) in events.enumerated() {
      if index > start && (index - start >= maxEvents || bytes + event.count > maxBytes) {
        batches.append(start..<index)
        (start, bytes) = (index, 0)
      }
      bytes += event.count
    }
    if start < events.count { batches.append(start..<events.count) }
    return batches
  }

  /// A long bundle merged in one transaction, a batch at a time (see
  /// ``applyRemote(bundle:source:)``).
  private func applyRemote(_ serialized: EventBundle.SerializedEvents, inBatches batches: [Range<Int>], source: String) throws -> MergeReport {
    // Every event's clock first, from its envelope (each is verified whole
    // when its batch is decoded, before anything commits).
    var oldest: HLCTimestamp?
    var refusals: [EventRefusal] = []
    // Events refused for good already are held as such.
    let settled = try read { db in try RefusedEvents(db: db).settledChecksums() }
    var excluded: Set<EventID> = []
    for (index, bytes) in serialized.events.enumerated() {
      let header: (origin: PeerID, sequence: UInt64, timestamp: HLCTimestamp)
      do {
        header = try EventCodec.decodeHeader(bytes)
      } catch {
        throw SyncError.badBundle(source: source, offset: serialized.starts[index] + error.offset, reason: "event \(index + 1): \(error)")
      }
      do {
        _ = try clock.receive(header.timestamp)
      } catch {
        let id = EventID(origin: header.origin, sequence: header.sequence)
        // The same copy as one refused for good is held; any other is refused.
        excluded.insert(id)
        guard settled[id] != EventCodec.storedChecksum(of: bytes) else { continue }
        refusals.append(EventRefusal(id: id, reason: "\(error.description): fix the clock of the device that wrote it", bytes: bytes.count))
        continue
      }
      oldest = min(oldest ?? header.timestamp, header.timestamp)
    }
    // Local history the merge needs folded is folded first, in slices of
    // its own (a fold by rows would need every received row at once).
    if let oldest, try mergeNeedsPreparation(forEventsFrom: oldest) { try prepareMergeState(since: oldest) }
    var membershipChanged = false
    let gate = try decodeGate()
    // Refused events are taken out, and the whole bundle merged again.
    while true {
      do {
        let report = try inMergeTransaction { uncaptured, db in
          var report = MergeReport()
          for batch in batches {
            let decoded = try serialized.decoded(batch, source: source, gate: gate)
            let held = decoded.filter { settled[$0.event.id] == $0.encoded.checksum }.map(\.event.id)
            let events = decoded.filter { !excluded.contains($0.event.id) && !held.contains($0.event.id) }
            report.duplicateEvents += held.count
            let merged = try merge(events, refused: [], source: source, planned: nil, uncaptured, db, recordsRefusals: false)
            report.add(merged.report)
            membershipChanged = membershipChanged || merged.membershipChanged
          }
          try RefusedEvents(db: db).record(refusals, source: source, now: clock.wallTime)
          report.refused = refusals.map { RefusedEvent($0, source: source) }
          if refusals.contains(where: \.settled) { try VersionVector.saveCheckpoint(db) }
          if try Self.keepMembershipHistory(of: refusals, db) { membershipChanged = true }
          return report
        }
        return try readmitRefusedEvents(after: report, membershipChanged: membershipChanged)
      } catch let refused as RefusedInBatch {
        let ids = Set(refused.refusals.map(\.id))
        guard !ids.isSubset(of: excluded) else { throw SyncError.forgedEvent(source: source, event: "-", reason: "a refusal named no event of the batch") }
        excluded.formUnion(ids)
        refusals += refused.refusals
        membershipChanged = false
      } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
        // A row breaks a constraint of this database: the bundle is merged a
        // batch at a time instead, each finding the event that brings it by
        // halves and refusing it alone, as a batch from any transport does.
        var report = MergeReport()
        var unrecorded = refusals
        var conflicting: [IncomingEvent] = []
        for batch in batches {
          let events = try serialized.decoded(batch, source: source, gate: gate).filter { !excluded.contains($0.event.id) }
          let merged = try applyRemote(events, refused: unrecorded, source: source)
          unrecorded = []
          let refusedForConstraints = Set(
            merged.refused.filter { $0.reason.hasPrefix(Self.constraintRefusal) }.map { EventID(origin: $0.origin, sequence: $0.sequence) })
          conflicting += events.filter { refusedForConstraints.contains($0.event.id) }
          report.add(merged)
        }
        // A later event of the bundle may have resolved the conflict (the
        // row renamed in another batch): those refused are tried once more.
        if !conflicting.isEmpty {
          var retried = try applyRemote(conflicting, source: source)
          let stillRefused = Set(retried.refused.map { EventID(origin: $0.origin, sequence: $0.sequence) })
          let taken = Set(conflicting.map(\.event.id)).subtracting(stillRefused)
          report.refused.removeAll { taken.contains(EventID(origin: $0.origin, sequence: $0.sequence)) }
          retried.refused = []
          report.add(retried)
        }
        return report
      }
    }
  }

  /// How the reason of an event refused for a row that breaks a constraint starts.
  static let constraintRefusal = "a row it writes breaks a constraint of this database"

  /// Records events received from `source` that could not be read at all
  /// (a sealed event that does not open, for one), and returns them as a
  /// merge reports them. Nothing counts them as held: a good copy is taken
  /// when one comes.
  package func recordUnreadableEvents(_ events: [(id: EventID, reason: String, bytes: Int)], source: String) throws -> [RefusedEvent] {
    let refusals = events.map { EventRefusal(id: $0.id, reason: $0.reason, bytes: $0.bytes) }
    guard !refusals.isEmpty else { return [] }
    return try writer.write { db in
      let held = try Set(refusals.map(\.id).filter { try EventLog.contains(db, origin: $0.origin, sequence: $0.sequence) })
      try RefusedEvents(db: db).record(refusals, source: source, now: clock.wallTime, unlessHeld: true)
      return refusals.filter { !held.contains($0.id) }.map { RefusedEvent($0, source: source) }
    }
  }

  /// Runs `body` in the transaction a merge takes, committed when it
  /// returns: writes uncaptured, foreign keys off (rows arrive in any order,
  /// and a cascade here would delete rows that no event deleted:
  /// settleForeignKeys checks instead), guard triggers skipped, and a page
  /// cache for the pages of the tables and their merge state that SQLite's
  /// default cache would have evicted before the merge comes back to them.
  private func inMergeTransaction<Outcome>(_ body: (UncapturedWrites, Database) throws -> Outcome) throws -> Outcome {
    let session = self.session
    return try writer.writeWithoutTransaction { db in
      try session.uncaptured(db, foreignKeysOff: true, guardsSkipped: true) { uncaptured in
        var outcome: Outcome?
        try db.inTransaction(.immediate) {
          outcome = try db.withPageCache(kibibytes: 65_536) { try body(uncaptured, db) }
          return .commit
        }
        return outcome!
      }
    }
  }

  /// Brings the merge state up to date with the log, so that the merges
  /// that follow start at once: the first merge into a database reads its
  /// whole history into merge state first (local writes do not keep it),
  /// which takes seconds per million events.
  ///
  /// It works in transactions of about `slice` each, committed one after
  /// another, and work done before an interruption is kept. The app's own
  /// writes, queued on this database, take their turn between two slices;
  /// other processes get `pause` between them to take the lock (SQLite's
  /// busy handler retries every 100 ms at most), so that a long history
  /// does not hold the file past their busy timeout. A peer serving a sync
  /// runs it before the events arrive, and tells the sender how far it is
  /// (`progress`: events read, of how many) rather than keeping it waiting
  /// in silence.
  ///
  /// Given `since` (the clock of the oldest write about to be merged), it
  /// folds only this peer's events from that clock on: the merge goes
  /// ahead of older ones (see ``FoldMarks``).
  package func prepareMergeState(
    slice: Duration = .seconds(1), pause: Duration = .milliseconds(100), since: HLCTimestamp? = nil,
    progress: ((_ folded: Int, _ total: Int) -> Void)? = nil
  ) throws {
    var folded = 0
    var total: Int?
    while true {
      var foldedNow = 0
      let caughtUp = try foldLocalEvents(until: .now + slice, since: since) { applier in
        guard let progress else { return }
        applier.foldProgressTotal = total.map { max($0 - folded, 0) }
        applier.foldProgress = { done, left in
          foldedNow = done
          if total == nil { total = left }
          progress(folded + done, max(total ?? 0, folded + done))
        }
      }
      folded += foldedNow
      if caughtUp { return }
      Thread.sleep(forTimeInterval: pause / .seconds(1))
    }
  }

  /// Folds local events into merge state in a transaction of its own,
  /// stopping at the first event boundary past `deadline`; returns whether
  /// the merge state has caught up with the log.
  func foldLocalEvents(
    until deadline: ContinuousClock.Instant, since: HLCTimestamp? = nil, _ configure: (MergeApplier) -> Void = { _ in }
  ) throws -> Bool {
    let peer = peerID
    let session = self.session
    return try writer.writeWithoutTransaction { db in
      try session.uncaptured(db, foreignKeysOff: true) { _ in
        var caughtUp = false
        try db.inTransaction(.immediate) {
          let applier = try MergeApplier.forMerging(db, local: peer)
          configure(applier)
          caughtUp = try applier.foldLocalEvents(until: deadline, since: since)
          return .commit
        }
        return caughtUp
      }
    }
  }

  /// Whether local events wait to be folded into merge state (see
  /// ``prepareMergeState(slice:pause:progress:)``).
  func hasUnfoldedEvents() throws -> Bool {
    try writer.read { db in try Self.hasUnfoldedEvents(db) }
  }

  private static func hasUnfoldedEvents(_ db: Database) throws -> Bool {
    try EventLog.lastPosition(db) > ChronicleMeta(db: db).value(.mergeFoldedThrough) ?? 0
  }

  /// What merging `events` needs of local history not folded yet, read
  /// before the merge's transaction: the clock from which local events must
  /// be folded whole first (see ``LocalHistoryForMerge``), or the fold by
  /// the rows received that the merge will run itself (``TouchedRowFold``),
  /// with the log position it was planned at.
  private enum FoldNeeded {
    case none
    case whole(since: HLCTimestamp)
    case byRows(TouchedRowFold, plannedAt: Int64)
  }

  private func foldNeeded(for events: [IncomingEvent]) throws -> FoldNeeded {
    let local = peerID
    let minimumEvents = rowFoldMinimumEvents
    return try writer.read { db in
      guard case .mustFold(let since) = try Self.localHistory(for: events, local: local, db) else { return .none }
      let applier = try MergeApplier.forMerging(db, local: local)
      guard let fold = try TouchedRowFold.plan(db, events: events, since: since, applier: applier, minimumEvents: minimumEvents)
      else { return .whole(since: since) }
      return .byRows(fold, plannedAt: try EventLog.lastPosition(db))
    }
  }

  /// Whether a merge of events whose oldest is `oldest` (nil: not known)
  /// will first fold local history into merge state: what a peer about to
  /// receive them asks before it says it is ready.
  package func mergeNeedsPreparation(forEventsFrom oldest: HLCTimestamp?) throws -> Bool {
    let local = peerID
    let minimumEvents = rowFoldMinimumEvents
    return try writer.read { db in
      guard let unfolded = try MergeApplier.unfoldedOwnEvents(db, local: local) else { return false }
      guard let oldest else { return true }
      guard oldest <= unfolded.latest else { return false }
      // Folded by rows as the events merge, when the index covers them.
      return try !TouchedRowFold.mayApply(db, since: oldest, applier: MergeApplier.forMerging(db, local: local), minimumEvents: minimumEvents)
    }
  }

  /// What merging a batch needs of local history not folded into merge state.
  enum LocalHistoryForMerge: Equatable {
    /// Nothing: it is all folded, or the batch changes no rows the log lacks
    /// (schema changes, events held already).
    case nothing
    /// Nothing either: every row change the log lacks is newer than every
    /// local event not folded, so it merges ahead of them
    /// (``MergeApplier/mergesAheadOfLocalHistory``).
    case mergesAhead
    /// This peer's events from `since` on (the oldest row change the log
    /// lacks) must be folded first; then it merges ahead of the others.
    case mustFold(since: HLCTimestamp)
  }

  static func localHistory(for events: [IncomingEvent], local: PeerID, _ db: Database) throws -> LocalHistoryForMerge {
    guard try hasUnfoldedEvents(db) else { return .nothing }
    let unfolded = try MergeApplier.unfoldedOwnEvents(db, local: local)?.latest
    var oldest: HLCTimestamp?
    for incoming in events {
      let event = incoming.event
      guard event.operations.contains(where: { $0.tableIndex != nil }),
            try !EventLog.contains(db, origin: event.origin, sequence: event.sequence) else { continue }
      oldest = min(oldest ?? event.timestamp, event.timestamp)
    }
    guard let oldest else { return .nothing }
    if let unfolded, oldest <= unfolded { return .mustFold(since: oldest) }
    return .mergesAhead
  }

  /// Merges received events in one transaction. An event refused for what
  /// it is (its signature, its origin's membership or role, a clock far
  /// ahead, a different copy of an event the log holds) is recorded in
  /// `chronicle_refused_events` and reported, and the rest of the batch
  /// applies without it: no single event stops a sync.
  func applyRemote(_ events: [IncomingEvent], refused: [EventRefusal] = [], source: String) throws -> MergeReport {
    var refusals = refused
    var batch: [IncomingEvent] = []
    batch.reserveCapacity(events.count)
    // Events refused for good already are held as such.
    let settled = try read { db in try RefusedEvents(db: db).settledChecksums() }
    func isHeldRefused(_ incoming: IncomingEvent) -> Bool { settled[incoming.event.id] == incoming.encoded.checksum }
    for incoming in events where !isHeldRefused(incoming) {
      do {
        _ = try clock.receive(incoming.event.timestamp)
        batch.append(incoming)
      } catch {
        refusals.append(EventRefusal(incoming, reason: "\(error.description): fix the clock of the device that wrote it", settled: false))
      }
    }
    // Join requests among them are admitted first when this device is an
    // admin (an event of its own), so the new device's events are admitted too.
    let requests = batch.compactMap { incoming -> MembershipEvent? in
      guard incoming.event.operations.count == 1, case .membership(.join) = incoming.event.operations[0] else { return nil }
      return try? MembershipEvent(verifying: incoming.encoded.bytes)
    }
    if !requests.isEmpty { try admitJoinRequests(received: requests) }
    // A local history not folded yet is folded first, in slices of its own,
    // so that the merge's transaction does not hold the database for it.
    let needed = try foldNeeded(for: batch)
    if case .whole(let since) = needed { try prepareMergeState(since: since) }
    // A fold by rows planned before the transaction serves in it while the
    // log has not moved since.
    var planned: (fold: TouchedRowFold, at: Int64)?
    if case .byRows(let fold, let position) = needed { planned = (fold, position) }
    var (report, membershipChanged) = try mergeRefusing(batch, refused: refusals, source: source, planned: planned)
    report.duplicateEvents += events.count(where: isHeldRefused)
    // An admin's device shares the group's current key with members that
    // lack it, or starts a new epoch when the current one reached a device
    // revoked since.
    if membershipChanged { try tendGroupKeys() }
    return try readmitRefusedEvents(after: report, membershipChanged: membershipChanged)
  }

  /// Merges `batch` in one transaction, taking out each event the checks
  /// refuse and merging the rest again, and records the refusals (those of
  /// `refused` too) unless `recordsRefusals` is false.
  private func mergeRefusing(
    _ batch: [IncomingEvent], refused: [EventRefusal], source: String, planned: (fold: TouchedRowFold, at: Int64)?,
    recordsRefusals: Bool = true
  ) throws -> (report: MergeReport, membershipChanged: Bool) {
    var batch = batch, refusals = refused
    while true {
      do {
        return try inMergeTransaction { uncaptured, db in
          try merge(batch, refused: refusals, source: source, planned: planned, uncaptured, db, recordsRefusals: recordsRefusals)
        }
      } catch let refused as RefusedInBatch {
        // Merged again without them (what the refused events' checks stored
        // rolled back with the transaction).
        let ids = Set(refused.refusals.map(\.id))
        let before = batch.count
        batch.removeAll { ids.contains($0.event.id) }
        guard batch.count < before else { throw SyncError.forgedEvent(source: source, event: "-", reason: "a refusal named no event of the batch") }
        refusals += refused.refusals
      } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
        // A row the batch writes breaks a constraint of this database (two
        // devices wrote the same UNIQUE value, say): the event that brings
        // it is found by halves and refused alone (open: taken once the
        // conflict is resolved), the rest merges.
        guard batch.count > 1 else {
          guard let event = batch.first else { throw error }
          refusals.append(EventRefusal(
            event,
            reason: Self.constraintRefusal + " (\(error.message ?? "\(error)")): "
              + "change the conflicting value on one device; it is taken at the sync after",
            settled: false))
          batch = []
          continue
        }
        let half = batch.count / 2
        let first = try mergeRefusing(Array(batch[..<half]), refused: refusals, source: source, planned: nil, recordsRefusals: recordsRefusals)
        let second = try mergeRefusing(Array(batch[half...]), refused: [], source: source, planned: nil, recordsRefusals: recordsRefusals)
        var report = first.report
        report.add(second.report)
        return (report, first.membershipChanged || second.membershipChanged)
      }
    }
  }

  /// After the member list changed, or a batch merged: the events whose
  /// refusal was settled (a revoked device's late writes, a reader's, a
  /// revoked device's earlier events waiting for the rest of their chain)
  /// are admitted if they now may be, and stay refused otherwise.
  ///
  /// Only those the member list now lets in are merged, each on its own
  /// (a revoked device's events that its chain now proves, together): one
  /// that still fails (a newer schema, say) stays refused and stops none of
  /// the others, and nothing of it reaches the caller. A kept event that
  /// turns out not to lead to its revoked device's checkpoints is refused
  /// open, so that a good copy is asked for again.
  func readmitRefusedEvents(after report: MergeReport, membershipChanged: Bool = true) throws -> MergeReport {
    // (Each kept event was refused as a write: it is one now if the member
    // list lets its device write at that sequence.) A revoked device's
    // events proven by their chain are merged together, as they came.
    // Without a change of the member list, only those can have changed.
    let (candidates, rewritten) = try read { db -> ([[EventID]], [EventID]) in
      let refused = RefusedEvents(db: db)
      guard try !refused.isEmpty() else { return ([], []) }
      let membership = GroupMembership(db: db)
      let group = try membership.group()
      var candidates: [[EventID]] = [], rewritten: [EventID] = []
      for origin in try refused.keptOrigins() {
        let member = try membership.member(origin)
        let top = member?.lastCheckpoint
        guard membershipChanged || top != nil else { continue }
        var state = GroupState(group: group ?? UUID())
        if let member { state.members[origin] = member }
        var verdicts: [UInt64: RevokedHistory.Verdict]?
        var proven: [EventID] = []
        for sequence in try refused.keptSequences(of: origin) {
          let id = EventID(origin: origin, sequence: sequence)
          if group != nil, state.refusal(ofEventFrom: origin, sequence: sequence, writes: true) != nil { continue }
          guard let member, let top, sequence <= top else {
            candidates.append([id])
            continue
          }
          if verdicts == nil { verdicts = try RevokedHistory.verdicts(of: origin, checkpoints: member.checkpoints, db) }
          switch verdicts?[sequence] {
          case .waiting?: break
          case .rewritten?, .belowRewritten?: rewritten.append(id)
          case .proven?, .unlinked?, nil: proven.append(id)
          }
        }
        if !proven.isEmpty { candidates.append(proven) }
      }
      return (candidates, rewritten)
    }
    if !rewritten.isEmpty {
      try writer.write { db in for id in rewritten { try RefusedEvents(db: db).reopen(id) } }
    }
    var merged = report
    for ids in candidates {
      let incoming = try ids.compactMap { id -> IncomingEvent? in
        guard let bytes = try read({ db in try RefusedEvents(db: db).keptEvent(id) }),
              let decoded = try? EventCodec.decodeEncoded(bytes)
        else { return nil }
        return IncomingEvent(event: decoded.event, encoded: decoded.encoded)
      }
      var retried = (try? mergeRefusing(incoming, refused: [], source: "an event refused earlier", planned: nil, recordsRefusals: false).report)
        ?? MergeReport()
      retried.refused = []
      merged.add(retried)
      // Admissible, yet not taken (a table this database lacks, say): made
      // open, so that it is asked for again rather than counted as held.
      // Taken: not reported as refused (a revoked device's event that
      // waited within the batch that then proved it).
      let taken = try writer.write { db -> Set<EventID> in
        var taken: Set<EventID> = []
        for id in ids {
          if try EventLog.contains(db, origin: id.origin, sequence: id.sequence) { taken.insert(id) } else { try RefusedEvents(db: db).reopen(id) }
        }
        return taken
      }
      merged.refused.removeAll { taken.contains(EventID(origin: $0.origin, sequence: $0.sequence)) }
    }
    return merged
  }

  /// Admits and merges received events, inside the caller's transaction,
  /// and records `refused` (events the caller took out of the batch).
  /// Returns whether the batch changed the member list. Throws
  /// ``RefusedInBatch`` when events of the batch are refused: the caller
  /// rolls back and merges again without them.
  private func merge(
    _ events: [IncomingEvent], refused: [EventRefusal], source: String, planned: (fold: TouchedRowFold, at: Int64)?,
    _ uncaptured: UncapturedWrites, _ db: Database, recordsRefusals: Bool = true
  ) throws -> (report: MergeReport, membershipChanged: Bool) {
    var report = MergeReport()
    var membershipChanged = false
    if !events.isEmpty {
      (report, membershipChanged) = try merge(events, source: source, planned: planned, uncaptured, db)
    }
    if recordsRefusals {
      try RefusedEvents(db: db).record(refused, source: source, now: clock.wallTime)
      report.refused = refused.map { RefusedEvent($0, source: source) }
      if refused.contains(where: \.settled) { try VersionVector.saveCheckpoint(db) }
      if try Self.keepMembershipHistory(of: refused, db) { membershipChanged = true }
    }
    return (report, membershipChanged)
  }

  /// Keeps the membership events among settled refusals (a revoked admin's
  /// late changes) in the group's history, whose rules void or refuse them
  /// themselves: a change that builds on one would otherwise wait for it
  /// here for good, while devices that took it before the revocation
  /// applied it, and the member lists would differ. Returns whether the
  /// history gained any.
  static func keepMembershipHistory(of refusals: [EventRefusal], _ db: Database) throws -> Bool {
    let membership = GroupMembership(db: db)
    guard try db.tableExists("chronicle_membership_events"), let group = try membership.group() else { return false }
    var stored = false
    for refusal in refusals where refusal.settled {
      guard let bytes = refusal.kept, let event = try? MembershipEvent(stored: bytes), event.otherGroup(than: group) == nil else { continue }
      if try membership.store(event) { stored = true }
    }
    if stored { try membership.resolve() }
    return stored
  }

  /// Admits and merges received events, inside the caller's transaction.
  private func merge(
    _ events: [IncomingEvent], source: String, planned: (fold: TouchedRowFold, at: Int64)?, _ uncaptured: UncapturedWrites, _ db: Database
  ) throws -> (report: MergeReport, membershipChanged: Bool) {
    // Every event must come from the device it names: the signatures are
    // checked on other cores while the events merge, and the transaction
    // commits only once all passed (a refused one rolls it back, and the
    // batch is merged again without it).
    var admission = DeviceAdmission(db, localPeer: peerID, checksSignatures: signsEvents)
    let pending = try admission.startChecking(events)
    // The whole batch is one run of received events. Local writes may have
    // come since the preparation: what they need is read in this transaction.
    let projector = Projector(localPeer: peerID, retainsDeletedRows: true)
    let batchRows = mergeBatchRows
    var mergesAhead = false
    switch try Self.localHistory(for: events, local: peerID, db) {
    case .nothing: break
    case .mergesAhead: mergesAhead = true
    case .mustFold(let since):
      // Folded here from the oldest write received on (local writes since
      // the preparation), only the rows received when the index can tell;
      // the merge goes ahead of older local events.
      let applier = try MergeApplier.forMerging(db, local: peerID)
      let fold =
        if let planned, try EventLog.lastPosition(db) == planned.at { planned.fold }
        else { try TouchedRowFold.plan(db, events: events, since: since, applier: applier, minimumEvents: rowFoldMinimumEvents) }
      if let fold {
        try applier.foldLocalEvents(touching: fold)
      } else {
        try applier.foldLocalEvents(since: since)
      }
      mergesAhead = true
    }
    // Within a batch, older events first: fewer rows go through parking.
    // Events refused before their checks are left out (and refused below).
    let refusedUnchecked = pending.refusedUncheckedIDs
    for incoming in events.sorted(by: { ($0.event.timestamp, $0.event.origin) < ($1.event.timestamp, $1.event.origin) })
    where !refusedUnchecked.contains(incoming.event.id) {
      do {
        try projector.merge(incoming, source: source) {
          let applier = try MergeApplier.forMerging(db, local: peerID)
          applier.batchCapacity = batchRows
          applier.mergesAheadOfLocalHistory = mergesAhead
          return applier
        }
      } catch let error as SyncError where error.refusesItsEventOnly {
        // An event this database cannot take (a newer schema, a table or
        // column it lacks): refused alone, with whatever the checks refuse.
        // Open: taken once this side runs the migrations that make it fit.
        var refusals = try admission.admit(pending).refusals
        if !refusals.contains(where: { $0.id == incoming.event.id }) {
          refusals.append(EventRefusal(incoming, reason: error.eventRefusalReason, settled: false))
        }
        throw RefusedInBatch(refusals: refusals)
      } catch {
        // An event that is not what it claims to be is refused as such,
        // whatever merging it ran into.
        let refusals = try admission.admit(pending).refusals
        if !refusals.isEmpty { throw RefusedInBatch(refusals: refusals) }
        throw error
      }
    }
    let outcome = try admission.admit(pending)
    if !outcome.refusals.isEmpty { throw RefusedInBatch(refusals: outcome.refusals) }
    var report = try projector.endReceivedRun()
    // Rows are written as the run settles: a trigger that wrote a tracked
    // table then wrote what no event describes (the transaction rolls back).
    if let table = uncaptured.tableWrittenByTrigger {
      throw SyncError.triggerWroteWhileMerging(source: source, table: table)
    }
    report.parkedRows = try MergeStore(db: db).parkedCount()
    let refusedBefore = RefusedEvents(db: db)
    if try !refusedBefore.isEmpty() { try refusedBefore.forget(pending.fresh.map(\.event.id)) }
    if report.appliedEvents > 0 { try VersionVector.saveCheckpoint(db) }
    return (report, outcome.storedMembershipEvents > 0)
  }
}

extension ChronicleDatabase {
  /// Writes the events beyond `vector` into a bundle file (see
  /// `Schemas/SYNC-PROTOCOL.md`); returns how many.
  @discardableResult
  public func exportBundle(beyond vector: VersionVector, to url: URL) throws -> Int {
    var file = try EventBundleFileWriter(to: url, writer: peerID)
    do {
      try forEachSerializedEvent(beyond: vector) { try file.append($0) }
      // Their routes, for whoever imports the bundle to forward them to a
      // relay: a second pass over the same events' ids, a page at a time.
      var after: Int64 = 0
      while let (ids, reached) = try eventIDs(beyond: vector, after: after, limit: 4_096) {
        try file.append(routes: try eventRoutes(for: ids))
        after = reached
      }
      return try file.finish()
    } catch {
      file.abandon()
      throw error
    }
  }
}
