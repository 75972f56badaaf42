import Foundation

/// Encodes and decodes change events in the binary format of
/// `Schemas/EVENT-FORMAT.md`.
///
/// Encoding is deterministic: the same event always gives the same body bytes.
/// Decoding verifies everything (magic, version, flags, checksum, sizes, every
/// reference and value) and throws ``EventFormatError`` on the first problem.
package enum EventCodec {
  /// The newest format version this build reads (it reads every version up
  /// to it). Events are written as version 1 and become version 3 (signed
  /// and linked to their origin's previous event) when their device signs
  /// them, before they leave it; version 2 (signed, no link) is what
  /// Chronicle signed before links.
  package static let currentVersion: UInt8 = 3
  /// The version of an unsigned event, as capture writes it.
  static let unsignedVersion: UInt8 = 1
  static let magic: [UInt8] = Array("CHRE".utf8)
  static let flagCompressed: UInt8 = 0x01
  /// Bodies that decompress to more than this are refused (a decompression bomb
  /// cannot exhaust memory).
  package static let maximumBodySize = 1 << 30
  /// No serialized event is shorter: magic, version, flags, origin and clock
  /// (30 bytes), four varints of at least a byte, and the checksum.
  package static let minimumSize = 38

  /// An encoded event and its sizes.
  package struct Encoded: Sendable {
    /// The serialized event: envelope, compressed body, signature block
    /// (versions 2 and 3) and checksum.
    package var bytes: [UInt8]
    /// The format version (byte 4): 1 unsigned, 2 signed, 3 signed and linked.
    package var version: UInt8 { bytes[4] }
    /// Size of the body before compression.
    package var rawBodySize: Int
    /// CRC-32 stored at the end of `bytes`.
    package var checksum: UInt32
  }

  /// Serializes `event`, compressing the body with zlib at `compressionLevel`.
  package static func encode(_ event: ChangeEvent, compressionLevel: Int32 = 6) throws(EventFormatError) -> Encoded {
    var writer = EventBodyWriter()
    for table in event.tables { _ = writer.addTable(table) }
    for operation in event.operations { try writer.append(operation) }
    let prefix = writer.prefix()
    let operations = writer.operations.bytes
    return seal(
      origin: event.origin, sequence: event.sequence, timestamp: event.timestamp, schemaEpoch: event.schemaEpoch,
      prefix: prefix, operations: operations,
      compressed: Zlib.compressBody(prefix: prefix, operations: operations, level: compressionLevel))
  }

  /// Wraps an encoded body (`prefix` followed by `operations`) in the
  /// envelope: header, the body (`compressed` when that is smaller, since
  /// tiny bodies grow) and the checksum.
  static func seal(
    origin: PeerID, sequence: UInt64, timestamp: HLCTimestamp, schemaEpoch: UInt64,
    prefix: [UInt8], operations: [UInt8], compressed: [UInt8]
  ) -> Encoded {
    let bodySize = prefix.count + operations.count
    let isCompressed = compressed.count < bodySize
    let stored = isCompressed ? compressed : prefix + operations
    var writer = BinaryWriter(capacity: stored.count + 64)
    writer.writeBytes(magic)
    writer.writeByte(unsignedVersion)
    writer.writeByte(isCompressed ? flagCompressed : 0)
    writer.writeBytes(origin.bytes)
    writer.writeUInt64BigEndian(timestamp.rawValue)
    writer.writeVarint(sequence)
    writer.writeVarint(schemaEpoch)
    writer.writeVarint(bodySize)
    writer.writeVarint(stored.count)
    writer.writeBytes(stored)
    let checksum = Zlib.crc32(writer.bytes[...])
    writer.writeUInt32BigEndian(checksum)
    return Encoded(bytes: writer.bytes, rawBodySize: bodySize, checksum: checksum)
  }

  /// Parses a serialized event.
  package static func decode(_ bytes: [UInt8]) throws(EventFormatError) -> ChangeEvent {
    try decodeEncoded(bytes).event
  }

  /// The origin, sequence and clock of a serialized event, from its
  /// envelope, after its checksum (the body is left compressed): what a
  /// merge must know of every event before it decodes any (the clock it
  /// moves to, the oldest write it merges).
  static func decodeHeader(_ bytes: [UInt8]) throws(EventFormatError) -> (origin: PeerID, sequence: UInt64, timestamp: HLCTimestamp) {
    var reader = BinaryReader(bytes, context: .envelope)
    // Magic, version, flags, origin, clock: the first 30 bytes; a checksum after them.
    guard bytes.count >= 34, Array(bytes.prefix(magic.count)) == magic else {
      throw reader.error(bytes.count < magic.count || Array(bytes.prefix(magic.count)) == magic ? .truncated : .badMagic)
    }
    try verifyChecksum(bytes)
    _ = try reader.readBytes(magic.count + 2)
    guard let origin = PeerID(bytes: try reader.readBytes(16)) else { throw reader.error(.truncated) }
    let timestamp = HLCTimestamp(rawValue: try reader.readUInt64BigEndian())
    return (origin, try reader.readVarint(), timestamp)
  }

  /// The event's stored checksum (its last 4 bytes, big-endian), once it
  /// matches the CRC-32 of the bytes before it.
  @discardableResult
  private static func verifyChecksum(_ bytes: [UInt8]) throws(EventFormatError) -> UInt32 {
    let stored = bytes.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    let computed = Zlib.crc32(bytes.dropLast(4))
    guard stored == computed else {
      throw EventFormatError(problem: .checksumMismatch(stored: stored, computed: computed), region: .envelope, offset: bytes.count - 4)
    }
    return stored
  }

  /// Parses a serialized event and keeps its serialized form.
  ///
  /// `maxBodySize`: the largest body it inflates; a larger declared size is
  /// refused before any is allocated.
  static func decodeEncoded(_ bytes: [UInt8], maxBodySize: Int = maximumBodySize) throws(EventFormatError) -> (event: ChangeEvent, encoded: Encoded) {
    var reader = BinaryReader(bytes, context: .envelope)
    guard bytes.count >= magic.count, Array(bytes.prefix(magic.count)) == magic else {
      throw reader.error(bytes.count < magic.count ? .truncated : .badMagic)
    }
    _ = try reader.readBytes(magic.count)
    let version = try reader.readByte()
    guard version >= 1, version <= currentVersion else {
      throw EventFormatError(problem: .unsupportedVersion(found: version, supported: currentVersion), region: .envelope, offset: 4)
    }
    // The checksum is verified before anything else is trusted.
    guard bytes.count >= 4 + magic.count + 1 else { throw reader.error(.truncated) }
    let stored = try verifyChecksum(bytes)
    let flags = try reader.readByte()
    guard flags & ~flagCompressed == 0 else {
      throw EventFormatError(problem: .unknownFlags(flags), region: .envelope, offset: 5)
    }
    guard let origin = PeerID(bytes: try reader.readBytes(16)) else { throw reader.error(.truncated) }
    let timestamp = HLCTimestamp(rawValue: try reader.readUInt64BigEndian())
    let sequence = try reader.readVarint()
    let epoch = try reader.readVarint()
    let sizeOffset = reader.offset
    let rawSize = try reader.readVarint()
    guard rawSize <= UInt64(min(maxBodySize, maximumBodySize)) else {
      throw EventFormatError(problem: .tooLarge(Int(clamping: rawSize)), region: .envelope, offset: sizeOffset)
    }
    let storedSize = try reader.readLength()
    let storedBody = try reader.readBytes(storedSize)
    // Versions 2 and 3: the signer's key, the link (3) and the signature (checked by admission, not here).
    if version >= 2 { _ = try reader.readBytes(EventSignature.blockSize(version: version)) }
    guard reader.remaining == 4 else {
      throw reader.error(reader.remaining < 4 ? .truncated : .trailingBytes(reader.remaining - 4))
    }
    let body: [UInt8]
    if flags & flagCompressed != 0 {
      body = try Zlib.decompress(storedBody, expectedSize: Int(rawSize))
    } else {
      guard storedSize == Int(rawSize) else {
        throw EventFormatError(problem: .sizeMismatch(declared: Int(rawSize), actual: storedSize), region: .envelope, offset: sizeOffset)
      }
      body = Array(storedBody)
    }
    let (tables, operations) = try decodeBody(body)
    let event = ChangeEvent(origin: origin, sequence: sequence, timestamp: timestamp, schemaEpoch: epoch, tables: tables, operations: operations)
    return (event, Encoded(bytes: bytes, rawBodySize: Int(rawSize), checksum: stored))
  }

  // MARK: - Body

  enum OperationKind: UInt8 {
    case insert = 0x01, update = 0x02, delete = 0x03, schema = 0x10, membership = 0x20
  }

  enum SchemaKind: UInt8 {
    case execute = 0x01, rebuildTable = 0x02, migration = 0x03
  }

  enum StepKind: UInt8 {
    case renameTable = 0x01, renameColumn = 0x02, addColumn = 0x03, dropColumn = 0x04, convertColumn = 0x05, custom = 0x06, migrateKeys = 0x07
  }

  enum ValueTag: UInt8 {
    case null = 0, integer = 1, real = 2, text = 3, blob = 4
  }

  static func encodeBody(tables: [TableDescriptor], operations: [EventOperation]) throws(EventFormatError) -> [UInt8] {
    var writer = EventBodyWriter()
    for table in tables { _ = writer.addTable(table) }
    for operation in operations { try writer.append(operation) }
    return writer.finish()
  }

  static func writeStep(_ step: UpcastStep, to writer: inout BinaryWriter) throws(EventFormatError) {
    switch step {
    case .renameTable(let from, let to):
      writer.writeByte(StepKind.renameTable.rawValue)
      writer.writeString(from)
      writer.writeString(to)
    case .renameColumn(let table, let from, let to):
      writer.writeByte(StepKind.renameColumn.rawValue)
      writer.writeString(table)
      writer.writeString(from)
      writer.writeString(to)
    case .addColumn(let table, let column, let value):
      writer.writeByte(StepKind.addColumn.rawValue)
      writer.writeString(table)
      writer.writeString(column)
      try writeValue(value, to: &writer)
    case .dropColumn(let table, let column):
      writer.writeByte(StepKind.dropColumn.rawValue)
      writer.writeString(table)
      writer.writeString(column)
    case .convertColumn(let table, let column, let converter):
      writer.writeByte(StepKind.convertColumn.rawValue)
      writer.writeString(table)
      writer.writeString(column)
      writer.writeString(converter)
    case .custom(let upcaster, let tables):
      writer.writeByte(StepKind.custom.rawValue)
      writer.writeString(upcaster)
      writer.writeVarint(tables.count)
      for table in tables { writer.writeString(table) }
    case .migrateKeys(let table, let column, let references):
      writer.writeByte(StepKind.migrateKeys.rawValue)
      writer.writeString(table)
      writer.writeString(column)
      writer.writeVarint(references.count)
      for reference in references {
        writer.writeString(reference.table)
        writer.writeString(reference.column)
      }
    }
  }

  static func readStep(_ reader: inout BinaryReader) throws(EventFormatError) -> UpcastStep {
    let offset = reader.offset
    let raw = try reader.readByte()
    switch StepKind(rawValue: raw) {
    case .renameTable: return .renameTable(from: try reader.readString(), to: try reader.readString())
    case .renameColumn: return .renameColumn(table: try reader.readString(), from: try reader.readString(), to: try reader.readString())
    case .addColumn: return .addColumn(table: try reader.readString(), column: try reader.readString(), default: try readValue(&reader))
    case .dropColumn: return .dropColumn(table: try reader.readString(), column: try reader.readString())
    case .convertColumn:
      return .convertColumn(table: try reader.readString(), column: try reader.readString(), converter: try reader.readString())
    case .custom:
      let upcaster = try reader.readString()
      var tables: [String] = []
      for _ in 0..<(try reader.readLength()) { tables.append(try reader.readString()) }
      return .custom(upcaster: upcaster, tables: tables)
    case .migrateKeys:
      let table = try reader.readString()
      let column = try reader.readString()
      var references: [ColumnReference] = []
      for _ in 0..<(try reader.readLength()) {
        references.append(ColumnReference(table: try reader.readString(), column: try reader.readString()))
      }
      return .migrateKeys(table: table, column: column, references: references)
    case nil:
      throw EventFormatError(problem: .unknownSchemaOperation(raw), region: .body, offset: offset)
    }
  }

  static func writeValue(_ value: SQLiteValue, to writer: inout BinaryWriter) throws(EventFormatError) {
    switch value {
    case .null:
      writer.writeByte(ValueTag.null.rawValue)
    case .integer(let integer):
      writer.writeByte(ValueTag.integer.rawValue)
      writer.writeSignedVarint(integer)
    case .real(let real):
      guard !real.isNaN else { throw EventFormatError(problem: .nanNotEncodable, region: .body, offset: writer.bytes.count) }
      writer.writeByte(ValueTag.real.rawValue)
      writer.writeUInt64BigEndian(real.bitPattern)
    case .text(let text):
      writer.writeByte(ValueTag.text.rawValue)
      writer.writeString(text)
    case .blob(let blob):
      writer.writeByte(ValueTag.blob.rawValue)
      writer.writeVarint(blob.count)
      writer.writeBytes(blob)
    }
  }

  static func decodeBody(_ body: [UInt8]) throws(EventFormatError) -> ([TableDescriptor], [EventOperation]) {
    var reader = BinaryReader(body, context: .body)
    let tableCount = try reader.readLength()
    var tables: [TableDescriptor] = []
    tables.reserveCapacity(tableCount)
    for _ in 0..<tableCount {
      let start = reader.offset
      let name = try reader.readString()
      let columnCount = try reader.readLength()
      var columns: [String] = []
      for _ in 0..<columnCount { columns.append(try reader.readString()) }
      let keyCount = try reader.readLength()
      var key: [Int] = []
      for _ in 0..<keyCount {
        let index = try reader.readInt()
        guard index < columnCount else { throw reader.error(.columnIndexOutOfRange(index)) }
        guard !key.contains(index) else { throw reader.error(.duplicateColumn(index)) }
        key.append(index)
      }
      guard !name.isEmpty, !columns.isEmpty, !key.isEmpty, Set(columns).count == columns.count else {
        throw EventFormatError(problem: .invalidTable("\(name.isEmpty ? "<unnamed>" : name) needs a name, distinct columns and a primary key"), region: .body, offset: start)
      }
      tables.append(TableDescriptor(name: name, columns: columns, primaryKey: key))
    }
    let operationCount = try reader.readLength()
    var operations: [EventOperation] = []
    operations.reserveCapacity(operationCount)
    for _ in 0..<operationCount {
      let kindOffset = reader.offset
      let rawKind = try reader.readByte()
      guard let kind = OperationKind(rawValue: rawKind) else {
        throw EventFormatError(problem: .unknownOperation(rawKind), region: .body, offset: kindOffset)
      }
      switch kind {
      case .insert:
        let table = try readTableIndex(&reader, tables: tables)
        let values = try readValues(&reader, count: tables[table].columns.count)
        operations.append(.insert(table: table, values: values))
      case .update:
        let table = try readTableIndex(&reader, tables: tables)
        let key = try readValues(&reader, count: tables[table].primaryKey.count)
        let changeCount = try reader.readLength()
        var changes: [ColumnValue] = []
        var seen = Set<Int>()
        for _ in 0..<changeCount {
          let column = try reader.readInt()
          guard column < tables[table].columns.count else { throw reader.error(.columnIndexOutOfRange(column)) }
          guard seen.insert(column).inserted else { throw reader.error(.duplicateColumn(column)) }
          changes.append(ColumnValue(column: column, value: try readValue(&reader)))
        }
        operations.append(.update(table: table, key: key, changes: changes))
      case .delete:
        let table = try readTableIndex(&reader, tables: tables)
        operations.append(.delete(table: table, key: try readValues(&reader, count: tables[table].primaryKey.count)))
      case .membership:
        operations.append(.membership(try readMembership(&reader)))
      case .schema:
        let schemaOffset = reader.offset
        let rawSchemaKind = try reader.readByte()
        switch SchemaKind(rawValue: rawSchemaKind) {
        case .execute:
          operations.append(.schema(.execute(sql: try reader.readString())))
        case .rebuildTable:
          let name = try reader.readString()
          let createSQL = try reader.readString()
          let copiedCount = try reader.readLength()
          var copied: [CopiedColumn] = []
          for _ in 0..<copiedCount {
            copied.append(CopiedColumn(newName: try reader.readString(), oldName: try reader.readString()))
          }
          let dependentCount = try reader.readLength()
          var dependents: [String] = []
          for _ in 0..<dependentCount { dependents.append(try reader.readString()) }
          operations.append(.schema(.rebuildTable(name: name, createSQL: createSQL, copiedColumns: copied, dependents: dependents)))
        case .migration:
          let name = try reader.readString()
          var steps: [UpcastStep] = []
          for _ in 0..<(try reader.readLength()) { steps.append(try readStep(&reader)) }
          operations.append(.schema(.migration(SchemaMigration(name: name, steps: steps))))
        case nil:
          throw EventFormatError(problem: .unknownSchemaOperation(rawSchemaKind), region: .body, offset: schemaOffset)
        }
      }
    }
    guard reader.isAtEnd else { throw reader.error(.trailingBytes(reader.remaining)) }
    return (tables, operations)
  }

  private static func readTableIndex(_ reader: inout BinaryReader, tables: [TableDescriptor]) throws(EventFormatError) -> Int {
    let index = try reader.readInt()
    guard index < tables.count else { throw reader.error(.tableIndexOutOfRange(index)) }
    return index
  }

  private static func readValues(_ reader: inout BinaryReader, count: Int) throws(EventFormatError) -> [SQLiteValue] {
    var values: [SQLiteValue] = []
    values.reserveCapacity(count)
    for _ in 0..<count { values.append(try readValue(&reader)) }
    return values
  }

  static func readValue(_ reader: inout BinaryReader) throws(EventFormatError) -> SQLiteValue {
    let tagOffset = reader.offset
    let rawTag = try reader.readByte()
    switch ValueTag(rawValue: rawTag) {
    case .null: return .null
    case .integer: return .integer(try reader.readSignedVarint())
    case .real:
      let real = Double(bitPattern: try reader.readUInt64BigEndian())
      guard !real.isNaN else { throw EventFormatError(problem: .notANumber, region: .body, offset: tagOffset) }
      return .real(real)
    case .text: return .text(try reader.readString())
    case .blob:
      let count = try reader.readLength()
      return .blob(Data(try reader.readBytes(count)))
    case nil:
      throw EventFormatError(problem: .unknownValueTag(rawTag), region: .body, offset: tagOffset)
    }
  }
}

extension EventCodec {
  /// The origin, sequence and declared body size (inflated) a serialized
  /// event's envelope names, read without its checksum or body: for
  /// deciding what to inflate; nil when the envelope does not read.
  static func declaredBody(of bytes: [UInt8]) -> (origin: PeerID, sequence: UInt64, size: UInt64)? {
    guard bytes.count >= 34, Array(bytes.prefix(magic.count)) == magic else { return nil }
    var reader = BinaryReader(bytes, context: .envelope)
    guard (try? reader.readBytes(magic.count + 2)) != nil, let origin = (try? reader.readBytes(16)).flatMap(PeerID.init(bytes:)),
          (try? reader.readUInt64BigEndian()) != nil, let sequence = try? reader.readVarint(), (try? reader.readVarint()) != nil,
          let size = try? reader.readVarint()
    else { return nil }
    return (origin, sequence, size)
  }

  /// The checksum stored at the end of a serialized event.
  package static func storedChecksum(of bytes: [UInt8]) -> UInt32 {
    bytes.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
  }

  /// The origin and sequence a serialized event's envelope names; nil when
  /// the envelope does not read.
  package static func eventID(of bytes: [UInt8]) -> EventID? {
    guard let header = try? decodeHeader(bytes) else { return nil }
    return EventID(origin: header.origin, sequence: header.sequence)
  }
}
