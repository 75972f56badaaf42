import Foundation
import GRDB

/// Applies events to the live tables with per-column last-write-wins, inside
/// the caller's transaction: the heart of sync.
///
/// Used in three steps per batch: ``apply(_:source:)`` merges each remote
/// event into the merge state of the rows it touches, kept in memory, and
/// stores the event in the log (before the first row change it merges, it
/// brings the merge state up to date with the log with
/// ``foldLocalEvents()``: local writes do not maintain it, so they stay
/// cheap); ``settleForeignKeys()`` writes each touched row once
/// (``flushRows()``, through ``TableRowWriter``), then parks rows whose parent
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
  private var shapes: [String: TableShape?] = [:]
  /// Per table, the query that tells whether a row is in it.
  private var presenceQueries: [String: String] = [:]
  /// Tables whose rows changed (to check foreign keys).
  private(set) var touchedTables = Set<String>()
  private(set) var appliedEvents = 0
  private(set) var duplicateEvents = 0
  private(set) var appliedRowChanges = 0
  /// Reads events of peers that have not run this peer's migrations yet in
  /// the current shape (renames, added and dropped columns, key migrations).
  var upcaster: EventUpcaster?
  /// Folded rows kept in memory before they are saved.
  var foldFlushRows = 20_000
  /// Whether ``foldLocalEvents()`` ran: until then the merge state may lag
  /// behind the log, and the fold mark must not move.
  private(set) var hasFolded = false
  /// The events a compaction baseline covers (read on first use).
  private var baselineVector: VersionVector?

  static let foldMarkKey = "merge_folded_through"

  init(_ db: Database, local: PeerID, localEpoch: UInt64) {
    self.db = db
    self.local = local
    self.localEpoch = localEpoch
    self.store = MergeStore(db: db)
  }

  private func shape(_ table: String) throws -> TableShape? {
    if let cached = shapes[table] { return cached }
    let shape = try TableShape.read(db, table: table).flatMap { $0.isTrackable ? $0 : nil }
    shapes[table] = shape
    return shape
  }

  // MARK: - Local events

  /// Folds the events appended since the last fold into the merge state.
  /// Their effects are already in the tables: only versions change.
  func foldLocalEvents() throws {
    defer { hasFolded = true }
    let previousCache = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
    try db.execute(sql: "PRAGMA cache_size = -131072")
    defer { try? db.execute(sql: "PRAGMA cache_size = \(previousCache)") }
    let mark = try Int64.fetchOne(db, sql: "SELECT value FROM chronicle_meta WHERE key = ?", arguments: [Self.foldMarkKey]) ?? 0
    var last = mark
    struct Folded {
      var shape: TableShape
      var keyValues: [SQLiteValue]
      var state: RowMergeState
      /// Whether the row had merge state before this fold touched it.
      var hadState: Bool
      var sawDelete = false
    }
    var folded: [FoldKey: Folded] = [:]
    var order: [FoldKey] = []
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
      order.sort()
      for foldKey in order {
        var entry = folded[foldKey]!
        // A row with no merge state was never deleted here nor touched by a
        // merge: with no delete folded now either, local writes left it in
        // its table (no need to look).
        let present = !entry.hadState && !entry.sawDelete ? true : try isInTable(entry.keyValues, shape: entry.shape)
        absentWithoutValues.remove(foldKey)
        if present {
          entry.state.retained = nil
          entry.state.parkedReason = nil
        } else if entry.state.retained == nil {
          if isLast { entry.state.retained = [:] } else { absentWithoutValues.insert(foldKey) }
        }
        try store.save(table: foldKey.table, key: foldKey.key, entry.state)
      }
      if isLast {
        for foldKey in absentWithoutValues {
          guard var state = try store.load(table: foldKey.table, key: foldKey.key), state.retained == nil else { continue }
          state.retained = [:]
          try store.save(table: foldKey.table, key: foldKey.key, state)
        }
      }
      folded.removeAll(keepingCapacity: true)
      order.removeAll(keepingCapacity: true)
    }
    try EventLog.forEach(db, EventFilter(positions: (mark + 1)...Int64.max)) { stored in
      last = stored.id
      // Versions are kept under today's names: older events are folded in the current shape.
      var event = stored.event
      if let upcaster, upcaster.migrations.contains(where: { $0.position > stored.id }) {
        event = EventUpcaster.event(try upcaster.rows(of: stored), like: stored.event)
      }
      let version = WriteVersion(timestamp: event.timestamp, origin: event.origin)
      for operation in event.operations {
        guard let tableIndex = operation.tableIndex else { continue }
        let descriptor = event.tables[tableIndex]
        guard let shape = try shape(descriptor.name) else { continue }  // dropped since
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
        let foldKey = FoldKey(table: shape.name, key: key)
        if folded[foldKey] == nil {
          let state = try store.load(table: shape.name, key: key)
          folded[foldKey] = Folded(shape: shape, keyValues: ordered, state: state ?? RowMergeState(), hadState: state != nil)
          order.append(foldKey)
        }
        if isDelete {
          folded[foldKey]!.sawDelete = true
          folded[foldKey]!.state.mergeDelete(version: version)
        } else {
          _ = folded[foldKey]!.state.mergeWrite(writes, version: version, isInsert: isInsert)
        }
      }
      if order.count >= foldFlushRows { try flush(isLast: false) }
    }
    try flush(isLast: true)
    try setFoldMark(last)
  }

  /// A row: its table and its encoded key, ordered as `chronicle_rows` is.
  private struct FoldKey: Hashable, Comparable {
    var table: String
    var key: Data

    static func < (lhs: FoldKey, rhs: FoldKey) -> Bool {
      guard lhs.table == rhs.table else { return lhs.table < rhs.table }
      return lhs.key.withUnsafeBytes { left in
        rhs.key.withUnsafeBytes { right in
          guard let a = left.baseAddress, let b = right.baseAddress else { return left.count < right.count }
          let common = memcmp(a, b, min(left.count, right.count))
          return common != 0 ? common < 0 : left.count < right.count
        }
      }
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
  /// the batch merged anything (a batch of events held already folds nothing).
  func finishBatch() throws {
    try flushRows()
    for writer in writers.values { try writer.notifyObservers() }
    guard hasFolded else { return }
    try setFoldMark(EventLog.lastPosition(db))
  }

  func setFoldMark(_ id: Int64) throws {
    try db.execute(
      sql: "INSERT OR REPLACE INTO chronicle_meta (key, value) VALUES (?, ?)", arguments: [Self.foldMarkKey, id])
  }

  /// The key in the local table's key order, encoded; nil when the event's key
  /// columns are not the local ones.
  private func localKey(_ values: [SQLiteValue], descriptor: TableDescriptor, shape: TableShape) throws -> (encoded: Data, ordered: [SQLiteValue])? {
    let eventKeyNames = descriptor.primaryKey.map { descriptor.columns[$0] }
    let localKeyNames = shape.primaryKey.map { shape.columns[$0] }
    guard Set(eventKeyNames) == Set(localKeyNames), values.count == eventKeyNames.count else { return nil }
    let byName = Dictionary(uniqueKeysWithValues: zip(eventKeyNames, values))
    let ordered = localKeyNames.map { byName[$0]! }
    return (try MergeStore.encodeKey(ordered), ordered)
  }

  // MARK: - Remote events

  /// Merges one remote event and stores it in the log. Returns false for an
  /// event the log already holds (a no-op).
  @discardableResult
  func apply(_ incoming: IncomingEvent, source: String) throws -> Bool {
    let event = incoming.event
    if baselineVector == nil { baselineVector = try LogBaseline.read(db)?.vector ?? VersionVector() }
    if baselineVector!.contains(origin: event.origin, sequence: event.sequence) {
      duplicateEvents += 1  // compacted into the baseline: held already
      return false
    }
    if let existing = try Int64.fetchOne(
      db.cachedStatement(sql: "SELECT checksum FROM chronicle_events WHERE origin = ? AND sequence = ?"),
      arguments: [Data(event.origin.bytes), Int64(event.sequence)])
    {
      guard UInt32(truncatingIfNeeded: existing) == incoming.encoded.checksum else {
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
    for operation in shaped.operations {
      guard let tableIndex = operation.tableIndex else { continue }  // each peer runs its own migrations
      // Merge state is needed from the first row change on (an event of
      // schema or membership changes only needs none).
      if !hasFolded { try foldLocalEvents() }
      try applyRowOperation(operation, descriptor: shaped.tables[tableIndex], version: version, event: shaped, source: source)
    }
    _ = try EventAppender.insert(db, event: event, encoded: incoming.encoded)
    appliedEvents += 1
    return true
  }

  private func applyRowOperation(
    _ operation: EventOperation, descriptor: TableDescriptor, version: WriteVersion, event: ChangeEvent, source: String
  ) throws {
    let sameEpoch = event.schemaEpoch == localEpoch
    func mismatch(_ reason: String) -> SyncError {
      .schemaMismatch(source: source, event: event.id.description, reason: reason)
    }
    guard let shape = try shape(descriptor.name) else {
      if sameEpoch { throw mismatch("no tracked table \(descriptor.name) here") }
      return  // dropped by a migration since that epoch
    }
    let localColumns = Set(shape.columns)
    func localWrites(_ pairs: [(String, SQLiteValue)]) throws -> [(column: String, value: SQLiteValue)] {
      var writes: [(column: String, value: SQLiteValue)] = []
      for (column, value) in pairs {
        if localColumns.contains(column) {
          writes.append((column, value))
        } else if sameEpoch {
          throw mismatch("no column \(descriptor.name).\(column) here")
        }
      }
      return writes
    }
    let keyValues: [SQLiteValue]
    let writes: [(column: String, value: SQLiteValue)]
    var isInsert = false, isDelete = false
    switch operation {
    case .insert(_, let values):
      keyValues = descriptor.primaryKey.map { values[$0] }
      writes = try localWrites(zip(descriptor.columns, values).map { ($0, $1) })
      isInsert = true
    case .update(_, let key, let changes):
      keyValues = key
      writes = try localWrites(changes.map { (descriptor.columns[$0.column], $0.value) })
    case .delete(_, let key):
      keyValues = key
      writes = []
      isDelete = true
    case .schema, .membership:
      return
    }
    guard let (key, orderedKey) = try localKey(keyValues, descriptor: descriptor, shape: shape) else {
      throw mismatch("the primary key of \(descriptor.name) differs here")
    }
    let row = try pendingRow(table: shape, key: key, orderedKey: orderedKey)
    if isDelete {
      pendingRows[row].state.mergeDelete(version: version)
    } else {
      let winners = pendingRows[row].state.mergeWrite(writes, version: version, isInsert: isInsert)
      // A row in its table at the start of the batch keeps its values there:
      // the winning ones are written when the batch is flushed.
      if pendingRows[row].wasInTable, !winners.isEmpty {
        let columnIndex = try writer(for: shape).columnIndex
        for (column, value) in winners { pendingRows[row].winners[columnIndex[column]!] = value }
      }
    }
    touchedTables.insert(shape.name)
    appliedRowChanges += 1
  }

  // MARK: - Rows of the batch

  /// A row the batch merged into: its merge state so far, and where its
  /// values are.
  private struct PendingRow {
    var shape: TableShape
    var key: Data
    var orderedKey: [SQLiteValue]
    var state: RowMergeState
    /// Whether the row was in its table when the batch first touched it.
    var wasInTable: Bool
    /// Values that won since then, by column index, for a row in its table
    /// (a row out of it keeps its values in `state.retained`).
    var winners: [Int: SQLiteValue] = [:]
  }

  /// Rows merged since the last flush, by table and key, and in the order first touched.
  private var pendingRows: [PendingRow] = []
  private var pendingIndex: [FoldKey: Int] = [:]
  /// Rows kept in memory before they are written.
  var pendingFlushRows = 50_000
  private var writers: [String: TableRowWriter] = [:]

  private func writer(for shape: TableShape) throws -> TableRowWriter {
    if let writer = writers[shape.name] { return writer }
    let writer = TableRowWriter(db, shape: shape)
    writers[shape.name] = writer
    return writer
  }

  /// The index of the row in ``pendingRows``, loading its merge state on first touch.
  private func pendingRow(table shape: TableShape, key: Data, orderedKey: [SQLiteValue]) throws -> Int {
    let foldKey = FoldKey(table: shape.name, key: key)
    if let index = pendingIndex[foldKey] { return index }
    if pendingRows.count >= pendingFlushRows { try flushRows() }
    let state = try store.load(table: shape.name, key: key) ?? RowMergeState(retained: [:])
    pendingRows.append(PendingRow(shape: shape, key: key, orderedKey: orderedKey, state: state, wasInTable: state.retained == nil))
    pendingIndex[foldKey] = pendingRows.count - 1
    return pendingRows.count - 1
  }

  /// Writes each row merged since the last flush, and its merge state, once:
  /// rows leaving their table first, then rows staying (their winning
  /// columns), then rows entering it, each in key order.
  func flushRows() throws {
    guard !pendingRows.isEmpty else { return }
    let order = pendingIndex.sorted { $0.key < $1.key }.map(\.value)
    pendingIndex = [:]
    var entering: [Int] = []
    var staying: [Int] = []
    for index in order {
      let row = pendingRows[index]
      switch (row.wasInTable, row.state.belongsInTable) {
      case (true, false):
        // The row leaves its table; its values stay in the merge state.
        let writer = try writer(for: row.shape)
        var values: [String: SQLiteValue] = [:]
        if let current = try writer.takeOut(key: row.orderedKey) {
          for (column, value) in zip(row.shape.columns, current) { values[column] = value }
        }
        for (column, value) in row.winners { values[row.shape.columns[column]] = value }
        pendingRows[index].state.retained = values
        pendingRows[index].state.parkedReason = row.state.isLive ? .incomplete : nil
      case (false, false):
        pendingRows[index].state.parkedReason = row.state.isLive ? .incomplete : nil
      case (true, true):
        staying.append(index)
      case (false, true):
        entering.append(index)
      }
    }
    for index in staying where !pendingRows[index].winners.isEmpty {
      let row = pendingRows[index]
      try writer(for: row.shape).update(row.winners.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, key: row.orderedKey)
    }
    for index in entering {
      let row = pendingRows[index]
      var values = row.state.retained ?? [:]
      for (column, value) in zip(row.shape.primaryKey, row.orderedKey) { values[row.shape.columns[column]] = value }
      try writer(for: row.shape).insert(row.shape.columns.map { values[$0] })
      pendingRows[index].state.retained = nil
      pendingRows[index].state.parkedReason = nil
    }
    for index in order {
      let row = pendingRows[index]
      try store.save(table: row.shape.name, key: row.key, row.state)
    }
    pendingRows = []
  }

  // MARK: - Foreign keys

  /// Parks rows of the changed tables whose parent row is absent, and brings
  /// back parked rows whose parents are all present, until nothing moves.
  func settleForeignKeys() throws {
    try flushRows()
    var moved = true
    while moved {
      moved = false
      // Park orphans (parking a parent can orphan its children: loop).
      for table in try tablesToCheck() {
        for key in try orphanKeys(of: table) {
          try park(table: table, keyValues: key)
          moved = true
        }
      }
      // Bring back parked rows whose parents arrived.
      for (table, key) in try parkedForParent() {
        if try restoreIfParentsPresent(table: table, key: key) { moved = true }
      }
    }
  }

  private func tablesToCheck() throws -> [String] {
    // Children of changed tables too: a parked parent orphans them.
    let all = try String.fetchAll(db, sql: "SELECT name FROM chronicle_tracked_tables ORDER BY name")
    return all.filter { name in
      (try? Row.fetchAll(db, sql: "SELECT \"table\" FROM pragma_foreign_key_list(?)", arguments: [name]).isEmpty == false) ?? false
    }
  }

  /// Primary keys (local key order) of the rows of `table` that have a
  /// non-NULL foreign key with no parent row.
  private func orphanKeys(of table: String) throws -> [[SQLiteValue]] {
    guard let shape = try shape(table) else { return [] }
    let keyColumns = shape.primaryKey.map { "c." + quotedIdentifier(shape.columns[$0]) }.joined(separator: ", ")
    var keys: [[SQLiteValue]] = []
    for condition in try missingParentConditions(child: table, alias: "c") {
      keys += try db.fetchRows(sql: "SELECT \(keyColumns) FROM main.\(quotedIdentifier(table)) AS c WHERE \(condition)")
    }
    return keys
  }

  /// One SQL condition per foreign key of `child`: true when the key is set
  /// and its parent row is absent.
  private func missingParentConditions(child: String, alias: String) throws -> [String] {
    let rows = try Row.fetchAll(db, sql: "SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?) ORDER BY id, seq", arguments: [child])
    var byID: [Int: (parent: String, pairs: [(from: String, to: String?)])] = [:]
    for row in rows {
      let id: Int = row[0]
      byID[id, default: (row[1], [])].pairs.append((row[2], row[3]))
    }
    return try byID.keys.sorted().compactMap { id in
      let (parent, pairs) = byID[id]!
      var targets = pairs.map(\.to)
      if targets.contains(where: { $0 == nil }) {
        guard let parentShape = try TableShape.read(db, table: parent) else { return nil }
        targets = parentShape.primaryKey.map { parentShape.columns[$0] }
      }
      let set = pairs.map { "\(alias).\(quotedIdentifier($0.from)) IS NOT NULL" }.joined(separator: " AND ")
      let match = zip(pairs, targets).map { "p.\(quotedIdentifier($1!)) = \(alias).\(quotedIdentifier($0.from))" }.joined(separator: " AND ")
      return "\(set) AND NOT EXISTS (SELECT 1 FROM main.\(quotedIdentifier(parent)) AS p WHERE \(match))"
    }
  }

  private func park(table: String, keyValues: [SQLiteValue]) throws {
    guard let shape = try shape(table) else { return }
    let key = try MergeStore.encodeKey(keyValues)
    guard let row = try writer(for: shape).takeOut(key: keyValues) else { return }
    let values = Dictionary(uniqueKeysWithValues: zip(shape.columns, row))
    var state = try store.load(table: table, key: key) ?? RowMergeState()
    state.retained = values
    state.parkedReason = .parent
    try store.save(table: table, key: key, state)
  }

  private func parkedForParent() throws -> [(String, Data)] {
    try Row.fetchAll(db, sql: "SELECT table_name, row_key FROM chronicle_rows WHERE parked_reason = 'parent' ORDER BY table_name, row_key")
      .map { ($0[0], $0[1]) }
  }

  private func restoreIfParentsPresent(table: String, key: Data) throws -> Bool {
    guard let shape = try shape(table), var state = try store.load(table: table, key: key), let values = state.retained else { return false }
    // Would the row have every parent? Check with the values it would have.
    for condition in try missingParentConditions(child: table, alias: "c") {
      let columns = shape.columns.filter { values[$0] != nil }
      let select = columns.map { "? AS \(quotedIdentifier($0))" }.joined(separator: ", ")
      let orphan = try db.fetchFirstRow(
        sql: "SELECT EXISTS (SELECT 1 FROM (SELECT \(select)) AS c WHERE \(condition))",
        values: columns.map { values[$0]! })?.first == .integer(1)
      if orphan { return false }
    }
    try writer(for: shape).insert(shape.columns.map { values[$0] })
    state.retained = nil
    state.parkedReason = nil
    try store.save(table: table, key: key, state)
    return true
  }
}

/// A remote event with its serialized form, as read from a bundle.
struct IncomingEvent {
  var event: ChangeEvent
  var encoded: EventCodec.Encoded
}
