import Chronicle
import ChronicleNetwork
import Foundation
import Logging

/// Where a relay keeps its groups' sealed events and member lists: one
/// SQLite file (``SQLiteRelayStore``) by default, PostgreSQL to share one
/// store between several relay processes.
package protocol RelayStore: Sendable {
  /// The membership events stored for `group` (signed, verified when stored).
  func membershipEvents(of group: UUID) async throws -> [[UInt8]]
  /// Stores membership events the relay verified and applied.
  func addMembershipEvents(_ events: [MembershipEvent], to group: UUID) async throws
  /// The last sequence stored of each device of `group`.
  func vector(of group: UUID) async throws -> VersionVector
  /// Stores the next events of `origin` in `group`, all or none.
  ///
  /// Events the store holds already are skipped; the rest must continue the
  /// origin's sequence without a gap, and fit in the group's `quota`.
  /// - Throws: ``RelayStoreRefusal`` when they do not (nothing is stored).
  func append(_ events: [SealedEvent], origin: PeerID, to group: UUID, quota: GroupQuota) async throws -> AppendOutcome
  /// The position of the group's last stored event (0 when none).
  func lastPosition(of group: UUID) async throws -> Int64
  /// The position just before the first event of `group` that `vector`
  /// lacks; nil when it lacks none.
  func position(before vector: VersionVector, in group: UUID) async throws -> Int64?
  /// The group's events after `position` (through `last`, when given), in
  /// position order: at most `limit`, stopping at the first that reaches
  /// `maxBytes`.
  func events(of group: UUID, after position: Int64, through last: Int64?, limit: Int, maxBytes: Int) async throws -> [PositionedEvent]
  /// What `group` stores.
  func usage(of group: UUID) async throws -> (events: Int, bytes: Int)
  /// The routes stored with `origin`'s sealed data events `from`...`through`
  /// in `group` (at most `limit`), their epochs read from the sealed form.
  func routes(of origin: PeerID, from: UInt64, through: UInt64, in group: UUID, limit: Int) async throws -> [StoredEventRoute]
  /// Calls `onChange` each time events or membership events are stored in a
  /// group, through this process or (for a shared store) another, until
  /// `close()`.
  func observeChanges(_ onChange: @escaping @Sendable (StoreChange) -> Void) async throws
  /// Records a group creation token (its SHA-256) good for `groups` groups.
  func addCreationToken(hash: [UInt8], groups: Int) async throws
  /// Takes one group from the token whose SHA-256 is `hash`; false when no
  /// such token is stored or it has none left. Atomic across relay processes.
  func spendCreationToken(hash: [UInt8]) async throws -> Bool
  func close() async throws
}

/// What a store reports to the relay processes that use it.
package enum StoreChange: Sendable, Equatable {
  /// Events were stored in the group.
  case appended(UUID)
  /// The group's member list changed.
  case membership(UUID)
  /// Anything may have changed unseen (the store's notifications were interrupted).
  case unknown
}

/// The most one group may store; nil: no limit.
package struct GroupQuota: Sendable, Equatable {
  package var bytes: Int?
  package var events: Int?

  package init(bytes: Int?, events: Int?) {
    self.bytes = bytes
    self.events = events
  }

  package static let none = GroupQuota(bytes: nil, events: nil)
}

/// An event with its place in the store's order.
package struct PositionedEvent: Sendable {
  package var position: Int64
  package var event: SealedEvent
}

/// What ``RelayStore/append(_:origin:to:quota:)`` did.
package struct AppendOutcome: Sendable, Equatable {
  /// The origin's last stored sequence after the append.
  package var upTo: UInt64
  /// How many events were new.
  package var new: Int
  package var newBytes: Int
}

/// What every store checks before an append: which events are new, that
/// they continue the origin's sequence, and that they fit the group's quota.
struct AppendPlan {
  /// The events the store does not hold yet, in order.
  let fresh: [SealedEvent]
  /// Their sealed bytes, in all.
  let adding: Int

  /// - Parameters:
  ///   - have: the origin's last stored sequence.
  ///   - used: what the group stores.
  init(_ events: [SealedEvent], origin: PeerID, have: UInt64, used: (events: Int, bytes: Int), quota: GroupQuota) throws(RelayStoreRefusal) {
    fresh = events.filter { $0.sequence > have }
    var expected = have + 1
    for event in fresh {
      guard event.sequence == expected else { throw .gap(origin: origin, expected: expected, got: event.sequence) }
      expected += 1
    }
    adding = fresh.reduce(0) { $0 + $1.sealed.count }
    guard !fresh.isEmpty else { return }
    if let quota = quota.bytes, used.bytes + adding > quota { throw .quotaExceeded(used: used.bytes, adding: adding, quota: quota) }
    if let quota = quota.events, used.events + fresh.count > quota {
      throw .eventQuotaExceeded(used: used.events, adding: fresh.count, quota: quota)
    }
  }
}

/// Why a store refused an append; nothing of it was stored.
package enum RelayStoreRefusal: Error, Equatable, CustomStringConvertible {
  case gap(origin: PeerID, expected: UInt64, got: UInt64)
  case quotaExceeded(used: Int, adding: Int, quota: Int)
  case eventQuotaExceeded(used: Int, adding: Int, quota: Int)

  package var description: String {
    switch self {
    case .gap(let origin, let expected, let got):
      "device \(origin)'s events must arrive in order: the relay holds them up to :\(expected - 1) and got :\(got)"
    case .quotaExceeded(let used, let adding, let quota):
      "the group's storage quota is full: it stores \(used) bytes, these events add \(adding), and the quota is \(quota) (ask the relay's operator to raise --group-quota)"
    case .eventQuotaExceeded(let used, let adding, let quota):
      "the group's event quota is full: it stores \(used) events, this push adds \(adding), and the quota is \(quota) (ask the relay's operator to raise --group-event-quota)"
    }
  }
}

extension RelayServerConfiguration.Storage {
  /// Opens the store this names (creating its tables when missing).
  func open(logger: Logger) async throws -> any RelayStore {
    switch self {
    case .sqlite(let path): try SQLiteRelayStore(path: path)
    case .postgres(let url): try await PostgresRelayStore(url: url, logger: logger)
    }
  }
}
