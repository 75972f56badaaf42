import Foundation

/// What merging knows about one row: a last-write-wins register per column
/// (its version; its value lives in the table, or in ``retained`` when the row
/// is not there), and the version of its latest delete.
///
/// The row is live when some column was written after the latest delete, and
/// complete once an insert has been merged (an update alone does not give
/// every column). A live and complete row is in its table; any other is kept
/// here, so a later write can bring it back whole.
struct RowMergeState: Equatable {
  /// Version of each column's winning write, by column name.
  var clocks = ColumnClocks()
  /// Whether an insert of the row has been merged.
  var isComplete = false
  /// Version of the latest delete.
  var deleted: WriteVersion?
  /// Column values when the row is not in its table (nil when it is).
  var retained: [String: SQLiteValue]?
  /// Why a live row is not in its table.
  var parkedReason: ParkedReason?

  enum ParkedReason: String {
    /// An update arrived before the row's insert.
    case incomplete
    /// A foreign key's parent row is absent.
    case parent
  }

  /// Whether a write is newer than the latest delete.
  var isLive: Bool {
    guard let latest = clocks.latest else { return false }
    return deleted.map { latest > $0 } ?? true
  }

  /// Whether the row belongs in its table.
  var belongsInTable: Bool { isLive && isComplete }

  /// Merges a write of `values` at `version`: returns the columns it wins.
  mutating func mergeWrite(_ values: [(column: String, value: SQLiteValue)], version: WriteVersion, isInsert: Bool) -> [(column: String, value: SQLiteValue)] {
    if isInsert { isComplete = true }
    var winners: [(column: String, value: SQLiteValue)] = []
    for (column, value) in values where clocks.advance(column, to: version) {
      winners.append((column, value))
      if retained != nil { retained![column] = value }
    }
    return winners
  }

  /// Merges a delete at `version`.
  mutating func mergeDelete(version: WriteVersion) {
    if deleted.map({ version > $0 }) ?? true { deleted = version }
  }

  // MARK: - Stored form

  /// `clocks` column: flags (bit 0: complete), the distinct versions (HLC and
  /// origin), then each column's name and version index, sorted by name.
  func encodedClocks() -> Data {
    var writer = BinaryWriter(capacity: 64)
    writer.writeByte(isComplete ? 1 : 0)
    // A row has few distinct versions (one per write that still wins a
    // column): a sorted array, searched linearly, beats a set and a map.
    var versions: [WriteVersion] = []
    for (_, version) in clocks where !versions.contains(version) { versions.append(version) }
    versions.sort()
    writer.writeVarint(versions.count)
    for version in versions {
      writer.writeUInt64BigEndian(version.timestamp.rawValue)
      writer.writeBytes(version.origin.bytes)
    }
    writer.writeVarint(clocks.count)
    for (column, version) in clocks.sortedByColumn() {
      writer.writeString(column)
      writer.writeVarint(versions.firstIndex(of: version)!)
    }
    return Data(writer.bytes)
  }

  mutating func decodeClocks(_ data: Data) throws(EventFormatError) {
    try decodeClocks(Array(data))
  }

  mutating func decodeClocks(_ bytes: [UInt8]) throws(EventFormatError) {
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
      clocks.append(column, versions[index])  // names are stored once each, sorted
    }
  }

  /// `retained` column: count, then each column's name and value, sorted by name.
  static func encodeValues(_ values: [String: SQLiteValue]) throws(EventFormatError) -> Data {
    var writer = BinaryWriter(capacity: 64)
    writer.writeVarint(values.count)
    for (column, value) in values.sorted(by: { $0.key < $1.key }) {
      writer.writeString(column)
      try EventCodec.writeValue(value, to: &writer)
    }
    return Data(writer.bytes)
  }

  static func decodeValues(_ data: Data) throws(EventFormatError) -> [String: SQLiteValue] {
    try decodeValues(Array(data))
  }

  static func decodeValues(_ bytes: [UInt8]) throws(EventFormatError) -> [String: SQLiteValue] {
    var reader = BinaryReader(bytes, context: .body)
    var values: [String: SQLiteValue] = [:]
    for _ in 0..<(try reader.readLength()) {
      let column = try reader.readString()
      values[column] = try EventCodec.readValue(&reader)
    }
    return values
  }
}
