import Foundation
import GRDB

/// The rows a run of received events merges into, held in memory so that
/// each is read once and written once, however many of the run's events
/// touch it: its merge state (the decisions), and the values that won.
///
/// ``flush()`` writes them through each table's ``TableRowWriter``: rows
/// leaving their table first, then rows staying (the columns that won), then
/// rows entering it, each in table and key order; then every merge state.
/// A batch flushes itself when it holds ``capacity`` rows, so memory is
/// bounded by that, not by the length of the run.
final class MergeBatch {
  /// One row: where it is, what merging decided, and its values so far.
  struct PendingRow {
    /// The row's table: its writer's position in ``writers``.
    var table: Int
    var key: Data
    /// The key's values in the table's key order.
    var orderedKey: [SQLiteValue]
    var state: RowMergeState
    /// Whether the row was in its table when the batch first touched it.
    var wasInTable: Bool
    /// By column index: for a row in its table, the values that won since;
    /// for a row out of it, every value it has (its retained values, then
    /// the winners). `state.retained` is nil while the row is in the batch.
    var values: [SQLiteValue?]
    /// Retained values of columns the table no longer has (kept as they were).
    var otherValues: [String: SQLiteValue] = [:]

    /// See ``MergeBatch/mergeWrite(row:column:name:value:version:)``: one
    /// access to the batch's rows per write instead of two.
    @inline(__always)
    mutating func mergeWrite(column: Int, name: String, value: SQLiteValue, version: WriteVersion) {
      if state.clocks.advance(name, to: version) { values[column] = value }
    }
  }

  /// A row of the batch: its writer's position in ``writers`` and its key.
  private struct RowID: Hashable, Comparable {
    var table: Int
    var key: Data

    static func < (lhs: RowID, rhs: RowID) -> Bool {
      lhs.table != rhs.table ? lhs.table < rhs.table : MergeStore.keyPrecedes(lhs.key, rhs.key)
    }
  }

  private let db: Database
  private let store: MergeStore
  /// Per writer, whether merge state may lag behind local writes to its
  /// table (merged ahead of them, see
  /// ``MergeApplier/mergesAheadOfLocalHistory``): then the table, not the
  /// stored state, tells whether a row is there, and a row there is
  /// complete (local writes inserted it).
  private var lagsBehindLocalWrites: [Bool] = []
  /// Rows held before the batch flushes itself.
  var capacity = MergeBatch.defaultCapacity
  /// 10,000 rows: about 15 MB (a held row cost about 1.5 KB of peak RSS in
  /// a TCP pull, measured with 2,000, 10,000 and 50,000). On the sync bench
  /// (a history of inserts, then updates of every row), 50,000 rows merged
  /// 100,000 changes in 3.3x the time of plain upserts (each row's insert
  /// and update written once), but a TCP client's peak RSS rose by 60 MB;
  /// 2,000 and 10,000 rows gave the same TCP time.
  static let defaultCapacity = 10_000
  private var rows: [PendingRow] = []
  private var index: [RowID: Int] = [:]
  /// The last row added, and whether rows were added in table and key order
  /// (as a peer's history usually arrives): then flushing need not sort them.
  private var lastAdded: RowID?
  private var addedInOrder = true
  private var writers: [TableRowWriter] = []
  private var writerPositions: [String: Int] = [:]
  /// Per writer, the largest key whose merge state is stored, read on the
  /// first row of its table after each flush (nil: not read yet; `.some(nil)`:
  /// none stored). A row with a larger key has no merge state to load, as
  /// every row of a first sync in key order.
  private var largestStoredKeys: [Data??] = []
  /// The stored states of rows about to be touched.
  private var readAhead = MergeStateReadAhead()

  init(_ db: Database) {
    self.db = db
    self.store = MergeStore(db: db)
  }

  /// The writer of a table, made on first use.
  func writer(for shape: TableShape) -> TableRowWriter {
    writers[tablePosition(shape)]
  }

  /// The position of a table's writer, made on first use: what
  /// ``row(ofTable:key:orderedKey:)`` takes, found once per table rather
  /// than by name for each row change.
  func tablePosition(_ shape: TableShape) -> Int {
    if let position = writerPositions[shape.name] { return position }
    writers.append(TableRowWriter(db, shape: shape))
    largestStoredKeys.append(nil)
    lagsBehindLocalWrites.append(false)
    writerPositions[shape.name] = writers.count - 1
    return writers.count - 1
  }

  /// Notes that local writes to a table (by its position) are not folded
  /// into its rows' merge state.
  func lagsBehindLocalWrites(table: Int) {
    lagsBehindLocalWrites[table] = true
  }

  /// The position in ``rows`` of the row with `key`, loading its merge state on first touch.
  func row(ofTable table: Int, key: Data, orderedKey: [SQLiteValue]) throws -> Int {
    let id = RowID(table: table, key: key)
    if let position = index[id] { return position }
    if rows.count >= capacity { try flush() }
    let writer = writers[table]
    let shape = writer.shape
    if largestStoredKeys[id.table] == nil { largestStoredKeys[id.table] = .some(try store.largestKey(table: shape.name)) }
    let mayBeStored = largestStoredKeys[id.table]!.map { !MergeStore.keyPrecedes($0, key) } ?? false
    let stored = mayBeStored ? try readAhead.state(table: shape.name, key: key, in: store) : nil
    var state = stored ?? RowMergeState(clocks: ColumnClocks(capacity: shape.columns.count), retained: [:])
    if lagsBehindLocalWrites[table] { try catchUpWithLocalHistory(&state, stored: stored != nil, writer: writer, key: orderedKey) }
    var values = [SQLiteValue?](repeating: nil, count: shape.columns.count)
    var otherValues: [String: SQLiteValue] = [:]
    let wasInTable = state.retained == nil
    if let retained = state.retained {
      for (column, value) in retained {
        if let position = writer.columnIndex[column] { values[position] = value } else { otherValues[column] = value }
      }
      state.retained = nil
    }
    rows.append(PendingRow(table: table, key: key, orderedKey: orderedKey, state: state, wasInTable: wasInTable, values: values, otherValues: otherValues))
    index[id] = rows.count - 1
    if let lastAdded, addedInOrder, !(lastAdded < id) { addedInOrder = false }
    lastAdded = id
    return rows.count - 1
  }

  /// Brings what a row's stored merge state says of where the row is up to
  /// date with local writes not folded into it: a row in its table (stored
  /// there, or found there) is complete and has its values in the table; a
  /// row deleted here since (capture kept its values, with no delete yet
  /// folded nor a park) is complete too. Versions stay as stored: every
  /// local one is older than what merges ahead of local history.
  private func catchUpWithLocalHistory(_ state: inout RowMergeState, stored: Bool, writer: TableRowWriter, key: [SQLiteValue]) throws {
    // A local delete keeps the row's values in its state: a state with
    // none says the row is still there.
    let isInTable = try (stored && state.retained == nil) || writer.contains(key: key)
    if isInTable {
      state.retained = nil
      state.parkedReason = nil
      state.isComplete = true
    } else if stored, state.deleted == nil, state.parkedReason == nil {
      state.isComplete = true
    }
  }

  /// Merges a write of `value` to column `column` (its index; `name` its
  /// name) of a row at `version`: it wins when newer than the column's last.
  @inline(__always)
  func mergeWrite(row: Int, column: Int, name: String, value: SQLiteValue, version: WriteVersion) {
    rows[row].mergeWrite(column: column, name: name, value: value, version: version)
  }

  /// Merges an insert of a row: with it, the row has every column.
  func mergeInsert(row: Int) {
    rows[row].state.isComplete = true
  }

  /// Merges a delete of a row at `version`.
  func mergeDelete(row: Int, version: WriteVersion) {
    rows[row].state.mergeDelete(version: version)
  }

  /// Writes every row of the batch and its merge state, and empties the batch.
  func flush() throws {
    guard !rows.isEmpty else { return }
    // States are saved below, and others may be saved before the next row.
    for table in largestStoredKeys.indices { largestStoredKeys[table] = nil }
    readAhead.forget()
    let order = addedInOrder ? Array(rows.indices) : index.sorted { $0.key < $1.key }.map(\.value)
    index.removeAll(keepingCapacity: true)
    lastAdded = nil
    addedInOrder = true
    var entering: [Int] = []
    var staying: [Int] = []
    // Rows are read in place (rows[position].field): a copy of a row
    // retains each of its fields.
    for position in order {
      switch (rows[position].wasInTable, rows[position].state.belongsInTable) {
      case (true, false):
        // The row leaves its table; its values stay in the merge state.
        let writer = writers[rows[position].table]
        if let current = try writer.takeOut(key: rows[position].orderedKey) {
          for (column, value) in current.enumerated() where rows[position].values[column] == nil {
            rows[position].values[column] = value
          }
        }
        retain(position)
      case (false, false):
        retain(position)
      case (true, true):
        staying.append(position)
      case (false, true):
        entering.append(position)
      }
    }
    for position in staying {
      try writers[rows[position].table].update(rows[position].values, key: rows[position].orderedKey)
    }
    for position in entering {
      let shape = writers[rows[position].table].shape
      for (column, value) in zip(shape.primaryKey, rows[position].orderedKey) { rows[position].values[column] = value }
      rows[position].state.parkedReason = nil
    }
    // Entering rows are in table order: each table's run goes in at once.
    var start = 0
    while start < entering.count {
      let table = rows[entering[start]].table
      var end = start + 1
      while end < entering.count, rows[entering[end]].table == table { end += 1 }
      try writers[table].insert(count: end - start) { rows[entering[start + $0]].values }
      start = end
    }
    try store.save(count: order.count) { index in
      let position = order[index]
      return (writers[rows[position].table].shape.name, rows[position].key, rows[position].state)
    }
    rows.removeAll(keepingCapacity: true)
  }

  /// Keeps the values of a row that is not in its table in its merge state.
  private func retain(_ position: Int) {
    var retained = rows[position].otherValues
    let columns = writers[rows[position].table].shape.columns
    for (column, value) in rows[position].values.enumerated() { if let value { retained[columns[column]] = value } }
    rows[position].state.retained = retained
    rows[position].state.parkedReason = rows[position].state.isLive ? .incomplete : nil
  }

  /// Tells observers of the tables written since the last call.
  func notifyObservers() throws {
    for writer in writers { try writer.notifyObservers() }
  }
}
