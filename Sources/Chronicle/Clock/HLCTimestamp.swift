import Foundation

/// A hybrid logical clock reading: milliseconds of physical time in the high
/// 48 bits and a logical counter in the low 16 bits, so that readings compare
/// as plain integers.
public struct HLCTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The packed 64-bit value, as stored and encoded.
  public let rawValue: UInt64

  public init(rawValue: UInt64) { self.rawValue = rawValue }

  public init(milliseconds: UInt64, counter: UInt16) {
    precondition(milliseconds < 1 << 48, "milliseconds beyond 48 bits")
    rawValue = milliseconds << 16 | UInt64(counter)
  }

  /// Physical component, in milliseconds since 1970.
  public var milliseconds: UInt64 { rawValue >> 16 }
  /// Logical component.
  public var counter: UInt16 { UInt16(truncatingIfNeeded: rawValue) }

  public static let zero = HLCTimestamp(rawValue: 0)

  public static func < (lhs: HLCTimestamp, rhs: HLCTimestamp) -> Bool { lhs.rawValue < rhs.rawValue }

  /// The physical component as a date.
  public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

  /// ISO 8601 time with milliseconds, then the counter: `2026-11-21T10:00:00.123Z+0`.
  public var description: String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: date) + "+\(counter)"
  }
}
