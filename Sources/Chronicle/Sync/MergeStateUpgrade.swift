import Foundation
import GRDB

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
      let rows = try Row.fetchCursor(db, sql: "SELECT table_name, row_key, clocks, deleted_hlc, deleted_origin, retained, parked_reason FROM temp.\(old)")
      while let row = try rows.next() {
        let table: String = row[0]
        do {
          var state = RowMergeState()
          try state.decodeVersion4Clocks(Array(row[2] as Data))
          if let hlc = row[3] as Int64?, let origin = (row[4] as Data?).flatMap({ PeerID(bytes: Array($0)) }) {
            state.deleted = WriteVersion(timestamp: HLCTimestamp(rawValue: UInt64(bitPattern: hlc)), origin: origin)
          }
          state.retained = try (row[5] as Data?).map(RowMergeState.decodeValues)
          state.parkedReason = (row[6] as String?).flatMap(RowMergeState.ParkedReason.init(rawValue:))
          let key = try MergeStateKey.encode(try MergeStateKey.decode(row[1] as Data))
          try store.save(table: table, key: key, state, in: new)
        } catch let error as EventFormatError {
          throw ChronicleError.corruptMergeState(table: table, detail: "\(error)")
        }
      }
      try db.execute(sql: "DROP TABLE temp.\(old)")
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
