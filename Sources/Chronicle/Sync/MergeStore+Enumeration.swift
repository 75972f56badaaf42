import Foundation
import GRDB
import GRDBSQLite

/// Reading and changing merge states many at a time: every state of a file
/// or a table (compaction, clone, migrations, tools), the parked ones, a
/// renamed table's, and comparing two files' states.
extension MergeStore {
  /// Calls `body` with every state stored in `rows` (`chronicle_rows`, which
  /// takes in `chronicle_integer_rows`, or `chronicle_baseline_rows`), table
  /// by table, in key order, as it reads them (so `body` must not write
  /// merge state: collect them first to do that); `tables` limits it to the
  /// tables with that name, case ignored.
  func forEachState(in rows: String = "chronicle_rows", tables: String? = nil, _ body: (NamedMergeState) throws -> Void) throws {
    if schema == "main", try MergeStateUpgrade.hasVersion4Layout(rows, db) {
      // A file of an older version, opened read-only (the tools' archives).
      try MergeStateUpgrade.forEachVersion4State(in: rows, db) { named in
        if tables.map({ named.table.caseInsensitiveCompare($0) == .orderedSame }) ?? true { try body(named) }
      }
      return
    }
    guard let tables else {
      try forEachStored(in: rows, where: "1", [], ofTable: nil, body)
      return
    }
    for number in try dictionary.numbers(ofNameIgnoringCase: tables).sorted() {
      try forEachStored(in: rows, where: "1", [], ofTable: number, body)
    }
  }

  /// Calls `body` with each state of `rows` that `condition` (on `r`, the
  /// states) selects, of the table numbered `table` or of all, by table
  /// number and key. For `chronicle_rows`, `chronicle_integer_rows` is read
  /// beside it, and the two merged.
  ///
  /// - Parameter parkedOnly: `condition` selects parked rows: they are read
  ///   through the tables' partial indexes of parked rows. (Asked for rows
  ///   whose `parked_reason IS NOT NULL` in key order, SQLite 3.40 walks the
  ///   whole table rather than the index and a sort.)
  private func forEachStored(
    in rows: String, where condition: String, _ values: [SQLiteValue], ofTable table: Int64?, parkedOnly: Bool = false,
    _ body: (NamedMergeState) throws -> Void
  ) throws {
    let keyed = try db.makeStatement(sql: """
      SELECT r.table_number, n.name, r.row_key, r.clocks, r.parked_reason, r.retained
      FROM \(schema).\(rows) AS r \(parkedOnly ? "INDEXED BY \(rows)_parked " : "")JOIN \(schema).chronicle_merge_names AS n ON n.number = r.table_number
      WHERE (\(condition)) AND \(table == nil ? "1" : "r.table_number = ?") ORDER BY r.table_number, r.row_key
      """)
    let keyedRows = try SteppedRows(keyed, values + (table.map { [.integer($0)] } ?? []))
    var integerRows: SteppedRows?
    // A table numbered past what a row id holds has no integer rows.
    let range = table.map { IntegerRowID.range(ofTable: $0) }
    if rows == "chronicle_rows", try hasIntegerRows(), range != .some(nil) {
      let integer = try db.makeStatement(sql: """
        SELECT r.table_and_key >> 40, n.name, r.table_and_key, r.clocks, r.parked_reason, r.retained
        FROM \(schema).chronicle_integer_rows AS r \(parkedOnly ? "INDEXED BY chronicle_integer_rows_parked " : "")JOIN \(schema).chronicle_merge_names AS n ON n.number = r.table_and_key >> 40
        WHERE (\(condition)) AND \(table == nil ? "1" : "r.table_and_key BETWEEN ? AND ?") ORDER BY r.table_and_key
        """)
      var integerValues = values
      if case .some(.some(let ids)) = range { integerValues += [.integer(ids.lowerBound), .integer(ids.upperBound)] }
      integerRows = try SteppedRows(integer, integerValues)
    }
    /// The next row of `rows`, with its table number and key; nil past the last.
    func next(_ rows: SteppedRows?) throws -> (handle: OpaquePointer, table: Int64, key: Data)? {
      guard let rows, let handle = try rows.next() else { return nil }
      let key = rows === integerRows
        ? IntegerRowID(rawValue: sqlite3_column_int64(handle, 2)).key : Data(SQLiteValue.blobBytes(handle, column: 2))
      return (handle, sqlite3_column_int64(handle, 0), key)
    }
    var (nextKeyed, nextInteger) = (try next(keyedRows), try next(integerRows))
    while nextKeyed != nil || nextInteger != nil {
      let takesKeyed: Bool
      if let keyed = nextKeyed, let integer = nextInteger {
        takesKeyed = keyed.table < integer.table || (keyed.table == integer.table && Self.keyPrecedes(keyed.key, integer.key))
      } else {
        takesKeyed = nextKeyed != nil
      }
      let row = takesKeyed ? nextKeyed! : nextInteger!
      if case .text(let name) = SQLiteValue(statement: row.handle, column: 1) {
        try body(NamedMergeState(table: name, key: row.key, state: try state(clocks: 3, row.handle, table: name)))
      }
      if takesKeyed { nextKeyed = try next(keyedRows) } else { nextInteger = try next(integerRows) }
    }
  }

  /// Whether `main`'s merge state holds, byte for byte, the rows that
  /// `schema`'s holds (an attached file whose numbers agree with this
  /// one's: see ``MergeDictionary/agrees(with:_:)``). Both are read once,
  /// side by side, in key order.
  static func storedStatesAreEqual(_ db: Database, to schema: String) throws -> Bool {
    try tableIsEqual(db, "chronicle_rows", columns: "table_number, row_key, clocks, parked_reason, retained", order: "table_number, row_key", to: schema)
      && tableIsEqual(db, "chronicle_integer_rows", columns: "table_and_key, clocks, parked_reason, retained", order: "table_and_key", to: schema)
  }

  private static func tableIsEqual(_ db: Database, _ table: String, columns: String, order: String, to schema: String) throws -> Bool {
    let mine = try db.makeStatement(sql: "SELECT \(columns) FROM main.\(table) ORDER BY \(order)")
    let theirs = try db.makeStatement(sql: "SELECT \(columns) FROM \(schema).\(table) ORDER BY \(order)")
    let (a, b) = (try SteppedRows(mine, []), try SteppedRows(theirs, []))
    while true {
      let (rowA, rowB) = (try a.next(), try b.next())
      guard let rowA, let rowB else { return rowA == nil && rowB == nil }
      for column in Int32(0)..<sqlite3_column_count(rowA) {
        let type = sqlite3_column_type(rowA, column)
        guard type == sqlite3_column_type(rowB, column) else { return false }
        switch type {
        case SQLITE_NULL:
          continue
        case SQLITE_INTEGER:
          guard sqlite3_column_int64(rowA, column) == sqlite3_column_int64(rowB, column) else { return false }
        default:
          let count = sqlite3_column_bytes(rowA, column)
          guard count == sqlite3_column_bytes(rowB, column) else { return false }
          if count > 0, memcmp(sqlite3_column_blob(rowA, column), sqlite3_column_blob(rowB, column), Int(count)) != 0 { return false }
        }
      }
    }
  }

  /// Replaces `main`'s merge state with `schema`'s, copied as stored (the
  /// numbers of both files agree).
  static func copyStoredStates(_ db: Database, from schema: String) throws {
    let keyed = "table_number, row_key, clocks, parked_reason, retained"
    let integer = "table_and_key, clocks, parked_reason, retained"
    try db.execute(sql: """
      DELETE FROM main.chronicle_rows;
      INSERT INTO main.chronicle_rows (\(keyed)) SELECT \(keyed) FROM \(schema).chronicle_rows;
      DELETE FROM main.chronicle_integer_rows;
      INSERT INTO main.chronicle_integer_rows (\(integer)) SELECT \(integer) FROM \(schema).chronicle_integer_rows;
      """)
  }

  /// Deletes every merge state of `main` (not the baseline's).
  static func deleteAllStates(_ db: Database) throws {
    try db.execute(sql: "DELETE FROM main.chronicle_rows; DELETE FROM main.chronicle_integer_rows")
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

  /// The states parked for `reason` (any reason when nil), by table name and key.
  func parked(for reason: RowMergeState.ParkedReason? = nil) throws -> [NamedMergeState] {
    if schema == "main", try MergeStateUpgrade.hasVersion4Layout("chronicle_rows", db) {
      return try allStates().filter { $0.state.parkedReason != nil && (reason == nil || $0.state.parkedReason == reason) }
    }
    var found: [NamedMergeState] = []
    try forEachStored(
      in: "chronicle_rows", where: reason == nil ? "r.parked_reason IS NOT NULL" : "r.parked_reason = ?",
      reason.map { [.text($0.rawValue)] } ?? [], ofTable: nil, parkedOnly: true) { found.append($0) }
    return found.sorted { $0.table != $1.table ? $0.table < $1.table : Self.keyPrecedes($0.key, $1.key) }
  }

  /// Whether any row is parked for `reason` (read through the partial
  /// indexes of parked rows).
  func hasParked(for reason: RowMergeState.ParkedReason) throws -> Bool {
    if try Bool.fetchOne(
      db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM \(schema).chronicle_rows WHERE parked_reason = ?)"), arguments: [reason.rawValue]
    ) == true { return true }
    guard try hasIntegerRows() else { return false }
    return try Bool.fetchOne(
      db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM \(schema).chronicle_integer_rows WHERE parked_reason = ?)"),
      arguments: [reason.rawValue]) == true
  }

  /// How many rows are parked, for any reason.
  func parkedCount() throws -> Int {
    var count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(schema).chronicle_rows WHERE parked_reason IS NOT NULL") ?? 0
    if try hasIntegerRows() {
      count += try Int.fetchOne(db, sql: "SELECT count(*) FROM \(schema).chronicle_integer_rows WHERE parked_reason IS NOT NULL") ?? 0
    }
    return count
  }

  /// Files the states of table `from` (case ignored) under `to`.
  func renameTable(from: String, to: String) throws {
    let target = try dictionary.number(ofName: to)
    for number in try dictionary.numbers(ofNameIgnoringCase: from) where number != target {
      try db.execute(sql: "UPDATE \(schema).chronicle_rows SET table_number = ? WHERE table_number = ?", arguments: [target, number])
      guard try hasIntegerRows(), let old = IntegerRowID.range(ofTable: number) else { continue }
      if let new = IntegerRowID.range(ofTable: target) {
        try db.execute(
          sql: "UPDATE \(schema).chronicle_integer_rows SET table_and_key = table_and_key + ? WHERE table_and_key BETWEEN ? AND ?",
          arguments: [new.lowerBound - old.lowerBound, old.lowerBound, old.upperBound])
      } else {
        // A name number too large for a row id: the states move to chronicle_rows.
        var moved: [NamedMergeState] = []
        try forEachStored(in: "chronicle_rows", where: "1", [], ofTable: number) { moved.append($0) }
        try db.execute(
          sql: "DELETE FROM \(schema).chronicle_integer_rows WHERE table_and_key BETWEEN ? AND ?", arguments: [old.lowerBound, old.upperBound])
        for named in moved { try save(table: to, key: named.key, named.state) }
      }
    }
  }
}
