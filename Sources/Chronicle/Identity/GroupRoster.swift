import Foundation

/// A group's member list kept in memory from its membership events, for a
/// relay, which stores a group's events without reading them and must still
/// know which devices belong. The rules are a database's own
/// (``MembershipHistory``): the relay and every device resolve the same
/// events to the same member list.
package struct GroupRoster: Sendable {
  package private(set) var history: MembershipHistory
  package private(set) var state: GroupState

  package init(group: UUID) {
    history = MembershipHistory(group: group)
    state = GroupState(group: group)
  }

  package var group: UUID { history.group }
  /// Whether the group's creation is known.
  package var isCreated: Bool { state.isCreated }
  package var members: [PeerID: GroupMember] { state.members }

  /// Adds `events` (verified, any order, duplicates ignored) and resolves
  /// the member list again; returns those it kept. It keeps the group's
  /// creations, the events of its members (whatever their role or state:
  /// those of a revoked member still tell which of its changes stand) and
  /// those still waiting for the history they build on, and join requests
  /// with an invitation a member signed; it leaves out a stranger's events
  /// and another group's.
  @discardableResult
  package mutating func add(_ events: [MembershipEvent]) -> [MembershipEvent] {
    var trial = history
    var new: [MembershipEvent] = []
    for event in events where event.otherGroup(than: group) == nil && trial.insert(event) { new.append(event) }
    guard !new.isEmpty else { return [] }
    let resolved = trial.resolve()
    let kept = new.filter { event in
      if let invitation = event.joinRequest {
        return resolved.members[invitation.inviter]?.publicKey == invitation.inviterKey
      }
      if case .createGroup = event.changes.first { return resolved.founder == event.origin }
      // A change whose history is all known names its writer's admission
      // among its ancestors (a device builds on what it applied, its own
      // admission included): a writer that is no member then is a stranger.
      // One still waiting for its history may be a member's.
      return resolved.members[event.origin] != nil || resolved.waiting.contains(event.hash)
    }
    guard !kept.isEmpty else { return [] }
    for event in kept { history.insert(event) }
    state = kept.count == new.count ? resolved : history.resolve()
    return kept
  }

  /// Why `device`, proving it holds `publicKey`, may not use the group; nil when it may.
  package func refusal(of device: PeerID, publicKey: [UInt8]) -> String? {
    state.refusal(ofDevice: device, publicKey: publicKey)
  }

  /// Whether members may see `origin`'s event at `sequence`: not one its
  /// origin wrote after being revoked (every member refuses those, so
  /// passing one on would stall them).
  package func admits(_ origin: PeerID, sequence: UInt64) -> Bool {
    guard let after = state.members[origin]?.revokedAfterSequence else { return true }
    return sequence <= after
  }
}
