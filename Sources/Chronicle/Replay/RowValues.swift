import GRDB

/// A value in a named column.
public struct NamedValue: Hashable, Sendable, CustomStringConvertible {
  public var column: String
  public var value: SQLiteValue

  public init(column: String, value: SQLiteValue) {
    self.column = column
    self.value = value
  }

  public var description: String { "\(column)=\(value)" }
}

/// A column whose value differs between two versions of a row; nil when the
/// row (or the column) is absent on that side.
public struct ColumnChange: Hashable, Sendable {
  public var column: String
  public var before: SQLiteValue?
  public var after: SQLiteValue?

  public init(column: String, before: SQLiteValue?, after: SQLiteValue?) {
    self.column = column
    self.before = before
    self.after = after
  }
}

/// What a row operation of an event does.
public enum RowOperationKind: String, Sendable, Hashable {
  case insert, update, delete
}

/// The columns whose values differ between `before` and `after` (in the
/// order of `after`, then columns only `before` has); the storage class counts.
func columnChanges(before: [NamedValue]?, after: [NamedValue]?) -> [ColumnChange] {
  let old = Dictionary((before ?? []).map { ($0.column, $0.value) }, uniquingKeysWith: { first, _ in first })
  var changes: [ColumnChange] = []
  var seen = Set<String>()
  for value in after ?? [] {
    seen.insert(value.column)
    if old[value.column] != value.value { changes.append(ColumnChange(column: value.column, before: old[value.column], after: value.value)) }
  }
  for value in before ?? [] where !seen.contains(value.column) {
    changes.append(ColumnChange(column: value.column, before: value.value, after: nil))
  }
  return changes
}
