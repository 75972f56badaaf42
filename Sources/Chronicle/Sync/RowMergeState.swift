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

  /// `clocks` column (internal schema version 5), with names and peers as
  /// ``MergeDictionary`` numbers:
  /// - flags: bit 0, an insert was merged; bit 1, a delete follows;
  /// - the delete's version, if any: HLC (8 bytes, big-endian), peer number;
  /// - the distinct versions of the columns, oldest first: the first HLC in
  ///   8 bytes, each later one as its distance from the one before, each
  ///   with its peer number;
  /// - the columns, by name number: each as the distance from the number
  ///   before it, shifted left 4, with its version's index in the low bits
  ///   (15 and more: 15, then the rest of the index).
  ///
  /// All numbers are varints. A row inserted once and updated once (two
  /// versions, five columns) takes about 25 bytes.
  func encodeClocks(to writer: inout BinaryWriter, _ dictionary: MergeDictionary) throws {
    writer.writeByte((isComplete ? 1 : 0) | (deleted != nil ? 2 : 0))
    if let deleted {
      writer.writeUInt64BigEndian(deleted.timestamp.rawValue)
      writer.writeVarint(UInt64(try dictionary.number(ofOrigin: deleted.origin)))
    }
    // A row has few columns and fewer distinct versions (one per write that
    // still wins a column): small buffers on the stack, sorted by insertion.
    let count = clocks.count
    try withUnsafeTemporaryAllocation(of: WriteVersion.self, capacity: max(count, 1)) { versions in
      try withUnsafeTemporaryAllocation(of: (number: Int64, version: Int).self, capacity: max(count, 1)) { columns in
        var distinct = 0
        for (_, version) in clocks where !versions[..<distinct].contains(version) {
          var slot = distinct
          while slot > 0, version < versions[slot - 1] {
            versions.initializeElement(at: slot, to: versions.moveElement(from: slot - 1))
            slot -= 1
          }
          versions.initializeElement(at: slot, to: version)
          distinct += 1
        }
        defer { _ = versions[..<distinct].deinitialize() }
        try Self.writeVersions(count: distinct, to: &writer) { index in
          (versions[index].timestamp.rawValue, try dictionary.number(ofOrigin: versions[index].origin))
        }
        var filled = 0
        for (column, version) in clocks {
          let entry = (number: try dictionary.number(ofName: column), version: versions[..<distinct].firstIndex(of: version)!)
          Self.insertInNumberOrder(entry, into: columns, filled: &filled)
        }
        Self.writeColumns(columns[..<filled], to: &writer)
      }
    }
  }

  /// Writes the distinct versions of ``encodeClocks(to:_:)``, `count` of
  /// them, oldest first, as `version` gives each: its clock reading and the
  /// dictionary number of its origin.
  static func writeVersions(count: Int, to writer: inout BinaryWriter, _ version: (Int) throws -> (timestamp: UInt64, origin: Int64)) rethrows {
    writer.writeVarint(count)
    var previous: UInt64?
    for index in 0..<count {
      let (timestamp, origin) = try version(index)
      if let previous { writer.writeVarint(timestamp - previous) } else { writer.writeUInt64BigEndian(timestamp) }
      previous = timestamp
      writer.writeVarint(UInt64(origin))
    }
  }

  /// Puts a column's entry (its name number, and its version's place among
  /// the distinct versions) among the `filled` first of `columns`, kept in
  /// name-number order: a row has few columns, sorted as they come.
  static func insertInNumberOrder(
    _ entry: (number: Int64, version: Int), into columns: UnsafeMutableBufferPointer<(number: Int64, version: Int)>, filled: inout Int
  ) {
    var slot = filled
    while slot > 0, entry.number < columns[slot - 1].number {
      columns[slot] = columns[slot - 1]
      slot -= 1
    }
    columns[slot] = entry
    filled += 1
  }

  /// Writes the columns of ``encodeClocks(to:_:)``, given in name-number order.
  static func writeColumns(_ columns: Slice<UnsafeMutableBufferPointer<(number: Int64, version: Int)>>, to writer: inout BinaryWriter) {
    writer.writeVarint(columns.count)
    var previousNumber: Int64 = 0
    for column in columns {
      writer.writeVarint(UInt64(column.number - previousNumber) << 4 | UInt64(min(column.version, 15)))
      if column.version >= 15 { writer.writeVarint(column.version - 15) }
      previousNumber = column.number
    }
  }

  /// Reads ``encodeClocks(to:_:)``: the clocks, whether complete, and the delete.
  mutating func decodeClocks(_ bytes: [UInt8], _ dictionary: MergeDictionary) throws {
    clocks = ColumnClocks()
    isComplete = false
    deleted = nil
    guard !bytes.isEmpty else { return }
    var reader = BinaryReader(bytes, context: .body)
    let flags = try reader.readByte()
    isComplete = flags & 1 != 0
    if flags & 2 != 0 {
      let timestamp = HLCTimestamp(rawValue: try reader.readUInt64BigEndian())
      deleted = WriteVersion(timestamp: timestamp, origin: try dictionary.origin(Int64(try reader.readVarint())))
    }
    var versions: [WriteVersion] = []
    var timestamp: UInt64 = 0
    for index in 0..<(try reader.readLength()) {
      timestamp = index == 0 ? try reader.readUInt64BigEndian() : timestamp &+ (try reader.readVarint())
      versions.append(WriteVersion(timestamp: HLCTimestamp(rawValue: timestamp), origin: try dictionary.origin(Int64(try reader.readVarint()))))
    }
    var number: Int64 = 0
    let columnCount = try reader.readLength()
    clocks = ColumnClocks(capacity: min(columnCount, bytes.count))
    for _ in 0..<columnCount {
      let packed = try reader.readVarint()
      number += Int64(packed >> 4)
      var index = Int(packed & 15)
      if index == 15 { index += try reader.readLength() }
      guard index < versions.count else { throw reader.error(.columnIndexOutOfRange(index)) }
      clocks.append(try dictionary.name(number), versions[index])  // each name once
    }
  }

  /// `retained` column: count, then each column's name and value, sorted by name.
  static func encodeValues(_ values: [String: SQLiteValue]) throws(EventFormatError) -> Data {
    var writer = BinaryWriter(capacity: 64)
    try encodeValues(values, to: &writer)
    return Data(writer.bytes)
  }

  static func encodeValues(_ values: [String: SQLiteValue], to writer: inout BinaryWriter) throws(EventFormatError) {
    writer.writeVarint(values.count)
    for (column, value) in values.sorted(by: { $0.key < $1.key }) {
      writer.writeString(column)
      try EventCodec.writeValue(value, to: &writer)
    }
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
