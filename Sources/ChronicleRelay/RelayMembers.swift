import Chronicle
import Foundation

/// A group's member list as a relay knows it: rebuilt from the membership
/// events its store holds (verified when they were stored).
enum RelayMembers {
  static func load(_ group: UUID, from store: any RelayStore) async throws -> GroupRoster {
    var roster = GroupRoster(group: group)
    roster.add(try await store.membershipEvents(of: group).compactMap { try? MembershipEvent(stored: $0) })
    return roster
  }
}
