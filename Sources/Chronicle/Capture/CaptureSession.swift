import CChronicleSQLite
import Foundation
import GRDB
import GRDBSQLite

/// Captures the row changes of the writer connection and turns each write
/// transaction into one ``ChangeEvent``.
///
/// How it works, like SQLite's session extension:
/// 1. The connection's preupdate hook reports every row change on a tracked
///    table (raw SQL, upserts, REPLACE deletions and foreign-key cascades
///    included). The session notes the row's primary key and, the first time
///    the row is touched in the transaction, its values before the change.
/// 2. Before commit, ``appendEvent(_:)`` reads each touched row back by key and
///    compares it with its before-image: absent then present is an insert,
///    present then absent a delete, changed columns an update, equal nothing.
///    Reading the final state back makes savepoint rollbacks and failed
///    statements inside the transaction come out right without tracking them.
/// 3. Schema changes are found by comparing the schema with the last logged
///    one, and go first in the event.
///
/// Confinement: every method runs on the writer connection's serialized
/// dispatch queue, which is why the type can be `@unchecked Sendable`.
final class CaptureSession: @unchecked Sendable {
  let connection: OpaquePointer
  /// The origin of the events this session appends (changes only when the
  /// log restarts under a new identity, see ``restartLog(as:schemaEpoch:_:)``).
  private(set) var peer: PeerID
  let clock: HybridLogicalClock
  let compressor: BodyCompressor

  /// Tracked tables by name.
  private(set) var tables: [String: TrackedTable] = [:]
  private var readers: [ObjectIdentifier: (name: String, generation: Int, reader: RowReader)] = [:]
  private var snapshot = SchemaSnapshot(version: -1, objects: [])

  /// A row the transaction touched, in first-touch order. Kept small and
  /// free of references: one is appended per inserted row.
  private struct TouchedRow {
    /// Index into ``touchedTables``.
    let table: Int32
    /// Index into ``beforeImages``; -1 when the row did not exist before.
    let before: Int32
    let key: RowKey
  }

  /// A row's values when the transaction first touched it.
  private struct BeforeImage {
    let values: [SQLiteValue]
    /// The table's column generation and columns when `values` were read.
    let generation: Int
    let columns: [String]
  }

  private var touchedIndex = TouchedRowIndex()
  private var touched: [TouchedRow] = []
  /// The tables of ``touched``, in first-touch order.
  private var touchedTables: [TrackedTable] = []
  private var beforeImages: [BeforeImage] = []
  private var hookFailure: ChronicleError?
  /// Main-schema tables written in this transaction that were not tracked at
  /// the time (a tracked table renamed earlier in the transaction shows up here).
  private var untrackedTablesWritten = Set<String>()

  /// This peer's next sequence and epoch; nil when it must be read again
  /// from the log (after a rollback that may have undone an append).
  private var position: LocalLogPosition?
  /// Why this session may not append events, if it may not: the database's
  /// device key is missing, so nothing it wrote could be signed.
  var writeRefusal: ChronicleError?

  /// While true, changes are not captured: set only by
  /// ``uncaptured(_:foreignKeysOff:_:)``.
  var isSuspended = false {
    didSet { if isSuspended { tableWrittenByTriggerWhileSuspended = nil } }
  }
  /// The first tracked table a trigger wrote while capture was suspended:
  /// a write that no event describes, which a merge refuses.
  private(set) var tableWrittenByTriggerWhileSuspended: String?
  /// A migration running in the current transaction: the next event records
  /// it, and its column renames guide the schema diff.
  var pendingMigration: PendingMigration?
  /// A change of the group's member list made in the current transaction:
  /// the next event carries it.
  var pendingMembership: [MembershipChange] = []

  // Last table looked up by the hook, to skip a String allocation per row.
  private var lastTableName: [CChar] = [0]
  private var lastTable: TrackedTable?

  init(connection: OpaquePointer, peer: PeerID, clock: HybridLogicalClock, compressionLevel: Int32) {
    self.connection = connection
    self.peer = peer
    self.clock = clock
    self.compressor = BodyCompressor(level: compressionLevel)
  }

  // No deinit that clears the hook: the session lives as long as the
  // connection (its CaptureGuard is registered for the database's lifetime),
  // and by the time it goes the connection may already be closed and freed.

  /// Starts receiving the connection's row changes.
  func installHook() {
    let context = Unmanaged.passUnretained(self).toOpaque()
    chronicle_set_preupdate_hook(connection, { context, _, operation, schema, table, oldRowid, newRowid in
      guard let context, let schema, let table else { return }
      Unmanaged<CaptureSession>.fromOpaque(context).takeUnretainedValue()
        .rowWillChange(operation: operation, schema: schema, table: table, oldRowid: oldRowid, newRowid: newRowid)
    }, context)
  }

  /// Whether the transaction has changed tracked rows that no event describes yet.
  var hasPendingChanges: Bool { !touched.isEmpty }

  /// Names of the tables with pending changes.
  var pendingTableNames: [String] {
    var seen = Set<String>()
    return touchedTables.compactMap { seen.insert($0.name).inserted ? $0.name : nil }
  }

  /// Forgets what the transaction captured (after commit or rollback).
  func discardPendingChanges() {
    touched.removeAll(keepingCapacity: touched.capacity <= 4096)  // a big transaction does not keep its memory
    touchedTables.removeAll(keepingCapacity: true)
    beforeImages.removeAll(keepingCapacity: beforeImages.capacity <= 4096)
    touchedIndex.removeAll()
    untrackedTablesWritten.removeAll()
    hookFailure = nil
  }

  /// Forgets the cached log position: the transaction that appended may have
  /// rolled back.
  func transactionDidRollBack() {
    discardPendingChanges()
    position = nil
  }

  // MARK: - Loading

  /// Loads the tracked tables and the last logged schema.
  /// Installs the guard triggers tracked tables lack (a database tracked
  /// before guards existed, or guards dropped by hand); returns the tables
  /// that lacked them. Keeps the schema snapshot current, so the next
  /// transaction does not take the new triggers for a schema change.
  func ensureGuards(_ db: Database) throws -> [String] {
    let unguarded = try GuardTriggers.missing(for: tables.keys, db)
    guard !unguarded.isEmpty else { return [] }
    try GuardTriggers.ensure(for: unguarded, db)
    try keepSnapshotCurrent(db)
    return unguarded
  }

  /// Drops every guard trigger (``ChronicleConfiguration/guardsTrackedTables``
  /// off), and forgets they were installed: turned on again later, they are
  /// installed without suspicion.
  func removeGuards(_ db: Database) throws {
    guard try GuardTriggers.removeAll(db) else { return }
    try ChronicleMeta(db: db).remove(.guardsInstalled)
    try keepSnapshotCurrent(db)
  }

  /// After Chronicle changed only its own objects: the snapshot's objects
  /// are still right, its version moves.
  private func keepSnapshotCurrent(_ db: Database) throws {
    let version = try SchemaSnapshot.currentVersion(db)
    if snapshot.version != version, snapshot.objects == (try SchemaSnapshot.read(db)).objects {
      snapshot.version = version
      try SchemaStore.saveLoggedSnapshot(snapshot, db)
    }
  }

  /// Whether tracked tables get guard triggers (see ``GuardTriggers``).
  var guardsTables = true

  func load(_ db: Database) throws {
    snapshot = try SchemaStore.loggedSnapshot(db)
    tables = [:]
    readers = [:]
    for name in try TrackedTables.names(db) {
      guard let shape = try TableShape.read(db, table: name) else { continue }  // dropped outside Chronicle: the next write logs it
      tables[name] = TrackedTable(shape: shape)
    }
    resetLookupCache()
  }

  /// Finalizes the statements the read-back keeps prepared, so that the
  /// connection can close (they are prepared again when needed).
  func finalizeReadBackStatements() {
    readers = [:]
  }

  /// Starts tracking `shape`'s table (already validated).
  func startTracking(_ shape: TableShape) -> TrackedTable {
    let table = TrackedTable(shape: shape)
    tables[shape.name] = table
    resetLookupCache()
    return table
  }

  /// Starts an empty log under a new peer identity, after the caller has
  /// deleted the old log and the tracked rows in this transaction. The first
  /// event logs the schema as it stands, at `schemaEpoch` (the epoch the old
  /// log had reached: an identity change is not a schema change).
  func restartLog(as newPeer: PeerID, schemaEpoch: UInt64, _ db: Database) throws {
    discardPendingChanges()
    peer = newPeer
    tables = [:]
    readers = [:]
    snapshot = SchemaSnapshot(version: -1, objects: [])
    resetLookupCache()
    // Logging the tracked tables raises the epoch by one.
    let startsTracking = try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'table'")
      .contains { try TableShape.read(db, table: $0)?.isTrackable == true }
    position = LocalLogPosition(nextSequence: 1, schemaEpoch: startsTracking && schemaEpoch > 0 ? schemaEpoch - 1 : schemaEpoch)
    _ = try appendEvent(db)
  }

  /// Takes up the log as the database holds it, under `peer`: after a
  /// ``restartLog(as:schemaEpoch:_:)`` whose transaction rolled back.
  func resumeLog(as peer: PeerID, _ db: Database) throws {
    discardPendingChanges()
    self.peer = peer
    position = nil
    try load(db)
  }

  private func resetLookupCache() {
    lastTableName = [0]
    lastTable = nil
  }

  // MARK: - Hook

  /// Notes a row change reported by the preupdate hook. `oldRowid` is
  /// meaningful for updates and deletes, `newRowid` for inserts and updates.
  private func rowWillChange(
    operation: Int32, schema: UnsafePointer<CChar>, table name: UnsafePointer<CChar>, oldRowid: Int64, newRowid: Int64
  ) {
    guard strcmp(schema, "main") == 0 else { return }
    if isSuspended {
      if tableWrittenByTriggerWhileSuspended == nil, chronicle_preupdate_depth(connection) > 0 {
        let string = String(cString: name)
        if tables[string] != nil { tableWrittenByTriggerWhileSuspended = string }
      }
      return
    }
    let table: TrackedTable
    if strcmp(name, lastTableName) == 0 {
      guard let cached = lastTable else { return }
      table = cached
    } else {
      let string = String(cString: name)
      lastTableName = Array(string.utf8CString)
      lastTable = tables[string]
      guard let found = lastTable else {
        untrackedTablesWritten.insert(string)
        return
      }
      table = found
    }
    switch operation {
    case SQLITE_INSERT:
      let key = table.keyIsRowid ? .integer(newRowid) : readKey(table, chronicle_preupdate_new)
      guard let key else { return }
      touch(table, key: key, readBefore: false)
    case SQLITE_DELETE:
      let key = table.keyIsRowid ? .integer(oldRowid) : readKey(table, chronicle_preupdate_old)
      guard let key else { return }
      touch(table, key: key, readBefore: true)
    case SQLITE_UPDATE:
      let oldKey = table.keyIsRowid ? .integer(oldRowid) : readKey(table, chronicle_preupdate_old)
      let newKey = table.keyIsRowid ? .integer(newRowid) : readKey(table, chronicle_preupdate_new)
      guard let oldKey, let newKey else { return }
      touch(table, key: oldKey, readBefore: true)
      if newKey != oldKey { touch(table, key: newKey, readBefore: false) }
    default:
      break
    }
  }

  private func readKey(_ table: TrackedTable, _ read: (OpaquePointer?, Int32) -> OpaquePointer?) -> RowKey? {
    if table.primaryKey.count == 1 {
      let column = table.primaryKey[0]
      guard let value = read(connection, table.columnIndexes[column]) else {
        hookFailure = .capturedValueUnreadable(table: table.name, column: table.columns[column])
        return nil
      }
      if sqlite3_value_type(value) == SQLITE_INTEGER { return .integer(sqlite3_value_int64(value)) }
      return .values([SQLiteValue(sqliteValue: value)])
    }
    var key: [SQLiteValue] = []
    key.reserveCapacity(table.primaryKey.count)
    for column in table.primaryKey {
      guard let value = read(connection, table.columnIndexes[column]) else {
        hookFailure = .capturedValueUnreadable(table: table.name, column: table.columns[column])
        return nil
      }
      key.append(SQLiteValue(sqliteValue: value))
    }
    return .values(key)
  }

  private func touch(_ table: TrackedTable, key: RowKey, readBefore: Bool) {
    guard touchedIndex.position(of: table, key: key, orRecord: touched.count) == nil else { return }
    var before: Int32 = -1
    if readBefore {
      var values: [SQLiteValue] = []
      values.reserveCapacity(table.columns.count)
      for (position, column) in table.columnIndexes.enumerated() {
        guard let value = chronicle_preupdate_old(connection, column) else {
          hookFailure = .capturedValueUnreadable(table: table.name, column: table.columns[position])
          return
        }
        values.append(SQLiteValue(sqliteValue: value))
      }
      before = Int32(beforeImages.count)
      beforeImages.append(BeforeImage(values: values, generation: table.generation, columns: table.columns))
    }
    touched.append(TouchedRow(table: slot(of: table), before: before, key: key))
  }

  /// The index of `table` in ``touchedTables``, which it joins if new.
  private func slot(of table: TrackedTable) -> Int32 {
    if let last = touchedTables.last, last === table { return Int32(touchedTables.count - 1) }
    if let found = touchedTables.firstIndex(where: { $0 === table }) { return Int32(found) }
    touchedTables.append(table)
    return Int32(touchedTables.count - 1)
  }

  // MARK: - Building the event

  /// Turns what the transaction changed into one event and appends it to the
  /// log, inside the transaction. Returns nil when nothing changed.
  func appendEvent(_ db: Database) throws -> AppendedEvent? {
    if let hookFailure { throw hookFailure }
    compressor.discardPending()  // what a failed append left
    var body = EventBodyWriter()
    var tableIndexes: [ObjectIdentifier: Int] = [:]
    func index(of table: TrackedTable) -> Int {
      if let index = tableIndexes[ObjectIdentifier(table)] { return index }
      let index = body.addTable(table.descriptor)
      tableIndexes[ObjectIdentifier(table)] = index
      return index
    }
    var newlyTracked: [TrackedTable] = []
    var fullTables: [TrackedTable] = []
    var changesTrackedShape = false

    let version = try SchemaSnapshot.currentVersion(db)
    if version != snapshot.version {
      var current = try SchemaSnapshot.read(db)
      let diff = SchemaDiff(
        from: snapshot, to: current, columnRenames: pendingMigration?.columnRenames ?? [:],
        rewrittenTables: pendingMigration?.rewrittenTables ?? [])
      for change in diff.changes { try body.appendSchema(change) }
      let trackedBefore = Set(tables.keys)
      (newlyTracked, fullTables) = try applyTracking(of: diff, db)
      // The epoch counts changes to the synced shape only: a local index,
      // view or untracked table must not set this peer apart from the others.
      changesTrackedShape = !newlyTracked.isEmpty
        || diff.renamedTables.contains { trackedBefore.contains($0.from) }
        || diff.droppedTables.contains(where: trackedBefore.contains)
        || diff.alteredTables.contains(where: trackedBefore.contains)
      // A tracked table renamed and then written under its new name in this
      // transaction: those writes were not seen, so the event empties the
      // table and carries its rows whole.
      for (_, name) in diff.renamedTables where untrackedTablesWritten.contains(name) {
        guard let table = tables[name], let object = current.object(type: "table", name: name) else { continue }
        let dependents = current.objects.filter { $0.tableName == name && ($0.type == "index" || $0.type == "trigger") }.map(\.sql)
        try body.appendSchema(.rebuildTable(name: name, createSQL: object.sql, copiedColumns: [], dependents: dependents))
        fullTables.append(table)
      }
      // New or rebuilt tracked tables get their guards (objects of
      // Chronicle's own, outside the snapshot: only its version moves). A
      // table that was there before (same root page) and lost them had them
      // dropped by hand: writes may have bypassed Chronicle since.
      let unguarded = guardsTables ? try GuardTriggers.missing(for: tables.keys, db) : []
      if !unguarded.isEmpty {
        let earlierRoots = Set(snapshot.objects.filter { $0.type == "table" }.map(\.rootPage))
        let stripped = unguarded.filter { name in current.object(type: "table", name: name).map { earlierRoots.contains($0.rootPage) } ?? false }
        try GuardTriggers.ensure(for: tables.keys, db)
        current.version = try SchemaSnapshot.currentVersion(db)
        if !stripped.isEmpty, try UntrackedWrites.guardsWereInstalled(db) { try UntrackedWrites.suspect(stripped, db) }
      }
      snapshot = current
      try SchemaStore.saveLoggedSnapshot(current, db)
    }

    if let pending = pendingMigration {
      try body.appendSchema(.migration(pending.migration))
      changesTrackedShape = true
    }
    for change in pendingMembership { body.appendMembership(change) }
    pendingMembership = []

    let dumped = Set(fullTables.map(ObjectIdentifier.init))
    var deletedRows: [(table: TrackedTable, key: RowKey, values: [SQLiteValue?])] = []
    // The rows the event changes, per table, for merges to come (see EventRowTouches).
    var rowHashes: [String: [UInt32]] = [:]
    var tableHashes: (name: String, hashes: [UInt32])?
    func endTableHashes() {
      guard let (name, hashes) = tableHashes else { return }
      rowHashes[name, default: []].append(contentsOf: hashes)
      tableHashes = nil
    }
    do {
      // Walks are released at the end of the block, before anything is written.
      var lastTable: (table: TrackedTable, index: Int, reader: RowReader, seed: UInt64)?
      var usedReaders: [RowReader] = []
      defer { for reader in usedReaders { reader.finish() } }
      for row in touched {
        let table = touchedTables[Int(row.table)]
        if lastTable?.table !== table {
          // Rows of tables dropped in this transaction, or dumped whole, need no operation.
          guard tables[table.name] === table, !dumped.contains(ObjectIdentifier(table)) else { continue }
          let reader = try reader(for: table)
          if !usedReaders.contains(where: { $0 === reader }) { usedReaders.append(reader) }
          lastTable = (table, index(of: table), reader, EventRowTouches.seed(table: table.name))
          endTableHashes()
          tableHashes = (table.name, [])
        }
        guard let (_, tableIndex, reader, seed) = lastTable else { continue }
        tableHashes?.hashes.append(EventRowTouches.hash(table: seed, key: row.key))
        let before = beforeImage(of: row)
        let deleted = try reader.withRow(key: row.key) { statement in
          do {
            try body.appendRowChange(table: tableIndex, key: row.key, before: before, row: statement, columnCount: reader.columnCount)
          } catch let error as EventFormatError where error.problem == .invalidUTF8 {
            throw Self.textNotUTF8(table, statement, reader.columnCount)
          }
          return statement == nil && before != nil
        }
        if body.operations.count > compressor.nextSubmission { compressor.submitPieces(of: body.operations.bytes) }
        if deleted, let before { deletedRows.append((table, row.key, before)) }
      }
      endTableHashes()
    }
    for table in fullTables {
      let reader = try AllRowsReader(connection: connection, table: table)
      let tableIndex = index(of: table)
      try reader.forEach { statement in
        do {
          try body.appendRowChange(table: tableIndex, key: .values([]), before: nil, row: statement, columnCount: reader.columnCount)
        } catch let error as EventFormatError where error.problem == .invalidUTF8 {
          throw Self.textNotUTF8(table, statement, reader.columnCount)
        }
        if body.operations.count > compressor.nextSubmission { compressor.submitPieces(of: body.operations.bytes) }
      }
    }
    discardPendingChanges()

    guard body.operationCount > 0 else { return nil }
    if let writeRefusal { throw writeRefusal }
    // A reader of its group writes no rows that sync: refused before commit.
    if !rowHashes.isEmpty || !fullTables.isEmpty, try GroupMembership(db: db).member(peer)?.role == .reader {
      throw ChronicleError.writePermission(
        "this device (\(peer)) is a reader of its group: its writes would be refused by every member. Fix: an admin can make it a writer (chronicle role DB \(peer) writer)")
    }
    var position = try self.position ?? LocalLogPosition.read(db, origin: peer)
    self.position = nil  // until the append succeeds
    // Tables copied whole have no hashes: their rows could be any.
    let appended = try EventAppender.appendLocal(
      db, origin: peer, clock: clock, position: &position, body: body, rows: .captured(rowHashes),
      advancesEpoch: changesTrackedShape, compressor: compressor)
    self.position = position
    pendingMigration = nil
    // Sync merges later writes into deleted rows: keep their last values.
    let store = deletedRows.isEmpty ? nil : MergeStore(db: db)
    var encoders: [String: RetainedValuesEncoder] = [:]
    for (table, key, values) in deletedRows {
      let retained: [UInt8]
      if values.contains(where: { $0 == nil }) {
        // A column added after the row's before image: it had no value then.
        let present = values.indices.filter { values[$0] != nil }
        retained = try RetainedValuesEncoder(columns: present.map { table.columns[$0] }).encode { values[present[$0]]! }
      } else {
        let columns = Array(table.columns.prefix(values.count))
        let encoder = encoders[table.name].flatMap { $0.columns == columns ? $0 : nil } ?? RetainedValuesEncoder(columns: columns)
        encoders[table.name] = encoder
        retained = try encoder.encode { values[$0]! }
      }
      try store?.retainDeletedRow(table: table.name, key: MergeStore.encodeKey(key.values), retained: retained)
    }
    for table in newlyTracked {
      try TrackedTables.track(table.name, since: appended.id, db)
    }
    return appended
  }

  /// The before-image in the table's current column order (columns added
  /// since are absent, so they count as changed).
  /// The error for a row of `table` holding TEXT that cannot travel in an
  /// event (it is not UTF-8), naming the column.
  private static func textNotUTF8(_ table: TrackedTable, _ statement: OpaquePointer?, _ columnCount: Int32) -> ChronicleError {
    let column = statement.flatMap { firstColumnWithInvalidUTF8($0, columnCount: columnCount) }
    return .textNotUTF8(table: table.name, column: column.map { table.columns[Int($0)] } ?? "?")
  }

  private func beforeImage(of row: TouchedRow) -> [SQLiteValue?]? {
    guard row.before >= 0 else { return nil }
    let before = beforeImages[Int(row.before)]
    let table = touchedTables[Int(row.table)]
    if before.generation == table.generation { return before.values }
    let byName = Dictionary(zip(before.columns, before.values), uniquingKeysWith: { first, _ in first })
    return table.columns.map { byName[$0] }
  }

  private func reader(for table: TrackedTable) throws -> RowReader {
    let id = ObjectIdentifier(table)
    if let cached = readers[id], cached.name == table.name, cached.generation == table.generation {
      return cached.reader
    }
    let reader = try RowReader(connection: connection, table: table)
    readers[id] = (table.name, table.generation, reader)
    return reader
  }

  /// Follows renames, drops, alters and creations in the tracked set. Returns
  /// the tables tracked from now on, and the tables the event must carry whole.
  private func applyTracking(of diff: SchemaDiff, _ db: Database) throws -> (new: [TrackedTable], full: [TrackedTable]) {
    defer { resetLookupCache() }
    for (from, to) in diff.renamedTables {
      guard let table = tables.removeValue(forKey: from) else { continue }
      table.name = to
      tables[to] = table
      try TrackedTables.rename(from, to: to, db)
    }
    for name in diff.droppedTables {
      guard let table = tables.removeValue(forKey: name) else { continue }
      readers[ObjectIdentifier(table)] = nil
      try TrackedTables.untrack(name, db)
    }
    var full: [TrackedTable] = []
    for name in diff.alteredTables {
      guard let table = tables[name], let shape = try TableShape.read(db, table: name) else { continue }
      table.update(to: shape)
      if diff.tablesNeedingRows.contains(name) { full.append(table) }
    }
    var new: [TrackedTable] = []
    for name in diff.createdTables {
      guard let shape = try TableShape.read(db, table: name), shape.isTrackable else { continue }
      let table = startTracking(shape)
      new.append(table)
      full.append(table)
    }
    return (new, full)
  }
}
