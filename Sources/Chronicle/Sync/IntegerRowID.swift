import Foundation

/// The row id under which `chronicle_integer_rows` stores the merge state of
/// a row whose key is one integer from 0 through 2^40 − 1 (an `INTEGER
/// PRIMARY KEY`'s row ids, mostly): the table's name number times 2^40
/// plus the key. Such a state is found by an integer, not by comparing
/// encoded keys in a `WITHOUT ROWID` tree, and a table's states lie in key
/// order, as they do in `chronicle_rows`. Every other state (other keys,
/// or a name number of 2^23 or more) stays in `chronicle_rows`.
struct IntegerRowID {
  let rawValue: Int64

  /// Name numbers from here on do not fit in a row id beside a key.
  static let tableLimit: Int64 = 1 << 23
  private static let keyBits: Int64 = 40

  init(rawValue: Int64) { self.rawValue = rawValue }

  /// The row id of `key` of the table numbered `table`; nil when the state
  /// belongs in `chronicle_rows`.
  init?(table: Int64, key: Data) {
    guard let integer = MergeStateKey.smallInteger(key) else { return nil }
    self.init(table: table, integer: integer)
  }

  /// The row id of integer key `integer` of the table numbered `table`; nil
  /// when the state belongs in `chronicle_rows`.
  init?(table: Int64, integer: Int64) {
    guard table >= 0, table < Self.tableLimit, integer >= 0, integer < MergeStateKey.smallIntegerLimit else { return nil }
    rawValue = table << Self.keyBits | integer
  }

  /// The table's name number.
  var table: Int64 { rawValue >> Self.keyBits }
  /// The row's key, as ``MergeStateKey`` encodes it.
  var key: Data { MergeStateKey.encode(rawValue & (MergeStateKey.smallIntegerLimit - 1)) }

  /// Every row id the table numbered `table` may have; nil when its states
  /// are all in `chronicle_rows`.
  static func range(ofTable table: Int64) -> ClosedRange<Int64>? {
    guard let first = IntegerRowID(table: table, integer: 0) else { return nil }
    return first.rawValue...(first.rawValue + MergeStateKey.smallIntegerLimit - 1)
  }

  /// The row ids of the table numbered `table` whose keys sort at or after
  /// `key`; nil when there are none.
  static func range(ofTable table: Int64, from key: Data) -> ClosedRange<Int64>? {
    guard let all = range(ofTable: table), let first = MergeStateKey.firstSmallInteger(notBefore: key) else { return nil }
    return (all.lowerBound + first)...all.upperBound
  }
}
