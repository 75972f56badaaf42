import Foundation

/// A group's member list resolved from its membership events
/// (``MembershipHistory/resolve()``): the same on every device and at the
/// relay for the same set of events, whatever order they arrived in.
package struct GroupState: Sendable {
  /// A device's request to join that an admin may admit: signed by the
  /// device, with an invitation an active admin signed, not used, not
  /// withdrawn (whether it has expired is for the admitting device's clock).
  package struct JoinRequest: Sendable, Equatable {
    package var device: PeerID
    package var publicKey: [UInt8]
    package var invitation: Invitation
    package var event: MembershipHash
  }

  package let group: UUID
  /// The founder and the clock of the group's creation; nil while the
  /// creation is not known.
  package var founder: PeerID?
  package var createdAt: HLCTimestamp?
  package var members: [PeerID: GroupMember] = [:]
  /// Invitations an admin admitted a device with, and by whom.
  package var usedInvitations: [UUID: PeerID] = [:]
  package var withdrawnInvitations: Set<UUID> = []
  /// The events applied, in the order they were.
  package var applied: [MembershipHash] = []
  /// Events that change nothing, with why (not an admin, revoked, revoked
  /// concurrently, another group, an invitation used already, ...).
  package var refused: [MembershipHash: String] = [:]
  /// Events that wait for events they build on (or for the group's creation).
  package var waiting: Set<MembershipHash> = []
  /// The events no other event builds on: what the next one names.
  package var heads: [MembershipHash] = []
  package var joinRequests: [JoinRequest] = []
  /// The group's content-key epochs, in the order they started (the hashes
  /// of the events that started them): the last is the current one, which
  /// new data is sealed with.
  package var epochs: [MembershipHash] = []
  /// Each epoch's key as sealed to each device an admin granted it to
  /// (revoked devices included: what they were once given).
  package var grants: [MembershipHash: [PeerID: HeldGrant]] = [:]

  /// A grant as a change carried it: what opening it takes.
  package struct HeldGrant: Sendable {
    package var grant: KeyGrant
    package var index: Int
    package var ephemeral: [UInt8]
  }

  package init(group: UUID) { self.group = group }

  /// The current key epoch; nil before the group's first.
  package var currentEpoch: MembershipHash? { epochs.last }

  /// Grants carried by changes that were not applied (void or refused) but
  /// signed by a member with the key it was added with: what data sealed
  /// while such a change looked valid to its sealer was sealed with. They
  /// open data (whose authenticity its signature proves), and never decide
  /// the epoch new data is sealed with.
  package var unappliedGrants: [MembershipHash: [PeerID: HeldGrant]] = [:]

  /// Whether `epoch`'s key was granted to a device that is no active member
  /// now (revoked, or added by a change that turned out void).
  package func isExposed(_ epoch: MembershipHash) -> Bool {
    unappliedExposures.contains(epoch) || grants[epoch, default: [:]].keys.contains { members[$0]?.isActive != true }
  }

  /// Epochs an active admin granted, in a change that was not applied (an
  /// admission refused because another admin used the invitation first),
  /// to a device that is no active member.
  package var unappliedExposures: Set<MembershipHash> = []

  /// For each reader demoted with a cut-off, the change that set it: a
  /// concurrent demotion (one that had not seen it) may raise it.
  var cutOffDemotions: [PeerID: MembershipHash] = [:]

  /// Whether the current epoch's key was granted to a device that is revoked
  /// now (two admins that revoked two devices concurrently each granted
  /// their new key to the device the other revoked): then a new epoch is due.
  package var isCurrentEpochExposed: Bool { currentEpoch.map(isExposed) ?? false }

  /// Active members with a key that hold no grant of the current epoch (one
  /// added concurrently with the change that started it).
  package var membersLackingCurrentKey: [GroupMember] {
    guard let epoch = currentEpoch else { return [] }
    let granted = grants[epoch, default: [:]]
    return members.values.filter { $0.isActive && $0.publicKey != nil && granted[$0.device] == nil }.sorted { $0.device < $1.device }
  }

  /// Whether the group's creation is known.
  package var isCreated: Bool { founder != nil }

  /// Members that are active admins with a known key (those that can sign a change).
  package var activeAdmins: [PeerID] { members.values.filter { $0.isActiveAdmin && $0.publicKey != nil }.map(\.device).sorted() }

  /// Why an event of `origin` at `sequence` is refused (`writes`: it carries
  /// row changes; a reader's schema changes, which every device's own
  /// migrations write, are taken, and so are the writes a reader made
  /// while it was a writer); nil when it is admitted.
  package func refusal(ofEventFrom origin: PeerID, sequence: UInt64, writes: Bool) -> String? {
    guard let member = members[origin] else { return "device \(origin) is not a member of this group" }
    if let by = member.revokedBy, let after = member.revokedAfterSequence, sequence > after {
      return "device \(origin) was revoked by \(by.shortDescription): its events after :\(after) are refused"
    }
    if writes, !member.mayWrite(at: sequence) {
      let since = member.demotedAfterSequence.map { " after :\($0), when it was made one," } ?? ""
      return "device \(origin) is a reader of this group: its writes\(since) are refused (an admin can make it a writer: chronicle role)"
    }
    return nil
  }

  /// Why `device`, proving it holds `publicKey`, may not sync with the
  /// group's members; nil when it may.
  package func refusal(ofDevice device: PeerID, publicKey: [UInt8]) -> String? {
    if device.isKeyDerived, PeerID(publicKey: publicKey) != device {
      return "its key is not the one its peer id \(device) is derived from"
    }
    guard isCreated else {
      return "group \(group.uuidString.lowercased())'s creation is not known here yet: a member must sync first (its events say who belongs)"
    }
    guard let member = members[device] else {
      if joinRequests.contains(where: { $0.device == device }) {
        return "device \(device) asked to join group \(group.uuidString.lowercased()); an admin's device admits it when it next syncs"
      }
      return "device \(device) is not a member of group \(group.uuidString.lowercased()): join with an invitation (chronicle join), then sync"
    }
    guard member.publicKey == publicKey else {
      return member.publicKey == nil
        ? "device \(device) is a member from before device keys; an admin must add its key (chronicle invite --device) first"
        : "its key is not the one member \(device) was added with"
    }
    if let by = member.revokedBy { return "device \(device) was revoked from this group by \(by.shortDescription)" }
    return nil
  }
}
