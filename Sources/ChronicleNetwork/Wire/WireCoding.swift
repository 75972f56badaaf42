/// Appends the fields of a message: bytes, big-endian integers, varints
/// (unsigned LEB128) and length-prefixed byte strings.
package struct WireWriter {
  private(set) var bytes: [UInt8] = []

  mutating func byte(_ value: UInt8) { bytes.append(value) }

  mutating func raw(_ value: some Sequence<UInt8>) { bytes.append(contentsOf: value) }

  mutating func varint(_ value: Int) {
    var rest = UInt64(value)
    while rest >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
      rest >>= 7
    }
    bytes.append(UInt8(rest))
  }

  mutating func data(_ value: some Collection<UInt8>) {
    varint(value.count)
    raw(value)
  }
}

/// Reads what ``WireWriter`` wrote; every read checks the bounds and throws
/// ``WireReader/Malformed`` with the problem instead of trapping.
package struct WireReader {
  package struct Malformed: Error, CustomStringConvertible {
    package var description: String
  }

  private let bytes: [UInt8]
  private(set) var offset = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  var isAtEnd: Bool { offset == bytes.count }
  var remaining: Int { bytes.count - offset }

  mutating func byte() throws(Malformed) -> UInt8 {
    guard offset < bytes.count else { throw Malformed(description: "truncated at byte \(offset)") }
    defer { offset += 1 }
    return bytes[offset]
  }

  mutating func raw(_ count: Int) throws(Malformed) -> [UInt8] {
    guard count >= 0, count <= remaining else { throw Malformed(description: "\(count) bytes expected at byte \(offset), \(remaining) left") }
    defer { offset += count }
    return Array(bytes[offset..<offset + count])
  }

  mutating func varint() throws(Malformed) -> Int {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      let next = try byte()
      guard shift < 63 || (shift == 63 && next <= 1) else { throw Malformed(description: "varint too long at byte \(offset)") }
      value |= UInt64(next & 0x7F) << shift
      if next & 0x80 == 0 { break }
      shift += 7
    }
    guard value <= UInt64(Int.max) else { throw Malformed(description: "varint out of range at byte \(offset)") }
    return Int(value)
  }

  mutating func data() throws(Malformed) -> [UInt8] { try raw(try varint()) }

  func expectEnd() throws(Malformed) {
    guard isAtEnd else { throw Malformed(description: "\(remaining) unexpected bytes at the end") }
  }
}
