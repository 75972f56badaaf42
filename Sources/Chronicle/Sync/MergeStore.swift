import Foundation
import GRDB
import GRDBSQLite

/// One row's merge state with its table named: the form in which merge state
/// moves between databases, each of which numbers names its own way.
struct NamedMergeState: Equatable {
  var table: String
  /// The row's key, as ``MergeStateKey`` encodes it.
  var key: Data
  var state: RowMergeState
}

/// Reads and writes `chronicle_rows`, the per-row merge state (and
/// `chronicle_baseline_rows`, its copy as of a compaction), with names and
/// peers as the numbers of a ``MergeDictionary``.
struct MergeStore {
  let db: Database
  /// `main`, or the schema of an attached database.
  let schema: String
  let dictionary: MergeDictionary
  /// The statements run once per row, prepared on first use (looking them
  /// up in GRDB's cache hashes their SQL on every call).
  private let statements = Statements()

  private final class Statements {
    var load: Statement?
    /// Reading the states from a key on (``readStates(table:from:limit:_:)``).
    var readFrom: Statement?
    /// Saving into `chronicle_rows`, and into other tables by name.
    var save: Statement?
    /// Saving ``MergeStore/statesPerSave`` states at once into `chronicle_rows`.
    var saveMany: Statement?
    var saveElsewhere: [String: Statement] = [:]
    /// What a save encodes, kept from one save to the next (a fold saves
    /// states one at a time).
    var saveBuffers = SaveBuffers()
  }

  /// A run of a save statement's states, encoded.
  private struct SaveBuffers {
    /// Every state's clocks, key and retained values, one after the other.
    var encoded = BinaryWriter(capacity: 64 * 48)
    /// One state's retained values, before they join `encoded`.
    var retained = BinaryWriter(capacity: 64)
    /// Where each state's bytes lie in `encoded`.
    var spans: [EncodedSpan] = []
  }

  init(db: Database, schema: String = "main") {
    self.db = db
    self.schema = schema
    self.dictionary = MergeDictionary(db, schema: schema)
  }

  /// The primary key of a row as stored in `row_key` (see ``MergeStateKey``).
  static func encodeKey(_ values: [SQLiteValue]) throws(EventFormatError) -> Data {
    try MergeStateKey.encode(values)
  }

  /// Whether encoded key `a` sorts before `b` as `chronicle_rows` orders
  /// them (BLOBs compare byte by byte, then by length).
  static func keyPrecedes(_ a: Data, _ b: Data) -> Bool {
    a.withUnsafeBytes { left in
      b.withUnsafeBytes { right in
        // Keys are mostly a few bytes (an integer and its tag): compared
        // here byte by byte, which beats a call to memcmp for so few.
        let common = min(left.count, right.count)
        if common <= 16 {
          for index in 0..<common where left[index] != right[index] { return left[index] < right[index] }
          return left.count < right.count
        }
        let order = memcmp(left.baseAddress!, right.baseAddress!, common)
        return order != 0 ? order < 0 : left.count < right.count
      }
    }
  }

  func load(table: String, key: Data) throws -> RowMergeState? {
    if statements.load == nil {
      statements.load = try db.makeStatement(sql: """
        SELECT clocks, parked_reason, retained FROM \(schema).chronicle_rows WHERE table_number = ? AND row_key = ?
        """)
    }
    let statement = statements.load!
    return try statement.firstRow([.integer(try dictionary.number(ofName: table)), .blob(key)]) { row in
      try state(clocks: 0, row, table: table)
    }
  }

  /// Calls `body` with the states of `table` whose keys are `key` or
  /// later, in key order, at most `limit` of them, not decoded.
  func readStates(table: String, from key: Data, limit: Int, _ body: (StoredMergeState) -> Void) throws {
    if statements.readFrom == nil {
      statements.readFrom = try db.makeStatement(sql: """
        SELECT row_key, clocks, parked_reason, retained FROM \(schema).chronicle_rows
        WHERE table_number = ? AND row_key >= ? ORDER BY row_key LIMIT ?
        """)
    }
    try statements.readFrom!.forEachRow([.integer(try dictionary.number(ofName: table)), .blob(key), .integer(Int64(limit))]) { row in
      body(StoredMergeState(key: Data(SQLiteValue.blobBytes(row, column: 0)), row, clocks: 1))
    }
  }

  /// Decodes a state ``readStates(table:from:limit:_:)`` read.
  func decode(_ stored: StoredMergeState, table: String) throws -> RowMergeState {
    var state = RowMergeState()
    do {
      try state.decodeClocks(stored.clocks, dictionary)
      if let retained = stored.retained { state.retained = try RowMergeState.decodeValues(retained) }
    } catch let error as ChronicleError {
      throw error
    } catch {
      throw ChronicleError.corruptMergeState(table: table, detail: "\(error)")
    }
    state.parkedReason = stored.parkedReason.flatMap(RowMergeState.ParkedReason.init(rawValue:))
    return state
  }

  /// The state in columns `first` (clocks), `first + 1` (parked reason) and `first + 2` (retained values) of `row`.
  private func state(clocks first: Int32, _ row: OpaquePointer, table: String) throws -> RowMergeState {
    try decode(StoredMergeState(key: Data(), row, clocks: first), table: table)
  }

  func save(table: String, key: Data, _ state: RowMergeState, in rows: String = "chronicle_rows") throws {
    let statement: Statement
    if rows == "chronicle_rows", let prepared = statements.save {
      statement = prepared
    } else if let prepared = statements.saveElsewhere[rows] {
      statement = prepared
    } else {
      statement = try db.makeStatement(sql: Self.saveSQL(into: "\(schema).\(rows)", states: 1))
      if rows == "chronicle_rows" { statements.save = statement } else { statements.saveElsewhere[rows] = statement }
    }
    let tableNumber = try dictionary.number(ofName: table)
    try save(0..<1, perStatement: 1, with: statement) { _, clocks, retained in
      try state.encodeClocks(to: &clocks, dictionary)
      if let values = state.retained { try RowMergeState.encodeValues(values, to: &retained) }
      return EncodedState(table: tableNumber, key: key, parkedReason: state.parkedReason, hasRetained: state.retained != nil)
    }
  }

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
  /// its retained values (if it has any) to the second, which is empty.
  typealias StateEncoder = (_ index: Int, _ clocks: inout BinaryWriter, _ retained: inout BinaryWriter) throws -> EncodedState

  /// Saves `count` states into `chronicle_rows`, the one `encode` writes
  /// for each index, ``statesPerSave`` to a statement: a merge saves every
  /// row it touched, and one statement per row would cost SQLite more than
  /// writing the rows does.
  func save(count: Int, _ encode: StateEncoder) throws {
    let many = count - count % Self.statesPerSave
    if many > 0 {
      if statements.saveMany == nil {
        statements.saveMany = try db.makeStatement(sql: Self.saveSQL(into: "\(schema).chronicle_rows", states: Self.statesPerSave))
      }
      try save(0..<many, perStatement: Self.statesPerSave, with: statements.saveMany!, encode)
    }
    if many < count {
      if statements.save == nil {
        statements.save = try db.makeStatement(sql: Self.saveSQL(into: "\(schema).chronicle_rows", states: 1))
      }
      try save(many..<count, perStatement: 1, with: statements.save!, encode)
    }
  }

  /// States saved by one statement of ``save(count:_:)``.
  static let statesPerSave = 64

  private static func saveSQL(into rows: String, states: Int) -> String {
    "INSERT OR REPLACE INTO \(rows) (table_number, row_key, clocks, parked_reason, retained) VALUES "
      + repeatElement("(?, ?, ?, ?, ?)", count: states).joined(separator: ", ")
  }

  /// Where one state's bytes lie in the buffer of a statement's states.
  private struct EncodedSpan {
    var table: Int64
    var parkedReason: RowMergeState.ParkedReason?
    var clocks: Range<Int>
    var key: Range<Int>
    var retained: Range<Int>?
  }

  /// Saves the states at `positions` with `statement`, `perStatement` to a
  /// run of it (`positions` holds a whole number of runs). A run's states
  /// are encoded one after the other into one buffer, then bound where they
  /// lie, which stays put until the statement has run: SQLite copies none
  /// of their bytes. The buffers are the store's, taken out while in use
  /// (inside the store's class they would be checked for exclusive access
  /// at every byte).
  private func save(_ positions: Range<Int>, perStatement: Int, with statement: Statement, _ encode: StateEncoder) throws {
    let statements = self.statements
    var buffers = statements.saveBuffers
    statements.saveBuffers = SaveBuffers()
    defer { statements.saveBuffers = buffers }
    for start in stride(from: positions.lowerBound, to: positions.upperBound, by: perStatement) {
      buffers.encoded.removeAll()
      buffers.spans.removeAll(keepingCapacity: true)
      for position in start..<(start + perStatement) {
        buffers.retained.removeAll()
        let clocksStart = buffers.encoded.count
        let state = try encode(position, &buffers.encoded, &buffers.retained)
        let keyStart = buffers.encoded.count
        state.key.withUnsafeBytes { buffers.encoded.writeBytes($0) }
        let retainedStart = buffers.encoded.count
        if state.hasRetained { buffers.encoded.writeBytes(buffers.retained.bytes) }
        buffers.spans.append(EncodedSpan(
          table: state.table, parkedReason: state.parkedReason, clocks: clocksStart..<keyStart, key: keyStart..<retainedStart,
          retained: state.hasRetained ? retainedStart..<buffers.encoded.count : nil))
      }
      let spans = buffers.spans
      try buffers.encoded.bytes.withUnsafeBytes { bytes in
        try statement.run { binding in
          for span in spans {
            try binding.bind(span.table)
            try binding.bindBlob(UnsafeRawBufferPointer(rebasing: bytes[span.key]), copied: false)
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
  }

  /// The largest key of `table` whose merge state is stored, if any.
  func largestKey(table: String) throws -> Data? {
    try db.cachedStatement(sql: "SELECT max(row_key) FROM \(schema).chronicle_rows WHERE table_number = ?")
      .firstRow([.integer(try dictionary.number(ofName: table))]) { row in
        sqlite3_column_type(row, 0) == SQLITE_NULL ? nil : Data(SQLiteValue.blobBytes(row, column: 0))
      } ?? nil
  }

  func delete(table: String, key: Data) throws {
    try db.cachedStatement(sql: "DELETE FROM \(schema).chronicle_rows WHERE table_number = ? AND row_key = ?")
      .run([.integer(try dictionary.number(ofName: table)), .blob(key)])
  }

  /// Keeps the values of a row that a local transaction deleted, so that a
  /// later remote write can bring it back whole, and notes that the row is
  /// complete (it was in its table), which a merge ahead of the local
  /// history not folded yet reads (``RowMergeState/encodeClocks(to:_:)``:
  /// the first byte's bit 0; `X'010000'`, complete with no versions).
  func retainDeletedRow(table: String, key: Data, values: [String: SQLiteValue]) throws {
    try db.cachedStatement(sql: """
      INSERT INTO \(schema).chronicle_rows (table_number, row_key, clocks, retained) VALUES (?, ?, X'010000', ?)
      ON CONFLICT (table_number, row_key) DO UPDATE SET retained = excluded.retained, parked_reason = NULL,
        clocks = CASE
          WHEN length(clocks) = 0 THEN X'010000'
          WHEN substr(clocks, 1, 1) = X'00' THEN CAST(X'01' || substr(clocks, 2) AS BLOB)
          WHEN substr(clocks, 1, 1) = X'02' THEN CAST(X'03' || substr(clocks, 2) AS BLOB)
          ELSE clocks
        END
      """).run([.integer(try dictionary.number(ofName: table)), .blob(key), .blob(try RowMergeState.encodeValues(values))])
  }

  /// Calls `body` with every state stored in `rows` (`chronicle_rows` or
  /// `chronicle_baseline_rows`), table by table, in key order, as it reads
  /// them (so `body` must not write `rows`: collect them first to do that);
  /// `tables` limits it to the tables with that name, case ignored.
  func forEachState(in rows: String = "chronicle_rows", tables: String? = nil, _ body: (NamedMergeState) throws -> Void) throws {
    if schema == "main", try MergeStateUpgrade.hasVersion4Layout(rows, db) {
      // A file of an older version, opened read-only (the tools' archives).
      try MergeStateUpgrade.forEachVersion4State(in: rows, db) { named in
        if tables.map({ named.table.caseInsensitiveCompare($0) == .orderedSame }) ?? true { try body(named) }
      }
      return
    }
    try forEachStored(
      in: rows, where: tables == nil ? "1" : "n.name = ? COLLATE NOCASE", orderedBy: "r.table_number, r.row_key",
      tables.map { [.text($0)] } ?? [], body)
  }

  /// Calls `body` with each state of `rows` that `condition` (on `r`, the
  /// states, and `n`, their table names) selects, in `order`.
  private func forEachStored(
    in rows: String, where condition: String, orderedBy order: String, _ values: [SQLiteValue], _ body: (NamedMergeState) throws -> Void
  ) throws {
    let statement = try db.makeStatement(sql: """
      SELECT n.name, r.row_key, r.clocks, r.parked_reason, r.retained
      FROM \(schema).\(rows) AS r JOIN \(schema).chronicle_merge_names AS n ON n.number = r.table_number
      WHERE \(condition) ORDER BY \(order)
      """)
    try statement.forEachRow(values) { row in
      guard case .text(let table) = SQLiteValue(statement: row, column: 0) else { return }
      try body(NamedMergeState(table: table, key: Data(SQLiteValue.blobBytes(row, column: 1)), state: try state(clocks: 2, row, table: table)))
    }
  }

  /// Whether `main.chronicle_rows` holds, byte for byte, the rows that
  /// `schema.chronicle_rows` holds (an attached file whose numbers agree
  /// with this one's: see ``MergeDictionary/agrees(with:_:)``). Both are read
  /// once, side by side, in key order.
  static func storedStatesAreEqual(_ db: Database, to schema: String) throws -> Bool {
    let columns = "table_number, row_key, clocks, parked_reason, retained"
    let mine = try db.makeStatement(sql: "SELECT \(columns) FROM main.chronicle_rows ORDER BY table_number, row_key")
    let theirs = try db.makeStatement(sql: "SELECT \(columns) FROM \(schema).chronicle_rows ORDER BY table_number, row_key")
    let (a, b) = (mine.sqliteStatement, theirs.sqliteStatement)
    defer {
      sqlite3_reset(a)
      sqlite3_reset(b)
    }
    while true {
      let (stepA, stepB) = (sqlite3_step(a), sqlite3_step(b))
      guard stepA == SQLITE_ROW || stepA == SQLITE_DONE else { throw DatabaseError(resultCode: ResultCode(rawValue: stepA)) }
      guard stepB == SQLITE_ROW || stepB == SQLITE_DONE else { throw DatabaseError(resultCode: ResultCode(rawValue: stepB)) }
      guard stepA == stepB else { return false }
      if stepA == SQLITE_DONE { return true }
      for column in Int32(0)..<5 {
        let type = sqlite3_column_type(a, column)
        guard type == sqlite3_column_type(b, column) else { return false }
        switch type {
        case SQLITE_NULL:
          continue
        case SQLITE_INTEGER:
          guard sqlite3_column_int64(a, column) == sqlite3_column_int64(b, column) else { return false }
        default:
          let count = sqlite3_column_bytes(a, column)
          guard count == sqlite3_column_bytes(b, column) else { return false }
          if count > 0, memcmp(sqlite3_column_blob(a, column), sqlite3_column_blob(b, column), Int(count)) != 0 { return false }
        }
      }
    }
  }

  /// Every state stored in `rows`.
  func allStates(in rows: String = "chronicle_rows") throws -> [NamedMergeState] {
    var states: [NamedMergeState] = []
    try forEachState(in: rows) { states.append($0) }
    return states
  }

  /// Writes `states` into `rows`, replacing states with the same keys.
  func insert(_ states: [NamedMergeState], into rows: String = "chronicle_rows") throws {
    for named in states { try save(table: named.table, key: named.key, named.state, in: rows) }
  }

  /// The states parked for `reason` (any reason when nil), by table and key.
  func parked(for reason: RowMergeState.ParkedReason? = nil) throws -> [NamedMergeState] {
    if schema == "main", try MergeStateUpgrade.hasVersion4Layout("chronicle_rows", db) {
      return try allStates().filter { $0.state.parkedReason != nil && (reason == nil || $0.state.parkedReason == reason) }
    }
    var found: [NamedMergeState] = []
    try forEachStored(
      in: "chronicle_rows", where: reason == nil ? "r.parked_reason IS NOT NULL" : "r.parked_reason = ?", orderedBy: "n.name, r.row_key",
      reason.map { [.text($0.rawValue)] } ?? []) { found.append($0) }
    return found
  }

  /// How many rows are parked, for any reason.
  func parkedCount() throws -> Int {
    try Int.fetchOne(db, sql: "SELECT count(*) FROM \(schema).chronicle_rows WHERE parked_reason IS NOT NULL") ?? 0
  }

  /// Files the states of table `from` (case ignored) under `to`.
  func renameTable(from: String, to: String) throws {
    let target = try dictionary.number(ofName: to)
    for number in try dictionary.numbers(ofNameIgnoringCase: from) where number != target {
      try db.execute(sql: "UPDATE \(schema).chronicle_rows SET table_number = ? WHERE table_number = ?", arguments: [target, number])
    }
  }
}
