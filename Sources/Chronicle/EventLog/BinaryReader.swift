import Foundation

/// Reads the primitives of the event format, refusing anything out of bounds
/// or non-canonical with an ``EventFormatError`` that names the offset.
struct BinaryReader {
  let bytes: [UInt8]
  private(set) var offset: Int
  /// Added to offsets in errors, so that errors in a nested buffer (the
  /// decompressed body) say where they are.
  let context: EventFormatError.Region

  init(_ bytes: [UInt8], context: EventFormatError.Region) {
    self.bytes = bytes
    self.offset = 0
    self.context = context
  }

  var isAtEnd: Bool { offset == bytes.count }
  var remaining: Int { bytes.count - offset }

  func error(_ problem: EventFormatError.Problem) -> EventFormatError {
    EventFormatError(problem: problem, region: context, offset: offset)
  }

  mutating func readByte() throws(EventFormatError) -> UInt8 {
    guard offset < bytes.count else { throw error(.truncated) }
    defer { offset += 1 }
    return bytes[offset]
  }

  mutating func readBytes(_ count: Int) throws(EventFormatError) -> ArraySlice<UInt8> {
    guard count >= 0, count <= remaining else { throw error(.truncated) }
    defer { offset += count }
    return bytes[offset..<offset + count]
  }

  mutating func readVarint() throws(EventFormatError) -> UInt64 {
    let start = offset
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      let byte = try readByte()
      if shift == 63 && byte > 1 { throw EventFormatError(problem: .varintOverflow, region: context, offset: start) }
      result |= UInt64(byte & 0x7F) << shift
      if byte & 0x80 == 0 {
        // Canonical form: no trailing zero groups (0x80 0x00 for 0 is refused).
        if byte == 0 && offset - start > 1 {
          throw EventFormatError(problem: .nonCanonicalVarint, region: context, offset: start)
        }
        return result
      }
      shift += 7
    }
  }

  /// A varint used as a count or length: it must fit in what is left.
  mutating func readLength() throws(EventFormatError) -> Int {
    let start = offset
    let value = try readVarint()
    guard value <= UInt64(remaining) else {
      throw EventFormatError(problem: .truncated, region: context, offset: start)
    }
    return Int(value)
  }

  /// A varint used as an index or small number (not bounded by what is left).
  mutating func readInt() throws(EventFormatError) -> Int {
    let start = offset
    let value = try readVarint()
    guard value <= UInt64(Int32.max) else {
      throw EventFormatError(problem: .valueOutOfRange("\(value)"), region: context, offset: start)
    }
    return Int(value)
  }

  mutating func readSignedVarint() throws(EventFormatError) -> Int64 {
    let raw = try readVarint()
    return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
  }

  mutating func readUInt64BigEndian() throws(EventFormatError) -> UInt64 {
    try readBytes(8).reduce(0) { $0 << 8 | UInt64($1) }
  }

  mutating func readUInt32BigEndian() throws(EventFormatError) -> UInt32 {
    try readBytes(4).reduce(0) { $0 << 8 | UInt32($1) }
  }

  mutating func readString() throws(EventFormatError) -> String {
    let start = offset
    let count = try readLength()
    let utf8 = try readBytes(count)
    guard let string = String(validating: utf8, as: UTF8.self) else {
      throw EventFormatError(problem: .invalidUTF8, region: context, offset: start)
    }
    return string
  }
}
