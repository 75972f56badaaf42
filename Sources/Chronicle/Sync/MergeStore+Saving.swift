import Foundation
import GRDB

/// Saving merge states: a merge saves every row it touched,
/// ``MergeStore/statesPerSave`` to a statement, each into the table whose
/// layout its key takes.
extension MergeStore {
  /// A state whose clocks and retained values its caller has encoded (into
  /// the buffers ``save(count:_:)`` hands it), with what else is saved of it.
  struct EncodedState {
    /// The table's name number.
    var table: Int64
    var key: Data
    var parkedReason: RowMergeState.ParkedReason?
    /// Whether retained values were encoded (NULL otherwise: the row is in its table).
    var hasRetained: Bool
  }

  /// Appends the clocks of the state at an index to the first buffer, and
  /// its retained values (if it has any) to the second; both are empty.
  typealias StateEncoder = (_ index: Int, _ clocks: inout BinaryWriter, _ retained: inout BinaryWriter) throws -> EncodedState

  /// States saved by one statement of ``save(count:_:)``.
  static let statesPerSave = 64

  func save(table: String, key: Data, _ state: RowMergeState, in rows: String = "chronicle_rows") throws {
    let tableNumber = try dictionary.number(ofName: table)
    try save(count: 1, into: rows == "chronicle_rows" ? nil : rows) { _, clocks, retained in
      try state.encodeClocks(to: &clocks, dictionary)
      if let values = state.retained { try RowMergeState.encodeValues(values, to: &retained) }
      return EncodedState(table: tableNumber, key: key, parkedReason: state.parkedReason, hasRetained: state.retained != nil)
    }
  }

  /// Saves `count` states, the one `encode` writes for each index: into
  /// `chronicle_integer_rows` or `chronicle_rows` as their keys say, or
  /// into the table named `elsewhere` (a baseline's, one layout).
  func save(count: Int, into elsewhere: String? = nil, _ encode: StateEncoder) throws {
    // The buffers are the store's, taken out while in use (inside the
    // store's class they would be checked for exclusive access at every byte).
    let statements = self.statements
    var buffers = statements.saveBuffers ?? SaveBuffers()
    statements.saveBuffers = nil
    defer { statements.saveBuffers = buffers }
    buffers.keyed.removeAll()
    buffers.integer.removeAll()
    let routes = try elsewhere == nil && hasIntegerRows()
    for index in 0..<count {
      buffers.clocks.removeAll()
      buffers.retained.removeAll()
      let state = try encode(index, &buffers.clocks, &buffers.retained)
      if routes, let id = IntegerRowID(table: state.table, key: state.key) {
        buffers.integer.append(state, id: id, clocks: buffers.clocks, retained: buffers.retained)
        if buffers.integer.spans.count == Self.statesPerSave {
          try write(buffers.integer, with: try saveStatement(integer: true, states: Self.statesPerSave))
          buffers.integer.removeAll()
        }
      } else {
        buffers.keyed.append(state, id: nil, clocks: buffers.clocks, retained: buffers.retained)
        if elsewhere == nil, buffers.keyed.spans.count == Self.statesPerSave {
          try write(buffers.keyed, with: try saveStatement(integer: false, states: Self.statesPerSave))
          buffers.keyed.removeAll()
        }
      }
    }
    // What is left of each run, one state to a statement.
    if !buffers.integer.spans.isEmpty { try writeOneByOne(buffers.integer, with: try saveStatement(integer: true, states: 1)) }
    if !buffers.keyed.spans.isEmpty {
      try writeOneByOne(buffers.keyed, with: try elsewhere.map(saveStatement(into:)) ?? saveStatement(integer: false, states: 1))
    }
  }

  private func writeOneByOne(_ run: SaveRun, with statement: GRDB.Statement) throws {
    for span in run.spans.indices { try write(run, spans: span..<(span + 1), with: statement) }
  }

  /// The statement that saves `states` states (1 or ``statesPerSave``)
  /// into `chronicle_integer_rows` or `chronicle_rows`, prepared on first use.
  private func saveStatement(integer: Bool, states: Int) throws -> GRDB.Statement {
    let slot: ReferenceWritableKeyPath<Statements, GRDB.Statement?> =
      integer ? (states == 1 ? \.saveInteger : \.saveIntegerMany) : (states == 1 ? \.save : \.saveMany)
    if let statement = statements[keyPath: slot] { return statement }
    let rows = integer ? "chronicle_integer_rows" : "chronicle_rows"
    let statement = try db.makeStatement(sql: Self.saveSQL(integer: integer, into: "\(schema).\(rows)", states: states))
    statements[keyPath: slot] = statement
    return statement
  }

  /// The statement that saves one state into the table named `rows`.
  private func saveStatement(into rows: String) throws -> GRDB.Statement {
    if let statement = statements.saveElsewhere[rows] { return statement }
    let statement = try db.makeStatement(sql: Self.saveSQL(integer: false, into: "\(schema).\(rows)", states: 1))
    statements.saveElsewhere[rows] = statement
    return statement
  }

  private static func saveSQL(integer: Bool, into rows: String, states: Int) -> String {
    integer
      ? "INSERT OR REPLACE INTO \(rows) (table_and_key, clocks, parked_reason, retained) VALUES "
        + repeatElement("(?, ?, ?, ?)", count: states).joined(separator: ", ")
      : "INSERT OR REPLACE INTO \(rows) (table_number, row_key, clocks, parked_reason, retained) VALUES "
        + repeatElement("(?, ?, ?, ?, ?)", count: states).joined(separator: ", ")
  }

  /// Runs `statement` once with the states of `run` at `spans` (all of
  /// them by default), bound where their bytes lie, which stays put until
  /// the statement has run: SQLite copies none of them.
  private func write(_ run: SaveRun, spans: Range<Int>? = nil, with statement: GRDB.Statement) throws {
    try run.encoded.bytes.withUnsafeBytes { bytes in
      try statement.run { binding in
        for span in run.spans[spans ?? run.spans.indices] {
          if let id = span.integerRow {
            try binding.bind(id.rawValue)
          } else {
            try binding.bind(span.table)
            try binding.bindBlob(UnsafeRawBufferPointer(rebasing: bytes[span.key]), copied: false)
          }
          try binding.bindBlob(UnsafeRawBufferPointer(rebasing: bytes[span.clocks]), copied: false)
          if let reason = span.parkedReason { try binding.bind(.text(reason.rawValue)) } else { try binding.bindNull() }
          if let range = span.retained {
            try binding.bindBlob(UnsafeRawBufferPointer(rebasing: bytes[range]), copied: false)
          } else {
            try binding.bindNull()
          }
        }
      }
    }
  }

  /// What a save encodes: one state at a time, then each layout's run.
  struct SaveBuffers {
    var clocks = BinaryWriter(capacity: 64)
    var retained = BinaryWriter(capacity: 64)
    var keyed = SaveRun()
    var integer = SaveRun()
  }

  /// States waiting for one statement: their bytes one after the other.
  struct SaveRun {
    var encoded = BinaryWriter(capacity: 64 * 48)
    var spans: [EncodedSpan] = []

    mutating func removeAll() {
      encoded.removeAll()
      spans.removeAll(keepingCapacity: true)
    }

    mutating func append(_ state: EncodedState, id: IntegerRowID?, clocks: BinaryWriter, retained: BinaryWriter) {
      let clocksStart = encoded.count
      encoded.writeBytes(clocks.bytes)
      let keyStart = encoded.count
      if id == nil { state.key.withUnsafeBytes { encoded.writeBytes($0) } }
      let retainedStart = encoded.count
      if state.hasRetained { encoded.writeBytes(retained.bytes) }
      spans.append(EncodedSpan(
        table: state.table, integerRow: id, parkedReason: state.parkedReason, clocks: clocksStart..<keyStart,
        key: keyStart..<retainedStart, retained: state.hasRetained ? retainedStart..<encoded.count : nil))
    }
  }

  /// Where one state's bytes lie in its run's buffer.
  struct EncodedSpan {
    var table: Int64
    /// Its row id in `chronicle_integer_rows`; nil when it goes to a table keyed by `key`.
    var integerRow: IntegerRowID?
    var parkedReason: RowMergeState.ParkedReason?
    var clocks: Range<Int>
    var key: Range<Int>
    var retained: Range<Int>?
  }
}
