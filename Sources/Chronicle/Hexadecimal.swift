/// Bytes as lower-case hex digits and back: how key files and the CLI spell
/// keys.
extension Array where Element == UInt8 {
  /// The bytes that `hex` spells, two digits each; nil when it has an odd
  /// length or a character that is not a hex digit.
  package init?(hexadecimal hex: String) {
    let digits = Array(hex.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(digits.count / 2)
    for index in stride(from: 0, to: digits.count, by: 2) {
      guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
      bytes.append(byte)
    }
    self = bytes
  }
}

extension Sequence where Element == UInt8 {
  /// The bytes as lower-case hex digits.
  package var hexadecimal: String { map { String(format: "%02x", $0) }.joined() }
}
