import Foundation
import GRDB

/// The primary key of a row as `chronicle_rows` stores it (`row_key`): its
/// values in key order, each a tag byte and bytes that compare, byte by
/// byte, as SQLite orders values of that type. Consecutive keys of a table
/// therefore sit on neighbouring pages of `chronicle_rows`, as its rows do in
/// the table: a merge that walks a table in key order walks its merge state
/// in the same order.
///
/// An integer takes as few bytes as its magnitude needs (a row id below
/// 65,536 takes three with its tag): the tag says the sign and the length,
/// so a shorter positive number sorts before a longer one, and a shorter
/// negative one after a longer one. Reals are 8 bytes big-endian with the
/// sign bit flipped (every bit, for negative ones).
///
/// Older files stored keys otherwise: until internal schema version 4 in the
/// event value encoding (tags 0 to 4, integers as zigzag varints, which
/// scattered consecutive integers over the whole index), and in version 4
/// with every integer 8 bytes long (tag 0x20, a tag no key of today's
/// encoding starts with). ``decode(_:)`` reads all three, so a file opened
/// read-only before it was upgraded still shows its keys.
enum MergeStateKey {
  private enum Tag: UInt8 {
    /// Integers: `zero` minus the byte count for negative ones (0x18 to 0x1F),
    /// `zero` plus it for positive ones (0x22 to 0x29).
    case null = 0x10, zero = 0x21, real = 0x30, text = 0x40, blob = 0x50
    /// An integer of internal schema version 4: 8 bytes, sign bit flipped.
    case fixedWidthInteger = 0x20
  }

  static func encode(_ values: [SQLiteValue]) throws(EventFormatError) -> Data {
    // The usual key, one integer, is built on the stack: a merge encodes one per row change.
    if values.count == 1, case .integer(let integer) = values[0] { return encode(integer) }
    var writer = BinaryWriter(capacity: 16)
    for value in values {
      switch value {
      case .null:
        writer.writeByte(Tag.null.rawValue)
      case .integer(let integer):
        writeInteger(integer, to: &writer)
      case .real(let real):
        guard !real.isNaN else { throw EventFormatError(problem: .nanNotEncodable, region: .body, offset: writer.bytes.count) }
        writer.writeByte(Tag.real.rawValue)
        // Negative reals sort in reverse bit order: flip every bit of those.
        let bits = real.bitPattern
        writer.writeUInt64BigEndian(bits >> 63 == 1 ? ~bits : bits ^ (1 << 63))
      case .text(let text):
        writer.writeByte(Tag.text.rawValue)
        writer.writeString(text)
      case .blob(let blob):
        writer.writeByte(Tag.blob.rawValue)
        writer.writeVarint(blob.count)
        writer.writeBytes(blob)
      }
    }
    return Data(writer.bytes)
  }

  /// The key of one integer, as ``encode(_:)`` writes it.
  static func encode(_ integer: Int64) -> Data {
    withIntegerBytes(integer) { Data(bytes: $0.baseAddress!, count: $0.count) }
  }

  private static func writeInteger(_ integer: Int64, to writer: inout BinaryWriter) {
    withIntegerBytes(integer) { writer.writeBytes($0) }
  }

  /// Calls `body` with an integer's tag and bytes, built on the stack. A
  /// negative integer is stored as the complement of its magnitude less
  /// one, so that among negatives of one length the larger magnitude sorts first.
  private static func withIntegerBytes<T>(_ integer: Int64, _ body: (UnsafeRawBufferPointer) -> T) -> T {
    let magnitude = integer < 0 ? ~UInt64(bitPattern: integer) : UInt64(integer)
    let count = (64 - magnitude.leadingZeroBitCount + 7) / 8
    let length = integer < 0 ? max(count, 1) : count
    var bytes: (UInt64, UInt64) = (0, 0)
    return withUnsafeMutableBytes(of: &bytes) { buffer in
      buffer[0] = integer < 0 ? Tag.zero.rawValue - 1 - UInt8(length) : Tag.zero.rawValue + UInt8(length)
      for index in 0..<length {
        let byte = UInt8(truncatingIfNeeded: magnitude >> (8 * (length - 1 - index)))
        buffer[1 + index] = integer < 0 ? ~byte : byte
      }
      return body(UnsafeRawBufferPointer(rebasing: buffer[..<(1 + length)]))
    }
  }

  /// Keys of one integer from 0 through `smallIntegerLimit - 1` (tags 0x21
  /// to 0x26) are stored in `chronicle_integer_rows` (see ``IntegerRowID``).
  static let smallIntegerLimit: Int64 = 1 << 40

  /// The integer of a key that is one integer from 0 through
  /// `smallIntegerLimit - 1`, as ``encode(_:)-(Int64)`` writes it; nil for any other key.
  static func smallInteger(_ key: Data) -> Int64? {
    key.withUnsafeBytes { bytes in
      guard let tag = bytes.first, tag >= Tag.zero.rawValue, tag <= Tag.zero.rawValue + 5,
        bytes.count == 1 + Int(tag - Tag.zero.rawValue)
      else { return nil }
      var value: Int64 = 0
      for index in 1..<bytes.count { value = value << 8 | Int64(bytes[index]) }
      return value
    }
  }

  /// The least integer from 0 through `smallIntegerLimit - 1` whose key
  /// sorts at or after `key`; nil when every one of them sorts before it.
  static func firstSmallInteger(notBefore key: Data) -> Int64? {
    guard let tag = key.first, tag >= Tag.zero.rawValue else { return 0 }
    guard tag <= Tag.zero.rawValue + 5 else { return nil }
    let length = Int(tag - Tag.zero.rawValue)
    // The integers of this length start with the key's bytes (missing ones read as zero).
    var value: Int64 = 0
    for index in 0..<length {
      let position = key.startIndex + 1 + index
      value = value << 8 | Int64(position < key.endIndex ? key[position] : 0)
    }
    if length > 0, value < 1 << (8 * (length - 1)) {
      value = 1 << (8 * (length - 1))  // not a key this encoding writes: every integer of the length sorts after it
    } else if key.count > 1 + length {
      value += 1  // values after an integer: that integer's key sorts before
    }
    return value < smallIntegerLimit ? value : nil
  }

  /// The integer whose tag is `tag` (0x18 to 0x29, but 0x20), or nil when it is not one.
  private static func readInteger(tag: UInt8, from reader: inout BinaryReader) throws(EventFormatError) -> Int64? {
    guard tag >= Tag.zero.rawValue - 9, tag <= Tag.zero.rawValue + 8, tag != Tag.fixedWidthInteger.rawValue else { return nil }
    let isNegative = tag < Tag.zero.rawValue
    let length = isNegative ? Int(Tag.zero.rawValue - 1 - tag) : Int(tag - Tag.zero.rawValue)
    var magnitude: UInt64 = 0
    for byte in try reader.readBytes(length) { magnitude = magnitude << 8 | UInt64(isNegative ? ~byte : byte) }
    return isNegative ? Int64(bitPattern: ~magnitude) : Int64(bitPattern: magnitude)
  }

  /// The key values of a stored key, in any of the encodings.
  static func decode(_ data: Data) throws(EventFormatError) -> [SQLiteValue] {
    var reader = BinaryReader(Array(data), context: .body)
    var values: [SQLiteValue] = []
    // A key stored before internal schema version 4 is event values throughout.
    if let first = data.first, first < Tag.null.rawValue {
      while !reader.isAtEnd { values.append(try EventCodec.readValue(&reader)) }
      return values
    }
    while !reader.isAtEnd {
      let tagOffset = reader.offset
      let rawTag = try reader.readByte()
      if let integer = try readInteger(tag: rawTag, from: &reader) {
        values.append(.integer(integer))
        continue
      }
      switch Tag(rawValue: rawTag) {
      case .null:
        values.append(.null)
      case .fixedWidthInteger:
        values.append(.integer(Int64(bitPattern: try reader.readUInt64BigEndian() ^ (1 << 63))))
      case .zero:
        values.append(.integer(0))  // read above; here for the switch to be complete
      case .real:
        let stored = try reader.readUInt64BigEndian()
        values.append(.real(Double(bitPattern: stored >> 63 == 1 ? stored ^ (1 << 63) : ~stored)))
      case .text:
        values.append(.text(try reader.readString()))
      case .blob:
        let count = try reader.readLength()
        values.append(.blob(Data(try reader.readBytes(count))))
      case nil:
        throw EventFormatError(problem: .unknownValueTag(rawTag), region: .body, offset: tagOffset)
      }
    }
    return values
  }
}
