import Foundation
import GRDBSQLite

/// Reads the stored merge state of the rows a merge touches, several rows
/// to a query while it walks a table in key order (as a sync's history
/// usually does: rows inserted, then updated, in the order they were
/// written), one row to a query otherwise.
///
/// Each read asks for the states at and after a key: the rows it returns,
/// and the gap up to the last of them (or to the end of the table, when it
/// returns fewer than it asked for), are known from then on, so a later
/// key in that range is looked up in memory, stored or not. The number of
/// rows read grows while each read starts where the last one's range ended
/// and every row of it was used, and falls back to one when the walk jumps.
///
/// What it read is only valid until `chronicle_rows` is written: the owner
/// calls ``forget()`` before saving states.
struct MergeStateReadAhead {
  private var table: String?
  /// The range of keys known: from `lower` through `upper` (nil: to the end of the table).
  private var lower = Data()
  private var upper: Data?
  private var states: [StoredMergeState] = []
  /// The first of `states` not passed yet.
  private var next = 0
  /// Rows the next read asks for.
  private var span = 1
  static let largestSpan = 256

  /// The state stored for `key` of `table`, not decoded; nil when none is.
  mutating func state(table: String, key: Data, in store: MergeStore) throws -> StoredMergeState? {
    if table != self.table || MergeStore.keyPrecedes(key, lower) || upper.map({ MergeStore.keyPrecedes($0, key) }) == true {
      try read(table: table, from: key, in: store)
    }
    // Keys mostly come in order: look on from the last state passed, unless
    // the key comes before it.
    if next > 0, !MergeStore.keyPrecedes(states[next - 1].key, key) { next = 0 }
    while next < states.count, MergeStore.keyPrecedes(states[next].key, key) { next += 1 }
    guard next < states.count, states[next].key == key else { return nil }
    next += 1
    return states[next - 1]
  }

  /// Forgets what was read (`chronicle_rows` is about to change).
  mutating func forget() {
    table = nil
    states.removeAll(keepingCapacity: true)
    next = 0
  }

  private mutating func read(table: String, from key: Data, in store: MergeStore) throws {
    // The walk goes on where the last read ended, having used all of it: read more at once.
    let continuesWalk = table == self.table && next == states.count && upper.map { MergeStore.keyPrecedes($0, key) } == true
    span = continuesWalk ? min(span * 2, Self.largestSpan) : 1
    states.removeAll(keepingCapacity: true)
    try store.readStates(table: table, from: key, limit: span) { states.append($0) }
    self.table = table
    lower = key
    upper = states.count < span ? nil : states.last?.key
    next = 0
  }
}

/// A row's merge state as `chronicle_rows` holds it, not decoded yet
/// (``MergeStore/decode(_:table:)`` decodes it).
struct StoredMergeState {
  var key: Data
  var clocks: [UInt8]
  var parkedReason: String?
  var retained: [UInt8]?

  /// The state in columns `first` (clocks), `first + 1` (parked reason) and
  /// `first + 2` (retained values) of a statement's current row.
  init(key: Data, _ row: OpaquePointer, clocks first: Int32) {
    self.key = key
    clocks = SQLiteValue.blobBytes(row, column: first)
    if case .text(let reason) = SQLiteValue(statement: row, column: first + 1) { parkedReason = reason }
    retained = sqlite3_column_type(row, first + 2) == SQLITE_NULL ? nil : SQLiteValue.blobBytes(row, column: first + 2)
  }
}
