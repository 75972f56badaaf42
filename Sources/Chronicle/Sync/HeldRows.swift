import Foundation

/// The rows a ``MergeBatch`` holds, with what merging decided for each.
///
/// A row's merge state is held in the batch's own form, not as a
/// ``RowMergeState``: each column's clock is a number in ``BatchVersions``,
/// and the rows' key values, values and clocks sit in three arrays shared
/// by every row, one slot per column of its table. Holding a row then costs
/// no allocation of its own, and merging a write compares two numbers.
/// (`HeldRows+StoredState.swift` reads and writes states in that form.)
///
/// A struct, worked on through mutating methods: inside them the arrays
/// are the method's own, where a class's stored arrays would be checked
/// for exclusive access at every element read and write.
struct HeldRows {
  /// One row: where it is and what merging decided. Its key values start
  /// at `keyStart` in ``keyValues``, its values and column clocks at
  /// `slotStart` in ``values`` and ``clocks`` (one slot per column).
  struct Row {
    /// The row's table: its position in ``tables``.
    var table: Int
    var key: Data
    var keyStart: Int
    var slotStart: Int
    /// Whether an insert of the row has been merged.
    var isComplete = false
    /// Whether the row was in its table when the batch first touched it.
    var wasInTable = false
    /// The latest delete's version, or ``BatchVersions/none``.
    var deleted = BatchVersions.none
    /// Why the row, live, is not in its table.
    var parkedReason: RowMergeState.ParkedReason?
    /// Whether the row is saved with its values (it is not in its table):
    /// decided when the batch flushes.
    var retainsValues = false
    /// Clocks and retained values of columns its table no longer has (rare).
    var otherColumns: OtherColumns?
  }

  /// What a row's stored state holds of columns its table no longer has.
  final class OtherColumns {
    var clocks: [(column: String, version: Int32)] = []
    var values: [String: SQLiteValue] = [:]
  }

  /// A table rows are held for.
  struct Table {
    var shape: TableShape
    /// Each column's index, by name.
    var columnIndex: [String: Int]
    /// Its numbers in the store's dictionary, found on first use.
    var form: StoredTableForm?
    /// The shape's column and key column counts, read for every row
    /// (reading them through `shape` would retain its arrays each time).
    let columnCount: Int
    let keyCount: Int
    /// Whether the keys of rows written into the table are noted (it has
    /// foreign keys: the run ends by checking their parents).
    let notesWrittenKeys: Bool
    /// Since the run began: the keys of rows written into the table (nil
    /// past ``RunFootprint/keyLimit``, or when not noted), and whether any
    /// row left it.
    var writtenKeys: [[SQLiteValue]]? = []
    var lostRows = false
    /// Whether a row staying in the table can orphan rows that refer to it
    /// (a foreign key refers to columns besides its primary key): then an
    /// update counts as a row lost.
    var updatesMayOrphan = false

    init(shape: TableShape, columnIndex: [String: Int], notesWrittenKeys: Bool) {
      self.shape = shape
      self.columnIndex = columnIndex
      columnCount = shape.columns.count
      keyCount = shape.primaryKey.count
      self.notesWrittenKeys = notesWrittenKeys
    }

    /// Notes a row written into the table, while there are few enough.
    mutating func noteWritten(_ key: ArraySlice<SQLiteValue>) {
      guard notesWrittenKeys, writtenKeys != nil else { return }
      if writtenKeys!.count >= RunFootprint.keyLimit {
        writtenKeys = nil
      } else {
        writtenKeys!.append(Array(key))
      }
    }
  }

  /// A row of the batch: its table's position and its key.
  struct RowID: Hashable, Comparable {
    var table: Int
    var key: Data

    static func < (lhs: RowID, rhs: RowID) -> Bool {
      lhs.table != rhs.table ? lhs.table < rhs.table : MergeStore.keyPrecedes(lhs.key, rhs.key)
    }
  }

  var tables: [Table] = []
  private(set) var rows: [Row] = []
  /// Every row's key values, in key order.
  private(set) var keyValues: [SQLiteValue] = []
  /// Every row's values by column (nil: none won, or none retained). For a
  /// row in its table, the values that won since the batch touched it; for
  /// a row out of it, every value it has (its retained values, then the winners).
  var values: [SQLiteValue?] = []
  /// Every row's column clocks, as numbers in ``versions``.
  var clocks: [Int32] = []
  var versions = BatchVersions()
  private var index: [RowID: Int] = [:]
  /// The last row added, and whether rows were added in table and key order
  /// (as a peer's history usually arrives): then flushing need not sort them.
  private var lastAdded: RowID?
  private var addedInOrder = true

  var count: Int { rows.count }
  var isEmpty: Bool { rows.isEmpty }

  /// The position of the row with `key`, if held.
  func position(table: Int, key: Data) -> Int? {
    let id = RowID(table: table, key: key)
    // Rows mostly come in key order: one past every row held is not held
    // (a comparison of a few bytes, where a lookup hashes the key).
    if addedInOrder, let lastAdded, lastAdded < id { return nil }
    return index[id]
  }

  /// Holds a row not held yet, with the merge state stored for it (nil: none
  /// is); returns its position. `keyValue` gives its key values in key order.
  ///
  /// - Parameter catchesUp: whether local writes not folded into merge state
  ///   changed the row's table; then `isInTable` tells whether it is there.
  mutating func add(
    table: Int, key: Data, keyValue: (Int) -> SQLiteValue, stored: StoredMergeState?, dictionary: MergeDictionary,
    catchesUp: Bool, isInTable: (ArraySlice<SQLiteValue>) throws -> Bool
  ) throws -> Int {
    let (columnCount, keyCount) = (tables[table].columnCount, tables[table].keyCount)
    var row = Row(table: table, key: key, keyStart: keyValues.count, slotStart: values.count)
    for position in 0..<keyCount { keyValues.append(keyValue(position)) }
    values.append(contentsOf: repeatElement(nil, count: columnCount))
    clocks.append(contentsOf: repeatElement(BatchVersions.none, count: columnCount))
    // A row with no stored state is out of its table, with no values yet.
    var retained = stored == nil ? [] : stored!.retained
    if let stored { try load(stored, into: &row, dictionary) }
    if catchesUp {
      // What local writes not folded did to the row: one in its table (as
      // its state says, with no values retained, or found there) is complete
      // and has its values there; one deleted here since (capture kept its
      // values, with no delete yet folded nor a park) is complete too.
      // Versions stay as stored: every local one is older than what merges
      // ahead of local history.
      if try (stored != nil && retained == nil) || isInTable(keyValues[row.keyStart...]) {
        retained = nil
        row.parkedReason = nil
        row.isComplete = true
      } else if stored != nil, row.deleted == BatchVersions.none, row.parkedReason == nil {
        row.isComplete = true
      }
    }
    row.wasInTable = retained == nil
    if let retained, !retained.isEmpty { try loadRetainedValues(retained, into: &row) }
    rows.append(row)
    let id = RowID(table: table, key: key)
    index[id] = rows.count - 1
    if let lastAdded, addedInOrder, !(lastAdded < id) { addedInOrder = false }
    lastAdded = id
    return rows.count - 1
  }

  /// Merges a write of `value` to column `column` (its index in the row's
  /// table) of a row at `version`: it wins when newer than the column's last.
  @inline(__always)
  mutating func mergeWrite(row: Int, column: Int, value: SQLiteValue, version: WriteVersion) {
    let number = versions.number(version)
    let slot = rows[row].slotStart + column
    if versions.isNewer(number, than: clocks[slot]) {
      clocks[slot] = number
      values[slot] = value
    }
  }

  /// Merges an insert of a row: with it, the row has every column.
  mutating func mergeInsert(row: Int) {
    rows[row].isComplete = true
  }

  /// Merges a delete of a row at `version`.
  mutating func mergeDelete(row: Int, version: WriteVersion) {
    let number = versions.number(version)
    if versions.isNewer(number, than: rows[row].deleted) { rows[row].deleted = number }
  }

  /// Whether some column of a row was written after its latest delete.
  func isLive(_ position: Int) -> Bool {
    var latest = BatchVersions.none
    for slot in slots(of: position) where versions.isNewer(clocks[slot], than: latest) { latest = clocks[slot] }
    for (_, version) in rows[position].otherColumns?.clocks ?? [] where versions.isNewer(version, than: latest) { latest = version }
    return versions.isNewer(latest, than: rows[position].deleted)
  }

  /// Where a row's values and clocks are, one slot per column of its table.
  func slots(of position: Int) -> Range<Int> {
    rows[position].slotStart..<(rows[position].slotStart + tables[rows[position].table].columnCount)
  }

  /// Where a row's key values are, in key order.
  func keySlots(of position: Int) -> Range<Int> {
    rows[position].keyStart..<(rows[position].keyStart + tables[rows[position].table].keyCount)
  }

  // MARK: - Flushing

  /// Writes every row through its table's writer and saves its merge state
  /// through `store`, then lets them go: rows leaving their table first,
  /// then rows staying (the columns that won), then rows entering it, each
  /// in table and key order; then every merge state.
  mutating func write(through writers: [TableRowWriter], store: MergeStore) throws {
    let order = addedInOrder ? Array(rows.indices) : index.sorted { $0.key < $1.key }.map(\.value)
    var entering: [Int] = []
    var staying: [Int] = []
    for position in order {
      let belongsInTable = rows[position].isComplete && isLive(position)
      switch (rows[position].wasInTable, belongsInTable) {
      case (true, false):
        // The row leaves its table; its values stay in the merge state.
        if let current = try writers[rows[position].table].takeOut(key: keyValues[keySlots(of: position)]) {
          for (slot, value) in zip(slots(of: position), current) where values[slot] == nil { values[slot] = value }
          tables[rows[position].table].lostRows = true
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
      try writers[rows[position].table].update(values[slots(of: position)], key: keyValues[keySlots(of: position)])
      tables[rows[position].table].noteWritten(keyValues[keySlots(of: position)])
      if tables[rows[position].table].updatesMayOrphan { tables[rows[position].table].lostRows = true }
    }
    for position in entering {
      let row = rows[position]
      tables[row.table].noteWritten(keyValues[keySlots(of: position)])
      for (column, key) in zip(tables[row.table].shape.primaryKey, keySlots(of: position)) { values[row.slotStart + column] = keyValues[key] }
      rows[position].parkedReason = nil
    }
    // Entering rows are in table order: each table's run goes in at once.
    var start = 0
    while start < entering.count {
      let table = rows[entering[start]].table
      var end = start + 1
      while end < entering.count, rows[entering[end]].table == table { end += 1 }
      try writers[table].insert(count: end - start) { values[slots(of: entering[start + $0])] }
      start = end
    }
    try saveStates(in: order, store)
    removeAll()
  }

  /// Marks a row that is not in its table to be saved with its values, and
  /// parked when it is live (an update came before its insert).
  private mutating func retain(_ position: Int) {
    rows[position].retainsValues = true
    rows[position].parkedReason = isLive(position) ? .incomplete : nil
  }

  private mutating func removeAll() {
    rows.removeAll(keepingCapacity: true)
    keyValues.removeAll(keepingCapacity: true)
    values.removeAll(keepingCapacity: true)
    clocks.removeAll(keepingCapacity: true)
    index.removeAll(keepingCapacity: true)
    versions.removeAll()
    lastAdded = nil
    addedInOrder = true
  }
}
