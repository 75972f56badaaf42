import Foundation
import GRDB

/// The order of two texts, as a collating sequence written in Swift
/// (`@DatabaseCollation`) gives it.
public enum CollationOrder: Hashable, Sendable {
  /// The first text sorts before the second.
  case ascending
  /// The two texts sort the same.
  case same
  /// The first text sorts after the second.
  case descending

  /// The order of two comparable values: `CollationOrder(rhs, lhs)` reverses one.
  public init<T: Comparable>(_ lhs: T, _ rhs: T) {
    self = lhs < rhs ? .ascending : rhs < lhs ? .descending : .same
  }

  /// The order a Foundation comparison gives
  /// (`CollationOrder(lhs.localizedCaseInsensitiveCompare(rhs))`).
  public init(_ comparisonResult: ComparisonResult) {
    switch comparisonResult {
    case .orderedAscending: self = .ascending
    case .orderedDescending: self = .descending
    case .orderedSame: self = .same
    }
  }

  var comparisonResult: ComparisonResult {
    switch self {
    case .ascending: .orderedAscending
    case .same: .orderedSame
    case .descending: .orderedDescending
    }
  }
}

/// A collation registered with GRDB (`db.add(collation:)`) is a collating
/// sequence queries can name: `$0.title.collate($reversed)` for one that
/// `@DatabaseCollation` generated.
extension DatabaseCollation: Collation {}

/// The collation `@DatabaseCollation` generates as `$name`: `compare`
/// orders two texts, and SQLite calls it for every comparison.
public func _databaseCollation(
  _ name: String, _ compare: @escaping @Sendable (String, String) -> CollationOrder
) -> DatabaseCollation {
  DatabaseCollation(name) { lhs, rhs in compare(lhs, rhs).comparisonResult }
}

/// The collation `@DatabaseCollation` generates as `$name` for an instance
/// method: `compare` is called with `owner`, the instance it was read from.
///
/// SQLite calls a collating sequence on the thread that runs the statement,
/// as it does a `@DatabaseCollation` global function; the instance is held
/// for as long as a connection has the collation registered.
public func _databaseCollation<Owner>(
  _ name: String, owner: Owner, _ compare: @escaping @Sendable (Owner, String, String) -> CollationOrder
) -> DatabaseCollation {
  let held = CollationOwner(owner)
  return DatabaseCollation(name) { lhs, rhs in compare(held.owner, lhs, rhs).comparisonResult }
}

/// The instance a collation made from an instance method calls it on.
private final class CollationOwner<Owner>: @unchecked Sendable {
  // Unchecked: SQLite calls the collation synchronously from whichever
  // connection runs the statement; the method is the app's, and must be
  // safe to call from there, as a global collating function must be.
  let owner: Owner
  init(_ owner: Owner) { self.owner = owner }
}
