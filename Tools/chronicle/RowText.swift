import Chronicle
import Foundation

/// Readable and JSON forms of rows and values, shared by the replay tools.
enum RowText {
  /// `[id=7 b='x']`
  static func key(_ key: [NamedValue]) -> String {
    "[" + key.map(\.description).joined(separator: " ") + "]"
  }

  /// `title='Milk' notes=NULL`
  static func values(_ values: [NamedValue]) -> String {
    values.map(\.description).joined(separator: " ")
  }

  /// `'two' → 'TWO'`, with ∅ for an absent side.
  static func change(_ change: ColumnChange) -> String {
    "\(change.column): \(change.before?.description ?? "∅") → \(change.after?.description ?? "∅")"
  }

  static func json(_ values: [NamedValue]) -> [String: Any] {
    Dictionary(values.map { ($0.column, EventDescription.jsonValue($0.value)) }, uniquingKeysWith: { first, _ in first })
  }

  static func json(_ change: ColumnChange) -> [String: Any] {
    ["from": change.before.map(EventDescription.jsonValue) ?? NSNull(), "to": change.after.map(EventDescription.jsonValue) ?? NSNull()]
  }

  static func json(_ digest: TableDigest) -> [String: Any] {
    ["table": digest.table, "rows": digest.rowCount, "digest": digest.hash]
  }
}
