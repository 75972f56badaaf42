import Foundation

/// One SQLite value, exactly as SQLite stores it: the five storage classes.
///
/// Chronicle never converts between storage classes: an INTEGER stays an INTEGER
/// and a TEXT stays a TEXT, so that a replay reproduces the projection bit for bit.
///
/// NaN policy: SQLite stores a NaN REAL as NULL, so a value read from SQLite is
/// never NaN. The event encoder refuses NaN and the decoder rejects it as corrupt.
public enum SQLiteValue: Sendable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob(Data)
}

extension SQLiteValue: Hashable {
  /// Values are equal when they have the same storage class and the same bits:
  /// `-0.0` and `0.0` differ, as they do on disk.
  public static func == (lhs: SQLiteValue, rhs: SQLiteValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): true
    case let (.integer(a), .integer(b)): a == b
    case let (.real(a), .real(b)): a.bitPattern == b.bitPattern
    case let (.text(a), .text(b)): a == b
    case let (.blob(a), .blob(b)): a == b
    default: false
    }
  }

  public func hash(into hasher: inout Hasher) {
    switch self {
    case .null: hasher.combine(0 as UInt8)
    case .integer(let value): hasher.combine(1 as UInt8); hasher.combine(value)
    case .real(let value): hasher.combine(2 as UInt8); hasher.combine(value.bitPattern)
    case .text(let value): hasher.combine(3 as UInt8); hasher.combine(value)
    case .blob(let value): hasher.combine(4 as UInt8); hasher.combine(value)
    }
  }
}

extension SQLiteValue: CustomStringConvertible {
  /// The value as SQL that gives it back exactly, as `quote()` would print it;
  /// TEXT holding NUL bytes (which `quote()` cuts) is spelled with `char(0)`:
  /// `'a' || char(0) || 'b'`.
  public var description: String {
    switch self {
    case .null: return "NULL"
    case .integer(let value): return String(value)
    case .real(let value): return "\(value)"
    case .text(let value):
      func quoted(_ part: Substring) -> String { "'" + part.replacingOccurrences(of: "'", with: "''") + "'" }
      guard value.utf8.contains(0) else { return quoted(value[...]) }
      let parts = value.split(separator: "\0", omittingEmptySubsequences: false)
      var pieces: [String] = []
      for (index, part) in parts.enumerated() {
        if index > 0 { pieces.append("char(0)") }
        if !part.isEmpty { pieces.append(quoted(part)) }
      }
      return pieces.joined(separator: " || ")
    case .blob(let value): return "X'" + value.map { String(format: "%02X", $0) }.joined() + "'"
    }
  }
}
