import GRDB

/// A read of several values in one transaction, for ``Fetch``: a consistent
/// snapshot of everything a screen or a report needs.
///
/// ```swift
/// struct PlayersRequest: FetchKeyRequest {
///   struct Value: Sendable {
///     var injuredCount = 0
///     var players: [Player] = []
///   }
///   func fetch(_ db: Database) throws -> Value {
///     try Value(
///       injuredCount: Player.where(\.isInjured).count().fetchOne(db) ?? 0,
///       players: Player.where { !$0.isInjured }.order(by: \.name).fetchAll(db))
///   }
/// }
/// ```
///
/// Every table `fetch` reads is observed: a write to any of them fetches
/// the whole value again.
public protocol FetchKeyRequest<Value>: Sendable {
  /// What ``fetch(_:)`` returns.
  associatedtype Value: Sendable
  /// Reads the value. Runs in a read transaction; it must not write.
  func fetch(_ db: Database) throws -> Value
}
