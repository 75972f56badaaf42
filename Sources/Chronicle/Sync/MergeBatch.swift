import Foundation
import GRDB

/// The rows a run of received events merges into, held in memory so that
/// each is read once and written once, however many of the run's events
/// touch it: its merge state (the decisions), and the values that won
/// (``HeldRows``, in a form of the batch's own).
///
/// ``flush()`` writes them through each table's ``TableRowWriter``: rows
/// leaving their table first, then rows staying (the columns that won), then
/// rows entering it, each in table and key order; then every merge state.
/// A batch flushes itself when it holds ``capacity`` rows, so memory is
/// bounded by that, not by the length of the run.
final class MergeBatch {
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
  /// 10,000 rows. Measured when a held row was a `RowMergeState` and
  /// arrays of its own (before ``HeldRows``): about 1.5 KB of peak RSS per
  /// held row in a TCP pull (with 2,000, 10,000 and 50,000); on the sync
  /// bench (a history of inserts, then updates of every row), 50,000 rows
  /// merged 100,000 changes in 3.3x the time of plain upserts (each row's
  /// insert and update written once), but a TCP client's peak RSS rose by
  /// 60 MB; 2,000 and 10,000 rows gave the same TCP time. Not measured
  /// again since.
  static let defaultCapacity = 10_000
  private var held = HeldRows()
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
  /// ``row(ofTable:key:keyValue:)`` takes, found once per table rather
  /// than by name for each row change.
  func tablePosition(_ shape: TableShape) -> Int {
    if let position = writerPositions[shape.name] { return position }
    let writer = TableRowWriter(db, shape: shape)
    writers.append(writer)
    // Unknown: noted, as if it had them.
    let graph = ForeignKeyGraph(db: db)
    var table = HeldRows.Table(shape: shape, columnIndex: writer.columnIndex, notesWrittenKeys: (try? graph.hasForeignKeys(shape.name)) ?? true)
    table.updatesMayOrphan = (try? graph.referencesNonKeyColumns(of: shape)) ?? true
    held.tables.append(table)
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

  /// The position of the row with `key`, loading its merge state on first
  /// touch; `keyValue` gives its key values in key order, asked for only then.
  func row(ofTable table: Int, key: Data, keyValue: (Int) -> SQLiteValue) throws -> Int {
    if let position = held.position(table: table, key: key) { return position }
    if held.count >= capacity { try flush() }
    let writer = writers[table]
    if largestStoredKeys[table] == nil { largestStoredKeys[table] = .some(try store.largestKey(table: writer.shape.name)) }
    let mayBeStored = largestStoredKeys[table]!.map { !MergeStore.keyPrecedes($0, key) } ?? false
    let stored = mayBeStored ? try readAhead.state(table: writer.shape.name, key: key, in: store) : nil
    return try held.add(
      table: table, key: key, keyValue: keyValue, stored: stored, dictionary: store.dictionary,
      catchesUp: lagsBehindLocalWrites[table], isInTable: { try writer.contains(key: $0) })
  }

  /// Merges a write of `value` to column `column` (its index in the row's
  /// table) of a row at `version`: it wins when newer than the column's last.
  @inline(__always)
  func mergeWrite(row: Int, column: Int, value: SQLiteValue, version: WriteVersion) {
    held.mergeWrite(row: row, column: column, value: value, version: version)
  }

  /// Merges an insert of a row: with it, the row has every column.
  func mergeInsert(row: Int) {
    held.mergeInsert(row: row)
  }

  /// Merges a delete of a row at `version`.
  func mergeDelete(row: Int, version: WriteVersion) {
    held.mergeDelete(row: row, version: version)
  }

  /// Writes every row of the batch and its merge state, and empties the batch.
  func flush() throws {
    guard !held.isEmpty else { return }
    // States are saved below, and others may be saved before the next row.
    for table in largestStoredKeys.indices { largestStoredKeys[table] = nil }
    readAhead.forget()
    try held.write(through: writers, store: store)
  }

  /// What the batch wrote since it was made (flushed rows only).
  func footprint() -> RunFootprint {
    var footprint = RunFootprint()
    for table in held.tables {
      let name = table.shape.name.lowercased()
      if table.lostRows { footprint.tablesThatLostRows.insert(name) }
      guard table.notesWrittenKeys else { continue }
      if let keys = table.writtenKeys {
        if !keys.isEmpty { footprint.writtenRows[name] = .keys(keys) }
      } else {
        footprint.writtenRows[name] = .tooMany
      }
    }
    return footprint
  }

  /// Tells observers of the tables written since the last call.
  func notifyObservers() throws {
    for writer in writers { try writer.notifyObservers() }
  }
}
