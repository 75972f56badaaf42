import Foundation
import GRDB

/// Applies events to the live tables with per-column last-write-wins, inside
/// the caller's transaction: the heart of sync.
///
/// Used in three steps per batch: ``apply(_:source:)`` merges each remote
/// event into the merge state of the rows it touches, kept in memory, and
/// stores the event in the log (before the first row change it merges, it
/// brings the merge state up to date with the log with
/// ``foldLocalEvents(until:since:)``, unless it merges ahead of local
/// history not folded (``mergesAheadOfLocalHistory``, ``FoldMarks``): local
/// writes do not maintain it, so they stay cheap); ``settleForeignKeys()``
/// writes each touched row once (``flushRows()``, through
/// ``TableRowWriter``), then parks rows whose parent
/// is absent and brings back parked rows whose parent arrived; and
/// ``finishBatch()`` tells observers and notes how far the merge state is
/// folded.
///
/// Foreign keys must be off on the connection (the caller sees to it): rows
/// arrive in any order, and a cascade here would delete rows that no event
/// deleted. Constraints are checked explicitly at the end instead.
final class MergeApplier {
  let db: Database
  let local: PeerID
  let localEpoch: UInt64
  private let store: MergeStore
  /// The rows merged since the last flush.
  private let batch: MergeBatch
  private var shapes: [String: TableShape?] = [:]
  /// Per table, the query that tells whether a row is in it.
  private var presenceQueries: [String: String] = [:]
  private(set) var appliedEvents = 0
  private(set) var duplicateEvents = 0
  private(set) var appliedRowChanges = 0
  /// Reads events of peers that have not run this peer's migrations yet in
  /// the current shape (renames, added and dropped columns, key migrations).
  var upcaster: EventUpcaster?
  /// Folded rows kept in memory before they are saved.
  var foldFlushRows = 20_000
  /// Told how many events ``foldLocalEvents()`` has folded, of how many:
  /// at the start, every ``foldProgressInterval`` events, and at the end.
  var foldProgress: ((_ folded: Int, _ total: Int) -> Void)?
  var foldProgressInterval = 1_000
  /// The events left to fold, when the caller knows (otherwise counted).
  var foldProgressTotal: Int?
  /// Whether ``foldLocalEvents()`` ran: until then the merge state may lag
  /// behind the log, and the fold mark must not move.
  private(set) var hasFolded = false
  /// Merges without folding the local history first, because every event
  /// merged is newer than all of it (the caller checked, see
  /// ``ChronicleDatabase/localHistory(for:local:_:)``).
  ///
  /// Then a column's true version is at most the later of its stored one and
  /// the newest local event's, which each merged write beats: comparing with
  /// the stored version decides as the folded state would. What else local
  /// history changed is read from the table (whether the row is there, and
  /// so complete). Folding that history later only raises versions, and
  /// skips the events merged here.
  var mergesAheadOfLocalHistory = false
  /// This peer's events past the fold mark (nil: none), read on first use
  /// when merging ahead of them.
  private var unfoldedOwnPositions: [ClosedRange<Int64>]?
  /// Per table, whether those events changed its rows (read on first use).
  private var tablesWithUnfoldedWrites: [String: Bool] = [:]
  /// The events a compaction baseline covers (read on first use).
  private var baselineVector: VersionVector?

  /// Rows merged before they are written (see ``MergeBatch/capacity``).
  var batchCapacity: Int {
    get { batch.capacity }
    set { batch.capacity = newValue }
  }

  /// The applier a merge uses: reading older events through the recorded
  /// migrations, at `localEpoch` (nil: the epoch this peer's log has reached;
  /// `.max` where the tables already have the current shape, as a rebuild's
  /// or compaction's).
  static func forMerging(_ db: Database, local: PeerID, localEpoch: UInt64? = nil) throws -> MergeApplier {
    let epoch = try localEpoch ?? LocalLogPosition.read(db, origin: local).schemaEpoch
    let applier = MergeApplier(db, local: local, localEpoch: epoch)
    applier.upcaster = try EventUpcaster.load(db, localPeer: local, upcasters: Upcasters(), skipsMissingCode: true, forMerging: true)
    return applier
  }

  init(_ db: Database, local: PeerID, localEpoch: UInt64) {
    self.db = db
    self.local = local
    self.localEpoch = localEpoch
    self.store = MergeStore(db: db)
    self.batch = MergeBatch(db)
  }

  /// The local shape of tracked table `table` (nil: not tracked here).
  func trackedShape(_ table: String) throws -> TableShape? { try shape(table) }

  private func shape(_ table: String) throws -> TableShape? {
    if let cached = shapes[table] { return cached }
    let shape = try TableShape.read(db, table: table).flatMap { $0.isTrackable ? $0 : nil }
    shapes[table] = shape
    return shape
  }

  // MARK: - Local events

  /// Folds the events appended since the last fold into the merge state.
  /// Their effects are already in the tables: only versions change.
  ///
  /// Given a `deadline`, it stops at the first event boundary past it and
  /// saves what it folded so far, so that a long history can be folded in
  /// several transactions (each leaves merge state and fold mark consistent
  /// with each other, as a complete fold does). Returns whether the merge
  /// state has caught up with the log.
  ///
  /// Given `since`, it folds only this peer's events from that clock on
  /// (see ``FoldMarks``): a merge whose every write is at `since` or later
  /// then merges ahead of the rest. The fold mark stays where it is.
  @discardableResult
  func foldLocalEvents(until deadline: ContinuousClock.Instant? = nil, since: HLCTimestamp? = nil) throws -> Bool {
    let scope: FoldScope = since.map { .since($0) } ?? .fromMark
    let caughtUp = try db.withPageCache(kibibytes: 131_072) { try foldLocalEventsInCache(until: deadline, scope: scope) }
    if since == nil { hasFolded = caughtUp }
    return caughtUp
  }

  /// Folds the own events `fold` names, and of each only its changes to
  /// the rows it names (see ``TouchedRowFold``). The fold marks stay.
  func foldLocalEvents(touching fold: TouchedRowFold) throws {
    if !fold.positions.isEmpty {
      _ = try db.withPageCache(kibibytes: 131_072) { try foldLocalEventsInCache(until: nil, scope: .rows(fold)) }
    }
    guard fold.cost > 0 else { return }
    let meta = ChronicleMeta(db: db)
    try meta.set(.rowFoldCost, to: (try meta.value(.rowFoldCost) ?? 0) + Int64(fold.cost))
  }

  /// Which events a fold reads, and which of their rows.
  private enum FoldScope {
    /// Every event past the mark (less own events folded ahead).
    case fromMark
    /// This peer's unfolded events from a clock on.
    case since(HLCTimestamp)
    /// Some own events, for some rows.
    case rows(TouchedRowFold)
  }

  /// What a fold reads: the log past the mark, less this peer's events
  /// folded ahead; or, `since` a clock, this peer's events from it on not
  /// folded yet. Each filter in log order, the filters in order.
  private func eventsToFold(_ scope: FoldScope, _ marks: FoldMarks) throws -> [EventFilter] {
    if case .rows(let fold) = scope { return fold.positions.map { EventFilter(positions: $0, origin: local) } }
    if case .since(let since) = scope {
      guard let unfolded = try marks.unfoldedOwnEvents(db, local: local),
            let from = try OriginEvents.first(db, origin: local, from: unfolded.first.sequence, where: { $0.timestamp >= since })
      else { return [] }
      let sequences = marks.unfolded(from.sequence...unfolded.sequences.last!.upperBound)
      return try OriginEvents.positions(db, origin: local, sequences: sequences).map { EventFilter(positions: $0, origin: local) }
    }
    // Received events merged ahead of the local history are in merge state
    // already: only this peer's own events are left to fold.
    let onlyOwn = try ChronicleMeta(db: db).value(.receivedMergedPastFoldMark) != nil ? local : nil
    var filters: [EventFilter] = []
    var next = marks.through + 1
    for folded in try OriginEvents.positions(db, origin: local, sequences: marks.ownSequences) {
      if folded.lowerBound > next { filters.append(EventFilter(positions: next...(folded.lowerBound - 1), origin: onlyOwn)) }
      next = max(next, folded.upperBound + 1)
    }
    filters.append(EventFilter(positions: next...Int64.max, origin: onlyOwn))
    return filters
  }

  private func foldLocalEventsInCache(until deadline: ContinuousClock.Instant?, scope: FoldScope) throws -> Bool {
    var marks = try FoldMarks.read(db)
    let mark = marks.through
    let filters = try eventsToFold(scope, marks)
    let since: HLCTimestamp? = if case .since(let clock) = scope { clock } else { nil }
    // Folding by rows: the received rows, and each folded table's part of a row's hash.
    let onlyRows: Set<UInt32>? = if case .rows(let fold) = scope { fold.rows } else { nil }
    var tableSeeds: [UInt64] = []
    var last = mark
    /// The sequences of this peer's events folded since a clock.
    var ownFolded: ClosedRange<UInt64>?
    var caughtUp = true
    let total =
      foldProgress == nil ? 0
      : try foldProgressTotal ?? filters.reduce(0) { $0 + (try EventLog.count(db, positions: $1.positions, origin: $1.origin)) }
    var foldedEvents = 0
    foldProgress?(0, total)
    struct Folded {
      var shape: TableShape
      var keyValues: [SQLiteValue]
      var state: RowMergeState
      /// Whether the row had merge state before this fold touched it.
      var hadState: Bool
      /// Whether that state put the row in its table (no values retained).
      var wasInTable: Bool
      var sawDelete = false
    }
    // The rows folded since the last flush, and where each is in `entries`.
    var positions: [FoldKey: Int] = [:]
    var entries: [(key: FoldKey, row: Folded)] = []
    // The tables folded, by their position here (a fold key's `table`).
    var tableNames: [String] = []
    var tablePositions: [String: Int] = [:]
    // Rows saved while absent from their table with no values retained yet:
    // the last flush gives them an empty set of values, as if they had been
    // folded in one pass.
    var absentWithoutValues = Set<FoldKey>()
    // Saves the folded rows and forgets them, so memory stays bounded however
    // long the local history is (a row folded again later is loaded back).
    // The table is the truth for local history: whether each row is there
    // decides where its values live. (A deleted row's values were kept by
    // capture, and merged above with any later-folded writes.)
    func flush(isLast: Bool) throws {
      // In key order, so that neighbouring saves touch neighbouring pages.
      entries.sort { $0.key < $1.key }
      for (foldKey, row) in entries {
        var entry = row
        let table = tableNames[foldKey.table]
        // With no delete folded now, local writes left the row where its
        // state said it was: a row with no merge state was never deleted here
        // nor touched by a merge, and a row saved in its table (no values
        // retained, and not one an earlier flush of this fold saved absent)
        // is still there: no need to look. Otherwise, look.
        let surelyPresent = !entry.sawDelete && (!entry.hadState || entry.wasInTable) && !absentWithoutValues.contains(foldKey)
        let present = try surelyPresent || isInTable(entry.keyValues, shape: entry.shape)
        absentWithoutValues.remove(foldKey)
        if present {
          entry.state.retained = nil
          entry.state.parkedReason = nil
        } else if entry.state.retained == nil {
          if isLast { entry.state.retained = [:] } else { absentWithoutValues.insert(foldKey) }
        }
        try store.save(table: table, key: foldKey.key, entry.state)
      }
      if isLast {
        for foldKey in absentWithoutValues {
          let table = tableNames[foldKey.table]
          guard var state = try store.load(table: table, key: foldKey.key), state.retained == nil else { continue }
          state.retained = [:]
          try store.save(table: table, key: foldKey.key, state)
        }
      }
      positions.removeAll(keepingCapacity: true)
      entries.removeAll(keepingCapacity: true)
    }
    for filter in filters where caughtUp {
      try EventLog.scan(db, filter) { stored in
        if let deadline, foldedEvents > 0, ContinuousClock.now >= deadline {
          caughtUp = false
          return false
        }
        last = stored.id
        if since != nil { ownFolded = (ownFolded?.lowerBound ?? stored.event.sequence)...stored.event.sequence }
        foldedEvents += 1
        if let foldProgress, foldedEvents % foldProgressInterval == 0 { foldProgress(foldedEvents, total) }
        // Versions are kept under today's names: older events are folded in the current shape.
        var event = stored.event
        if let upcaster, upcaster.migrations.contains(where: { $0.position > stored.id }) {
          event = EventUpcaster.event(try upcaster.rows(of: stored), like: stored.event)
        }
        let version = WriteVersion(timestamp: event.timestamp, origin: event.origin)
        // Each of the event's tables, looked up on its first row change: the
        // local shape and its position in `tableNames` (nil: dropped since).
        var eventTables = [(shape: TableShape, table: Int)??](repeating: nil, count: event.tables.count)
        for operation in event.operations {
          guard let tableIndex = operation.tableIndex else { continue }
          let descriptor = event.tables[tableIndex]
          if eventTables[tableIndex] == nil {
            eventTables[tableIndex] = try shape(descriptor.name).map { shape in
              if let position = tablePositions[shape.name] { return (shape, position) }
              tableNames.append(shape.name)
              tableSeeds.append(onlyRows == nil ? 0 : EventRowTouches.seed(table: shape.name))
              tablePositions[shape.name] = tableNames.count - 1
              return (shape, tableNames.count - 1)
            }
          }
          guard let (shape, table) = eventTables[tableIndex]! else { continue }  // dropped since
          let named = descriptor.columns
          let keyValues: [SQLiteValue]
          var writes: [(column: String, value: SQLiteValue)] = []
          var isInsert = false, isDelete = false
          switch operation {
          case .insert(_, let values):
            keyValues = descriptor.primaryKey.map { values[$0] }
            writes = zip(named, values).map { ($0, $1) }
            isInsert = true
          case .update(_, let key, let changes):
            keyValues = key
            writes = changes.map { (named[$0.column], $0.value) }
          case .delete(_, let key):
            keyValues = key
            isDelete = true
          case .schema, .membership:
            continue
          }
          guard let (key, ordered) = try localKey(keyValues, descriptor: descriptor, shape: shape) else { continue }
          if let onlyRows, !onlyRows.contains(EventRowTouches.hash(table: tableSeeds[table], key: ordered)) { continue }
          let foldKey = FoldKey(table: table, key: key)
          let position: Int
          if let found = positions[foldKey] {
            position = found
          } else {
            let state = try store.load(table: shape.name, key: key)
            entries.append((foldKey, Folded(
              shape: shape, keyValues: ordered, state: state ?? RowMergeState(), hadState: state != nil, wasInTable: state.map { $0.retained == nil } ?? true)))
            position = entries.count - 1
            positions[foldKey] = position
          }
          if isDelete {
            entries[position].row.sawDelete = true
            entries[position].row.state.mergeDelete(version: version)
          } else {
            _ = entries[position].row.state.mergeWrite(writes, version: version, isInsert: isInsert)
          }
        }
        if entries.count >= foldFlushRows { try flush(isLast: false) }
        return true
      }
    }
    try flush(isLast: true)
    switch scope {
    case .rows:
      break  // only some rows of these events: the marks stay
    case .since:
      if let ownFolded {
        marks.noteFolded(ownFolded)
        try marks.saveOwnSequences(db)
      }
      try ChronicleMeta(db: db).remove(.rowFoldCost)
    case .fromMark:
      try setFoldMark(caughtUp ? EventLog.lastPosition(db) : last, caughtUp: caughtUp)
      try ChronicleMeta(db: db).remove(.rowFoldCost)
    }
    foldProgress?(foldedEvents, max(total, foldedEvents))
    return caughtUp
  }

  /// A row: its table (a position in the fold's list of tables) and its
  /// encoded key; rows of one table sort in key order, as `chronicle_rows` keeps them.
  private struct FoldKey: Hashable, Comparable {
    var table: Int
    var key: Data

    static func < (lhs: FoldKey, rhs: FoldKey) -> Bool {
      lhs.table != rhs.table ? lhs.table < rhs.table : MergeStore.keyPrecedes(lhs.key, rhs.key)
    }
  }

  /// Whether the row with these key values (in the table's key order) is in its table.
  private func isInTable(_ keyValues: [SQLiteValue], shape: TableShape) throws -> Bool {
    let sql: String
    if let cached = presenceQueries[shape.name] {
      sql = cached
    } else {
      let condition = shape.primaryKey.map { "\(quotedIdentifier(shape.columns[$0])) = ?" }.joined(separator: " AND ")
      sql = "SELECT EXISTS (SELECT 1 FROM main.\(quotedIdentifier(shape.name)) WHERE \(condition))"
      presenceQueries[shape.name] = sql
    }
    return try db.fetchFirstRow(sql: sql, values: keyValues)?.first == .integer(1)
  }

  /// After a batch: the merge state has seen every event of the log, when
  /// the batch folded the local history (a batch of events held already
  /// folds nothing); when it merged ahead of that history, it has seen the
  /// received events past the fold mark.
  func finishBatch() throws {
    try flushRows()
    try batch.notifyObservers()
    if hasFolded {
      try setFoldMark(EventLog.lastPosition(db))
    } else if mergesAheadOfLocalHistory, appliedEvents > 0 {
      try ChronicleMeta(db: db).set(.receivedMergedPastFoldMark, to: 1)
    }
  }

  /// This peer's events that merge state has not folded yet (past the fold
  /// mark, less those folded ahead of it: see ``FoldMarks``) and the latest
  /// one's clock; nil when merge state has folded them all.
  static func unfoldedOwnEvents(_ db: Database, local: PeerID) throws -> UnfoldedOwnEvents? {
    try FoldMarks.read(db).unfoldedOwnEvents(db, local: local)
  }

  /// Records that merge state has folded every event through `id`, and,
  /// when it has `caughtUp` with the log, that nothing is left to fold.
  func setFoldMark(_ id: Int64, caughtUp: Bool = true) throws {
    let meta = ChronicleMeta(db: db)
    try meta.set(.mergeFoldedThrough, to: id)
    if caughtUp {
      try meta.remove(.receivedMergedPastFoldMark)
      try meta.remove(.ownFoldedPastMark)
      return
    }
    // Own events folded ahead that the mark has reached are covered by it.
    var marks = try FoldMarks.read(db)
    marks.ownSequences = try marks.ownSequences.filter { folded in
      try EventLog.position(db, origin: local, sequence: folded.upperBound).map { $0 > id } ?? false
    }
    try marks.saveOwnSequences(db)
  }

  /// The key in the local table's key order, encoded; nil when the event's key
  /// columns are not the local ones.
  private func localKey(_ values: [SQLiteValue], descriptor: TableDescriptor, shape: TableShape) throws -> (encoded: Data, ordered: [SQLiteValue])? {
    guard let order = Self.keyOrder(of: descriptor, in: shape), values.count == order.count else { return nil }
    let ordered = order.map { values[$0] }
    return (try MergeStore.encodeKey(ordered), ordered)
  }

  /// For each key column of the local table, in key order, its position among
  /// the event's key values; nil when the two keys are not the same columns
  /// (in any order).
  static func keyOrder(of descriptor: TableDescriptor, in shape: TableShape) -> [Int]? {
    let eventKeyNames = descriptor.primaryKey.map { descriptor.columns[$0] }
    let order = shape.primaryKey.compactMap { eventKeyNames.firstIndex(of: shape.columns[$0]) }
    guard order.count == eventKeyNames.count, order.count == shape.primaryKey.count else { return nil }
    return order
  }

  // MARK: - Remote events

  /// Merges one remote event and stores it in the log. Returns false for an
  /// event the log already holds (a no-op).
  @discardableResult
  func apply(_ incoming: IncomingEvent, source: String) throws -> Bool {
    let event = incoming.event
    if baselineVector == nil { baselineVector = try LogBaseline.Header.read(db)?.vector ?? VersionVector() }
    if baselineVector!.contains(origin: event.origin, sequence: event.sequence) {
      duplicateEvents += 1  // compacted into the baseline: held already
      return false
    }
    if let existing = try EventLog.checksum(db, origin: event.origin, sequence: event.sequence) {
      guard existing == incoming.encoded.checksum else {
        throw SyncError.forgedEvent(
          source: source, event: event.id.description, reason: "this log holds a different event with the same origin and sequence")
      }
      duplicateEvents += 1
      return false
    }
    if event.origin == local {
      throw SyncError.forgedEvent(
        source: source, event: event.id.description,
        reason: "it claims to come from this peer, whose log does not have it (was this file restored from an older backup?)")
    }
    guard event.schemaEpoch <= localEpoch else {
      throw SyncError.schemaAhead(source: source, event: event.id.description, remoteEpoch: event.schemaEpoch, localEpoch: localEpoch)
    }
    let version = WriteVersion(timestamp: event.timestamp, origin: event.origin)
    var shaped = event
    if let upcaster, !upcaster.migrations.isEmpty {
      let rows = try upcaster.rows(of: StoredEvent(id: Int64.max, event: event, rawSize: 0, storedSize: 0, checksum: 0))
      shaped = EventUpcaster.event(rows, like: event)
    }
    // How each table of the event maps onto the local one, worked out on its first row change.
    var plans = [TablePlan?](repeating: nil, count: shaped.tables.count)
    let sameEpoch = shaped.schemaEpoch == localEpoch
    func mismatch(_ reason: String) -> SyncError {
      .schemaMismatch(source: source, event: event.id.description, reason: reason)
    }
    for operation in shaped.operations {
      guard let tableIndex = operation.tableIndex else { continue }  // each peer runs its own migrations
      // Merge state is needed from the first row change on (an event of
      // schema or membership changes only needs none).
      if !hasFolded, !mergesAheadOfLocalHistory { try foldLocalEvents() }
      if plans[tableIndex] == nil {
        plans[tableIndex] = try plan(for: shaped.tables[tableIndex], sameEpoch: sameEpoch, mismatch)
      }
      let plan = plans[tableIndex]!
      guard plan.shape != nil else { continue }  // dropped by a migration since that epoch
      try applyRowOperation(operation, plan: plan, version: version, sameEpoch: sameEpoch, mismatch)
    }
    _ = try EventAppender.insert(db, event: event, encoded: incoming.encoded, rows: .merged)
    appliedEvents += 1
    return true
  }

  /// How the columns of a table as an event recorded it map onto the local
  /// table. A class: each row change of the event reads it, and a struct
  /// would be copied out of the event's list of plans (its arrays retained)
  /// for every one.
  private final class TablePlan {
    let descriptor: TableDescriptor
    /// The local table; nil when a migration has dropped it since the event's epoch.
    let shape: TableShape?
    /// The local table's position in the batch (see ``MergeBatch/tablePosition(_:)``).
    let table: Int
    /// For each column of the event's table, its index here (nil: no such column).
    let localColumns: [Int?]
    /// For each local key column, in key order, its position among the event's key values.
    let keyOrder: [Int]

    init(descriptor: TableDescriptor, shape: TableShape?, table: Int = -1, localColumns: [Int?] = [], keyOrder: [Int] = []) {
      self.descriptor = descriptor
      self.shape = shape
      self.table = table
      self.localColumns = localColumns
      self.keyOrder = keyOrder
    }
  }

  private func plan(
    for descriptor: TableDescriptor, sameEpoch: Bool, _ mismatch: (String) -> SyncError
  ) throws -> TablePlan {
    guard let shape = try shape(descriptor.name) else {
      if sameEpoch { throw mismatch("no tracked table \(descriptor.name) here") }
      return TablePlan(descriptor: descriptor, shape: nil)
    }
    let local = writer(for: shape).columnIndex
    let localColumns = descriptor.columns.map { local[$0] }
    guard let keyOrder = Self.keyOrder(of: descriptor, in: shape) else {
      throw mismatch("the primary key of \(descriptor.name) differs here")
    }
    let table = batch.tablePosition(shape)
    if mergesAheadOfLocalHistory, try localWritesAreUnfolded(in: shape.name) { batch.lagsBehindLocalWrites(table: table) }
    return TablePlan(descriptor: descriptor, shape: shape, table: table, localColumns: localColumns, keyOrder: keyOrder)
  }

  /// Whether events of this peer not folded into merge state changed rows of
  /// `table`: then the merge state of its rows may not say what they did.
  /// (When a migration is among them, rows may have been written under
  /// another name: any table may be.)
  private func localWritesAreUnfolded(in table: String) throws -> Bool {
    if let known = tablesWithUnfoldedWrites[table] { return known }
    let unfolded = try readWhetherLocalWritesAreUnfolded(in: table)
    tablesWithUnfoldedWrites[table] = unfolded
    return unfolded
  }

  private func readWhetherLocalWritesAreUnfolded(in table: String) throws -> Bool {
    if unfoldedOwnPositions == nil {
      unfoldedOwnPositions = try Self.unfoldedOwnEvents(db, local: local)?.positions(db, local: local) ?? []
    }
    let ranges = unfoldedOwnPositions!
    guard let earliest = ranges.first?.lowerBound else { return false }
    if let upcaster, upcaster.migrations.contains(where: { $0.position >= earliest }) { return true }
    return try ranges.contains { try EventLog.changesRows(db, of: table, positions: $0, origin: local) }
  }

  private func applyRowOperation(
    _ operation: EventOperation, plan: TablePlan, version: WriteVersion, sameEpoch: Bool, _ mismatch: (String) -> SyncError
  ) throws {
    /// The batch's row with the key whose values `value(i)` gives for the
    /// event's key column `i` (`count` of them).
    func row(keyCount count: Int, _ value: (Int) -> SQLiteValue) throws -> Int {
      guard count == plan.keyOrder.count else { throw mismatch("the primary key of \(plan.descriptor.name) differs here") }
      let keyOrder = plan.keyOrder
      // The usual key, one integer, is encoded without an array of its values.
      let key: Data
      if count == 1, case .integer(let integer) = value(keyOrder[0]) {
        key = MergeStateKey.encode(integer)
      } else {
        key = try MergeStore.encodeKey(keyOrder.map(value))
      }
      return try batch.row(ofTable: plan.table, key: key) { value(keyOrder[$0]) }
    }
    /// Merges the write of one column of the event's table.
    func write(_ row: Int, _ column: Int, _ value: SQLiteValue) throws {
      if let local = plan.localColumns[column] {
        batch.mergeWrite(row: row, column: local, value: value, version: version)
      } else if sameEpoch {
        throw mismatch("no column \(plan.descriptor.name).\(plan.descriptor.columns[column]) here")
      }
    }
    switch operation {
    case .insert(_, let values):
      let keyColumns = plan.descriptor.primaryKey
      let row = try row(keyCount: keyColumns.count) { values[keyColumns[$0]] }
      batch.mergeInsert(row: row)
      for (column, value) in values.enumerated() { try write(row, column, value) }
    case .update(_, let key, let changes):
      let row = try row(keyCount: key.count) { key[$0] }
      for change in changes { try write(row, change.column, change.value) }
    case .delete(_, let key):
      let row = try row(keyCount: key.count) { key[$0] }
      batch.mergeDelete(row: row, version: version)
    case .schema, .membership:
      return
    }
    appliedRowChanges += 1
  }

  // MARK: - Rows of the batch

  /// Writes each row merged since the last flush, and its merge state, once.
  func flushRows() throws {
    try batch.flush()
  }

  private func writer(for shape: TableShape) -> TableRowWriter {
    batch.writer(for: shape)
  }

  // MARK: - Foreign keys

  /// Parks rows whose parent row is absent, and brings back parked rows
  /// whose parents are all present, until nothing moves.
  ///
  /// The rows checked are those the run wrote into tables with foreign
  /// keys, and every row of a table one of whose parent tables lost rows
  /// (``RunFootprint``): a run of a few changes costs a few lookups,
  /// whatever the size of the tables.
  func settleForeignKeys() throws {
    try flushRows()
    if mergesAheadOfLocalHistory { try forgetParkingOfRowsWrittenHere() }
    var footprint = batch.footprint()
    let graph = ForeignKeyGraph(db: db)
    var moved = true
    while moved {
      moved = false
      let lost = footprint.tablesThatLostRows
      footprint.tablesThatLostRows = []
      // Park orphans (parking a parent can orphan its children: loop).
      for table in try graph.trackedTablesWithForeignKeys() {
        let name = table.lowercased()
        let written = footprint.writtenRows.removeValue(forKey: name)
        let orphans: [[SQLiteValue]]
        if try graph.parents(of: table).contains(where: lost.contains) {
          orphans = try orphanKeys(of: table)
        } else {
          switch written {
          case nil: continue
          case .tooMany: orphans = try orphanKeys(of: table)
          case .keys(let keys): orphans = try orphanKeys(of: table, among: keys)
          }
        }
        for key in orphans where try park(table: table, keyValues: key) {
          footprint.tablesThatLostRows.insert(name)
          moved = true
        }
      }
      // Bring back parked rows whose parents arrived.
      for (table, key) in try parkedForParent() {
        if try restoreIfParentsPresent(table: table, key: key) { moved = true }
      }
    }
  }

  /// Local writes not folded yet may have put a parked row back in its
  /// table (inserted again here): its merge state says parked until a fold
  /// reads those writes. Such rows are parked no longer.
  private func forgetParkingOfRowsWrittenHere() throws {
    for parked in try store.parked() {
      guard let shape = try shape(parked.table), try localWritesAreUnfolded(in: shape.name),
            try writer(for: shape).contains(key: MergeStateKey.decode(parked.key)) else { continue }
      var state = parked.state
      state.retained = nil
      state.parkedReason = nil
      state.isComplete = true
      try store.save(table: parked.table, key: parked.key, state)
    }
  }

  /// Those of `keys` (local key order) whose row in `table` has a non-NULL
  /// foreign key with no parent row: looked up by key, a few hundred keys
  /// to a statement.
  private func orphanKeys(of table: String, among keys: [[SQLiteValue]]) throws -> [[SQLiteValue]] {
    guard let shape = try shape(table), !keys.isEmpty else { return [] }
    let conditions = try ForeignKeyGraph(db: db).missingParentConditions(child: table, alias: "c")
    guard !conditions.isEmpty else { return [] }
    let keyColumns = shape.primaryKey.map { "c." + quotedIdentifier(shape.columns[$0]) }.joined(separator: ", ")
    let keyTuple = "(" + Array(repeating: "?", count: shape.primaryKey.count).joined(separator: ", ") + ")"
    let chunk = max(1, 500 / shape.primaryKey.count)
    var orphans: [[SQLiteValue]] = []
    for start in stride(from: 0, to: keys.count, by: chunk) {
      let part = keys[start..<min(start + chunk, keys.count)]
      let sql = """
        SELECT \(keyColumns) FROM main.\(quotedIdentifier(table)) AS c
        WHERE (\(keyColumns)) IN (VALUES \(Array(repeating: keyTuple, count: part.count).joined(separator: ", ")))
        AND ((\(conditions.joined(separator: ") OR ("))))
        """
      // Only the full-size statement is worth keeping prepared.
      orphans += try db.fetchRows(sql: sql, values: part.joined(), cached: part.count == chunk)
    }
    return orphans
  }

  /// Primary keys (local key order) of the rows of `table` that have a
  /// non-NULL foreign key with no parent row.
  private func orphanKeys(of table: String) throws -> [[SQLiteValue]] {
    guard let shape = try shape(table) else { return [] }
    let keyColumns = shape.primaryKey.map { "c." + quotedIdentifier(shape.columns[$0]) }.joined(separator: ", ")
    var keys: [[SQLiteValue]] = []
    for condition in try ForeignKeyGraph(db: db).missingParentConditions(child: table, alias: "c") {
      keys += try db.fetchRows(sql: "SELECT \(keyColumns) FROM main.\(quotedIdentifier(table)) AS c WHERE \(condition)")
    }
    return keys
  }

  /// Takes a row out of its table to wait for its parent; returns whether
  /// it was there.
  private func park(table: String, keyValues: [SQLiteValue]) throws -> Bool {
    guard let shape = try shape(table) else { return false }
    let key = try MergeStore.encodeKey(keyValues)
    guard let row = try writer(for: shape).takeOut(key: keyValues) else { return false }
    let values = Dictionary(uniqueKeysWithValues: zip(shape.columns, row))
    var state = try store.load(table: table, key: key) ?? RowMergeState()
    state.retained = values
    state.parkedReason = .parent
    state.isComplete = true  // it was in its table (local history not folded yet may not say so)
    try store.save(table: table, key: key, state)
    return true
  }

  /// After one of this peer's own writes: brings back every row parked for
  /// a parent that is now present (and its own parked children, and so on),
  /// as a merge's ``settleForeignKeys()`` does for the parents it brings. A
  /// parked row the write inserted again itself is in its table already: it
  /// is parked no longer.
  func restoreRowsWhoseParentsArePresent() throws {
    var moved = true
    while moved {
      moved = false
      for (table, key) in try parkedForParent() {
        guard let shape = try shape(table) else { continue }
        if try writer(for: shape).contains(key: MergeStateKey.decode(key)) {
          guard var state = try store.load(table: table, key: key) else { continue }
          state.retained = nil
          state.parkedReason = nil
          state.isComplete = true
          try store.save(table: table, key: key, state)
        } else if try restoreIfParentsPresent(table: table, key: key) {
          moved = true
        }
      }
    }
  }

  private func parkedForParent() throws -> [(String, Data)] {
    try store.parked(for: .parent).map { ($0.table, $0.key) }
  }

  private func restoreIfParentsPresent(table: String, key: Data) throws -> Bool {
    guard let shape = try shape(table), var state = try store.load(table: table, key: key), let values = state.retained else { return false }
    // Would the row have every parent? Check with the values it would have.
    for condition in try ForeignKeyGraph(db: db).missingParentConditions(child: table, alias: "c") {
      let columns = shape.columns.filter { values[$0] != nil }
      let select = columns.map { "? AS \(quotedIdentifier($0))" }.joined(separator: ", ")
      let orphan = try db.fetchFirstRow(
        sql: "SELECT EXISTS (SELECT 1 FROM (SELECT \(select)) AS c WHERE \(condition))",
        values: columns.map { values[$0]! })?.first == .integer(1)
      if orphan { return false }
    }
    try writer(for: shape).insert(shape.columns.map { values[$0] }[...])
    state.retained = nil
    state.parkedReason = nil
    try store.save(table: table, key: key, state)
    return true
  }
}
