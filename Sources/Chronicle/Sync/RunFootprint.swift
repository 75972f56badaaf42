import Foundation

/// What a run of received events did to its tables, for the foreign-key
/// check that ends it (``MergeApplier/settleForeignKeys()``): which rows it
/// wrote into tables that have foreign keys, and which tables lost rows.
///
/// Only those rows can have lost a parent: the rows the run did not touch
/// had theirs before it (local writes keep foreign keys), unless a table
/// they refer to lost rows. So the check reads what the run wrote, not
/// every row of every table with a foreign key.
struct RunFootprint {
  /// The rows written into one table.
  enum WrittenRows {
    /// Their keys, in the table's key order.
    case keys([[SQLiteValue]])
    /// More than ``RunFootprint/keyLimit``: the whole table is checked,
    /// which then costs little more than checking them one by one.
    case tooMany
  }

  /// Keys noted per table before the whole table is checked instead.
  static let keyLimit = 20_000

  /// Per table with foreign keys (lower-cased name), the rows written into it.
  var writtenRows: [String: WrittenRows] = [:]
  /// Tables (lower-cased names) that rows left: deleted, or taken out to
  /// wait for their insert or a parent.
  var tablesThatLostRows: Set<String> = []
}
