import Foundation

/// Appends the primitives of the event format to a growing byte buffer.
///
/// Integers are unsigned LEB128 varints; signed values are zigzag-encoded first.
struct BinaryWriter {
  private(set) var bytes: [UInt8] = []

  init(capacity: Int = 256) {
    bytes.reserveCapacity(capacity)
  }

  /// Number of bytes written.
  var count: Int { bytes.count }

  /// Forgets the bytes written, keeping the memory for the next ones.
  mutating func removeAll() {
    bytes.removeAll(keepingCapacity: true)
  }

  mutating func writeByte(_ byte: UInt8) {
    bytes.append(byte)
  }

  mutating func writeBytes<C: Collection>(_ data: C) where C.Element == UInt8 {
    bytes.append(contentsOf: data)
  }

  mutating func writeVarint(_ value: UInt64) {
    if value < 0x80 {  // most lengths, indexes and counts
      bytes.append(UInt8(truncatingIfNeeded: value))
      return
    }
    var value = value
    while value >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
      value >>= 7
    }
    bytes.append(UInt8(value))
  }

  mutating func writeVarint(_ value: Int) {
    precondition(value >= 0, "negative length")
    writeVarint(UInt64(value))
  }

  mutating func writeSignedVarint(_ value: Int64) {
    writeVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
  }

  mutating func writeUInt64BigEndian(_ value: UInt64) {
    withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
  }

  mutating func writeUInt32BigEndian(_ value: UInt32) {
    withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
  }

  mutating func writeString(_ string: String) {
    var string = string
    string.withUTF8 { utf8 in
      writeVarint(utf8.count)
      bytes.append(contentsOf: utf8)
    }
  }
}
