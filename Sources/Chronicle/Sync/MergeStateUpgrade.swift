import Foundation
import GRDB
import GRDBSQLite

/// Converts the merge state of a file from before internal schema version 5
/// (names, peer ids and 8-byte integers spelled out on every row) into the
/// compact form, on open.
enum MergeStateUpgrade {
  /// Moves every state from the temporary tables `chronicle_rows_version4`
  /// and `chronicle_baseline_rows_version4` (where the version 5 SQL put
  /// them) into the new tables, then drops the temporary ones.
  static func convertVersion4States(_ db: Database) throws {
    let store = MergeStore(db: db)
    for (old, new) in [("chronicle_rows_version4", "chronicle_rows"), ("chronicle_baseline_rows_version4", "chronicle_baseline_rows")] {
      try forEachVersion4State(in: "temp.\(old)", db) { try store.save(table: $0.table, key: $0.key, $0.state, in: new) }
      try db.execute(sql: "DROP TABLE temp.\(old)")
    }
  }

  /// Moves the states whose keys are one integer from 0 through 2^40 − 1
  /// from `chronicle_rows` into `chronicle_integer_rows` (internal schema
  /// version 6), bytes unchanged.
  static func moveIntegerKeyStates(_ db: Database) throws {
    var moves: [(id: IntegerRowID, table: Int64, key: Data)] = []
    try db.makeStatement(sql: "SELECT table_number, row_key FROM main.chronicle_rows").forEachRow([]) { row in
      let table = sqlite3_column_int64(row, 0)
      let key = Data(SQLiteValue.blobBytes(row, column: 1))
      if let id = IntegerRowID(table: table, key: key) { moves.append((id, table, key)) }
    }
    let copy = try db.makeStatement(sql: """
      INSERT INTO main.chronicle_integer_rows (table_and_key, clocks, parked_reason, retained)
      SELECT ?, clocks, parked_reason, retained FROM main.chronicle_rows WHERE table_number = ? AND row_key = ?
      """)
    let delete = try db.makeStatement(sql: "DELETE FROM main.chronicle_rows WHERE table_number = ? AND row_key = ?")
    for move in moves {
      try copy.run([.integer(move.id.rawValue), .integer(move.table), .blob(move.key)])
      try delete.run([.integer(move.table), .blob(move.key)])
    }
  }

  /// Whether `table` (`chronicle_rows` or `chronicle_baseline_rows`) has the
  /// layout of version 4 and before: a file opened read-only is not upgraded.
  static func hasVersion4Layout(_ table: String, _ db: Database) throws -> Bool {
    try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM pragma_table_info(?) WHERE name = 'table_name'", arguments: [table]) ?? false
  }

  /// Calls `body` with each state stored in `table` in the layout of version
  /// 4 and before, its key in today's encoding.
  static func forEachVersion4State(in table: String, _ db: Database, _ body: (NamedMergeState) throws -> Void) throws {
    let rows = try Row.fetchCursor(db, sql: "SELECT table_name, row_key, clocks, deleted_hlc, deleted_origin, retained, parked_reason FROM \(table)")
    while let row = try rows.next() {
      let table: String = row[0]
      var state = RowMergeState()
      let key: Data
      do {
        try state.decodeVersion4Clocks(Array(row[2] as Data))
        if let hlc = row[3] as Int64?, let origin = (row[4] as Data?).flatMap({ PeerID(bytes: Array($0)) }) {
          state.deleted = WriteVersion(timestamp: HLCTimestamp(rawValue: UInt64(bitPattern: hlc)), origin: origin)
        }
        state.retained = try (row[5] as Data?).map(RowMergeState.decodeValues)
        state.parkedReason = (row[6] as String?).flatMap(RowMergeState.ParkedReason.init(rawValue:))
        key = try MergeStateKey.encode(try MergeStateKey.decode(row[1] as Data))
      } catch {
        throw ChronicleError.corruptMergeState(table: table, detail: "\(error)")
      }
      try body(NamedMergeState(table: table, key: key, state: state))
    }
  }
}

extension RowMergeState {
  /// Reads the `clocks` column of internal schema version 4 and before:
  /// flags (bit 0: complete), the distinct versions (8-byte HLC and 16-byte
  /// origin), then each column's name and version index.
  mutating func decodeVersion4Clocks(_ bytes: [UInt8]) throws(EventFormatError) {
    clocks = ColumnClocks()
    isComplete = false
    guard !bytes.isEmpty else { return }
    var reader = BinaryReader(bytes, context: .body)
    isComplete = try reader.readByte() & 1 != 0
    var versions: [WriteVersion] = []
    for _ in 0..<(try reader.readLength()) {
      let timestamp = HLCTimestamp(rawValue: try reader.readUInt64BigEndian())
      guard let origin = PeerID(bytes: try reader.readBytes(16)) else { throw reader.error(.truncated) }
      versions.append(WriteVersion(timestamp: timestamp, origin: origin))
    }
    for _ in 0..<(try reader.readLength()) {
      let column = try reader.readString()
      let index = try reader.readInt()
      guard index < versions.count else { throw reader.error(.columnIndexOutOfRange(index)) }
      clocks.append(column, versions[index])
    }
  }
}
