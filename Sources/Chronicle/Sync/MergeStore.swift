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

/// Reads and writes the per-row merge state: `chronicle_integer_rows` for
/// rows keyed by one small integer (see ``IntegerRowID``), `chronicle_rows`
/// for every other row, and `chronicle_baseline_rows`, the copy as of a
/// compaction (one layout), with names and peers as the numbers of a
/// ``MergeDictionary``. Callers name `chronicle_rows` for both live tables:
/// which one holds a row is the store's business.
struct MergeStore {
  let db: Database
  /// `main`, or the schema of an attached database.
  let schema: String
  let dictionary: MergeDictionary
  /// The statements run once per row, prepared on first use (looking them
  /// up in GRDB's cache hashes their SQL on every call).
  let statements = Statements()

  final class Statements {
    var load: GRDB.Statement?
    var loadInteger: GRDB.Statement?
    /// Reading the states from a key on (``readStates(table:from:limit:_:)``).
    var readFrom: GRDB.Statement?
    var readIntegersFrom: GRDB.Statement?
    /// Saving one state, and ``MergeStore/statesPerSave`` at once, into
    /// `chronicle_rows` and `chronicle_integer_rows`.
    var save: GRDB.Statement?
    var saveMany: GRDB.Statement?
    var saveInteger: GRDB.Statement?
    var saveIntegerMany: GRDB.Statement?
    /// Keeping a deleted row's values (``MergeStore/retainDeletedRow(table:key:retained:)``).
    var retain: GRDB.Statement?
    var retainInteger: GRDB.Statement?
    /// Saving into other tables by name (baselines).
    var saveElsewhere: [String: GRDB.Statement] = [:]
    /// What a save encodes, kept from one save to the next (a fold saves
    /// states one at a time); nil while a save holds them.
    var saveBuffers: SaveBuffers? = SaveBuffers()
    /// Whether the file has `chronicle_integer_rows`; nil until asked.
    var hasIntegerRows: Bool?
  }

  init(db: Database, schema: String = "main") {
    self.db = db
    self.schema = schema
    self.dictionary = MergeDictionary(db, schema: schema)
  }

  /// Whether the file has `chronicle_integer_rows`: a file of internal
  /// schema version 5 opened read-only (the tools' archives), or being
  /// upgraded, keeps every state in `chronicle_rows`.
  func hasIntegerRows() throws -> Bool {
    if let known = statements.hasIntegerRows { return known }
    // A cached statement: stores are made per transaction (capture's deletes) or event (replay).
    let found = try db.cachedStatement(sql: """
      SELECT count(*) FROM \(schema).sqlite_master WHERE type = 'table' AND name = 'chronicle_integer_rows'
      """).firstRow([]) { row in sqlite3_column_int64(row, 0) > 0 } ?? false
    statements.hasIntegerRows = found
    return found
  }

  /// Where `chronicle_integer_rows` keeps the state of `key` of the table
  /// numbered `table`; nil when `chronicle_rows` keeps it.
  func integerRowID(table: Int64, key: Data) throws -> IntegerRowID? {
    guard let id = IntegerRowID(table: table, key: key) else { return nil }
    return try hasIntegerRows() ? id : nil
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
    let number = try dictionary.number(ofName: table)
    if let id = try integerRowID(table: number, key: key) {
      if statements.loadInteger == nil {
        statements.loadInteger = try db.makeStatement(sql: """
          SELECT clocks, parked_reason, retained FROM \(schema).chronicle_integer_rows WHERE table_and_key = ?
          """)
      }
      return try statements.loadInteger!.firstRow([.integer(id.rawValue)]) { row in try state(clocks: 0, row, table: table) }
    }
    if statements.load == nil {
      statements.load = try db.makeStatement(sql: """
        SELECT clocks, parked_reason, retained FROM \(schema).chronicle_rows WHERE table_number = ? AND row_key = ?
        """)
    }
    return try statements.load!.firstRow([.integer(number), .blob(key)]) { row in try state(clocks: 0, row, table: table) }
  }

  /// Calls `body` with the states of `table` whose keys are `key` or
  /// later, in key order, at most `limit` of them, not decoded.
  func readStates(table: String, from key: Data, limit: Int, _ body: (StoredMergeState) -> Void) throws {
    let number = try dictionary.number(ofName: table)
    var integerStates: [StoredMergeState] = []
    if try hasIntegerRows(), let ids = IntegerRowID.range(ofTable: number, from: key) {
      if statements.readIntegersFrom == nil {
        statements.readIntegersFrom = try db.makeStatement(sql: """
          SELECT table_and_key, clocks, parked_reason, retained FROM \(schema).chronicle_integer_rows
          WHERE table_and_key BETWEEN ? AND ? ORDER BY table_and_key LIMIT ?
          """)
      }
      try statements.readIntegersFrom!.forEachRow([.integer(ids.lowerBound), .integer(ids.upperBound), .integer(Int64(limit))]) { row in
        integerStates.append(StoredMergeState(key: IntegerRowID(rawValue: sqlite3_column_int64(row, 0)).key, row, clocks: 1))
      }
    }
    if statements.readFrom == nil {
      statements.readFrom = try db.makeStatement(sql: """
        SELECT row_key, clocks, parked_reason, retained FROM \(schema).chronicle_rows
        WHERE table_number = ? AND row_key >= ? ORDER BY row_key LIMIT ?
        """)
    }
    // The two tables' states, merged in key order (a table's keys are
    // mostly all in one of them), the first `limit` of them.
    var next = 0
    var passed = 0
    try statements.readFrom!.forEachRow([.integer(number), .blob(key), .integer(Int64(limit))]) { row in
      let stored = StoredMergeState(key: Data(SQLiteValue.blobBytes(row, column: 0)), row, clocks: 1)
      while next < integerStates.count, passed < limit, Self.keyPrecedes(integerStates[next].key, stored.key) {
        body(integerStates[next])
        next += 1
        passed += 1
      }
      if passed < limit {
        body(stored)
        passed += 1
      }
    }
    while next < integerStates.count, passed < limit {
      body(integerStates[next])
      next += 1
      passed += 1
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
  func state(clocks first: Int32, _ row: OpaquePointer, table: String) throws -> RowMergeState {
    try decode(StoredMergeState(key: Data(), row, clocks: first), table: table)
  }

  /// The largest key of `table` whose merge state is stored, if any.
  func largestKey(table: String) throws -> Data? {
    let number = try dictionary.number(ofName: table)
    var largest = try db.cachedStatement(sql: "SELECT max(row_key) FROM \(schema).chronicle_rows WHERE table_number = ?")
      .firstRow([.integer(number)]) { row in
        sqlite3_column_type(row, 0) == SQLITE_NULL ? nil : Data(SQLiteValue.blobBytes(row, column: 0))
      } ?? nil
    if try hasIntegerRows(), let ids = IntegerRowID.range(ofTable: number),
      let id = try db.cachedStatement(sql: "SELECT max(table_and_key) FROM \(schema).chronicle_integer_rows WHERE table_and_key BETWEEN ? AND ?")
        .firstRow([.integer(ids.lowerBound), .integer(ids.upperBound)], { row in
          sqlite3_column_type(row, 0) == SQLITE_NULL ? nil : IntegerRowID(rawValue: sqlite3_column_int64(row, 0))
        }) ?? nil
    {
      if largest.map({ Self.keyPrecedes($0, id.key) }) ?? true { largest = id.key }
    }
    return largest
  }

  func delete(table: String, key: Data) throws {
    let number = try dictionary.number(ofName: table)
    if let id = try integerRowID(table: number, key: key) {
      try db.cachedStatement(sql: "DELETE FROM \(schema).chronicle_integer_rows WHERE table_and_key = ?").run([.integer(id.rawValue)])
    } else {
      try db.cachedStatement(sql: "DELETE FROM \(schema).chronicle_rows WHERE table_number = ? AND row_key = ?")
        .run([.integer(number), .blob(key)])
    }
  }

  /// Keeps the values of a row that a local transaction deleted, so that a
  /// later remote write can bring it back whole, and notes that the row is
  /// complete (it was in its table), which a merge ahead of the local
  /// history not folded yet reads (``RowMergeState/encodeClocks(to:_:)``:
  /// the first byte's bit 0; `X'010000'`, complete with no versions).
  ///
  /// - Parameter retained: the values, as ``RetainedValuesEncoder`` encodes them.
  func retainDeletedRow(table: String, key: Data, retained: [UInt8]) throws {
    let number = try dictionary.number(ofName: table)
    let id = try integerRowID(table: number, key: key)
    let statement: GRDB.Statement
    if let known = id == nil ? statements.retain : statements.retainInteger {
      statement = known
    } else {
      let update = """
        DO UPDATE SET retained = excluded.retained, parked_reason = NULL,
          clocks = CASE
            WHEN length(clocks) = 0 THEN X'010000'
            WHEN substr(clocks, 1, 1) = X'00' THEN CAST(X'01' || substr(clocks, 2) AS BLOB)
            WHEN substr(clocks, 1, 1) = X'02' THEN CAST(X'03' || substr(clocks, 2) AS BLOB)
            ELSE clocks
          END
        """
      if id == nil {
        statement = try db.makeStatement(sql: """
          INSERT INTO \(schema).chronicle_rows (table_number, row_key, clocks, retained) VALUES (?, ?, X'010000', ?)
          ON CONFLICT (table_number, row_key) \(update)
          """)
        statements.retain = statement
      } else {
        statement = try db.makeStatement(sql: """
          INSERT INTO \(schema).chronicle_integer_rows (table_and_key, clocks, retained) VALUES (?, X'010000', ?)
          ON CONFLICT (table_and_key) \(update)
          """)
        statements.retainInteger = statement
      }
    }
    try retained.withUnsafeBytes { values in
      try statement.run { binding in
        if let id {
          try binding.bind(id.rawValue)
        } else {
          try binding.bind(number)
          try key.withUnsafeBytes { try binding.bindBlob($0) }
        }
        try binding.bindBlob(values, copied: false)
      }
    }
  }

}
