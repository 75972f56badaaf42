import Chronicle
import Foundation

/// A group's member list as a relay knows it: rebuilt from the membership
/// events its store holds (verified when they were stored).
enum RelayMembers {
  static func load(_ group: UUID, from store: any RelayStore) async throws -> GroupRoster {
    var roster = GroupRoster(group: group)
    var refused: [(event: MembershipEvent, reason: String)] = []
    roster.apply(try await store.membershipEvents(of: group).compactMap { try? MembershipEvent(stored: $0) }, refused: &refused)
    return roster
  }
}

extension GroupRoster {
  /// Whether a device may see `event`: not one its origin wrote after being
  /// revoked (every member refuses those, so passing one on would stall them).
  func admits(_ origin: PeerID, sequence: UInt64) -> Bool {
    guard let after = members[origin]?.revokedAfterSequence else { return true }
    return sequence <= after
  }
}
