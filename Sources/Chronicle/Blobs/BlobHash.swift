import Foundation
import Crypto

/// The SHA-256 of a blob's bytes: the name under which content-addressed
/// content (file chunks, attachments) is stored and exchanged between peers.
public struct BlobHash: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The 32 digest bytes.
  public let bytes: [UInt8]

  /// The hash with these 32 bytes, or `nil` for any other length.
  public init?(bytes: [UInt8]) {
    guard bytes.count == 32 else { return nil }
    self.bytes = bytes
  }

  /// Parses 64 hexadecimal digits (either case); `nil` for anything else.
  public init?(hex: String) {
    let digits = Array(hex.utf8)
    guard digits.count == 64 else { return nil }
    var bytes = [UInt8]()
    bytes.reserveCapacity(32)
    for index in stride(from: 0, to: 64, by: 2) {
      guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
      bytes.append(high << 4 | low)
    }
    self.bytes = bytes
  }

  /// The hash of `content`.
  public init(of content: some DataProtocol) {
    bytes = Array(SHA256.hash(data: content))
  }

  /// The hash as 64 lowercase hexadecimal digits.
  public var hex: String {
    let digits = Array("0123456789abcdef".utf8)
    var text = [UInt8]()
    text.reserveCapacity(64)
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  public var description: String { hex }

  public static func < (lhs: BlobHash, rhs: BlobHash) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

  private static func nibble(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
