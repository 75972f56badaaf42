// What each membership change does to a group's member list, and who may
// make it: the rules one pass of MembershipHistory applies event by event.
import Foundation

/// Why a change is not applied.
struct MembershipRefusal: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

extension MembershipChange {
  var isCreation: Bool { if case .createGroup = self { true } else { false } }
  var isOlder: Bool { if case .older = self { true } else { false } }
}

extension MembershipEvent {
  /// Whether it revokes `device` or takes its admin role away.
  func actsAgainst(_ device: PeerID) -> Bool {
    changes.contains { change in
      switch change {
      case .revoke(let target, _, _): target == device
      case .changeRole(let target, let role, _, _): target == device && role != .admin
      default: false
      }
    }
  }

  /// Revocations first, then role changes, then the rest, among events of one depth.
  var orderClass: Int {
    if changes.contains(where: { if case .revoke = $0 { true } else { false } }) { return 0 }
    if changes.contains(where: { if case .changeRole = $0 { true } else { false } }) { return 1 }
    return 2
  }
}

extension GroupState {
  /// The list a creation starts: its writer the founder, the founding
  /// members admins beside it.
  mutating func apply(creation: MembershipEvent) {
    guard case .createGroup(_, _, let founders) = creation.changes[0] else { return }
    founder = creation.origin
    createdAt = creation.timestamp
    members[creation.origin] = GroupMember(
      device: creation.origin, publicKey: creation.signer, role: .admin, addedBy: nil, addedAt: creation.timestamp, admission: .founder)
    for member in founders where member.device != creation.origin && members[member.device] == nil {
      members[member.device] = GroupMember(
        device: member.device, publicKey: member.publicKey, role: .admin, addedBy: creation.origin, addedAt: creation.timestamp,
        admission: .founding)
    }
  }

  /// Applies every change of `event`, or none (throwing why). The cut-off
  /// floors of its revocations are asked for once its writer is found
  /// entitled to change the list (they read the event's whole history).
  /// `builtOn`: the membership events it builds on, directly or not, when
  /// it demotes with a cut-off (empty otherwise).
  mutating func apply(
    _ event: MembershipEvent, builtOn: Set<MembershipHash>, cutOffFloors: () -> [PeerID: HistoryCheckpoint]
  ) throws(MembershipRefusal) {
    let writer = event.origin
    guard let member = members[writer] else { throw MembershipRefusal("its writer \(writer) is not a member of this group") }
    if let by = member.revokedBy { throw MembershipRefusal("its writer \(writer) was revoked by \(by.shortDescription)") }
    guard member.role == .admin else {
      throw MembershipRefusal("its writer \(writer) is a \(member.role), and only admins change the member list")
    }
    guard member.publicKey == event.signer else {
      throw MembershipRefusal("it is signed with another key than the one its writer \(writer) was added with")
    }
    let floors = event.changes.contains { if case .revoke = $0 { true } else { false } } ? cutOffFloors() : [:]
    // A cut-off raised to a membership event the writer built on is named
    // by that event's hash, which is its history digest.
    func floored(_ change: MembershipChange) -> MembershipChange {
      guard case .revoke(let device, let after, let checkpoints) = change, let floor = floors[device], floor.sequence > after else { return change }
      return .revoke(device: device, afterSequence: floor.sequence, checkpoints: checkpoints + [floor])
    }
    // A change checks everything before it changes anything: one change
    // applies in place; several apply to a copy, kept only when all apply.
    if event.changes.count == 1 {
      try apply(floored(event.changes[0]), by: writer, at: event.timestamp, in: event.hash, builtOn: builtOn)
      return
    }
    var trial = self
    for change in event.changes { try trial.apply(floored(change), by: writer, at: event.timestamp, in: event.hash, builtOn: builtOn) }
    self = trial
  }

  /// Whether `device` is the only active admin with a known key.
  private func isLastActiveAdmin(_ device: PeerID) -> Bool {
    !members.values.contains { $0.device != device && $0.isActiveAdmin && $0.publicKey != nil }
  }

  private mutating func apply(
    _ change: MembershipChange, by writer: PeerID, at timestamp: HLCTimestamp, in event: MembershipHash, builtOn: Set<MembershipHash>
  ) throws(MembershipRefusal) {
    switch change {
    case .add(let device, let publicKey, let role, let invitation):
      if device.isKeyDerived, PeerID(publicKey: publicKey) != device {
        throw MembershipRefusal("the key it adds is not the key device \(device) is derived from")
      }
      if let existing = members[device] {
        throw MembershipRefusal(existing.isActive ? "device \(device) is a member already" : "device \(device) was revoked, and is not added again")
      }
      if let invitation {
        if let by = usedInvitations[invitation] {
          throw MembershipRefusal("invitation \(invitation.uuidString.lowercased()) admitted a device already (\(by.shortDescription)); it admits one")
        }
        if withdrawnInvitations.contains(invitation) {
          throw MembershipRefusal("invitation \(invitation.uuidString.lowercased()) was withdrawn")
        }
        usedInvitations[invitation] = device
      }
      members[device] = GroupMember(
        device: device, publicKey: publicKey, role: role, addedBy: writer, addedAt: timestamp,
        admission: invitation == nil ? .added : .invitation, invitation: invitation)
    case .revoke(let device, let afterSequence, let checkpoints):
      guard var member = members[device] else { throw MembershipRefusal("device \(device) is not a member") }
      if member.isActiveAdmin, isLastActiveAdmin(device) {
        throw MembershipRefusal("device \(device) is the group's last admin, and the last admin is not revoked")
      }
      member.revokedBy = member.revokedBy ?? writer
      member.revokedAt = member.revokedAt ?? timestamp
      // The checkpoints of the revocation that sets the cut-off prove the
      // events up to it (those past it are refused anyway).
      let named = checkpoints.filter { $0.sequence <= afterSequence }
      if afterSequence < member.revokedAfterSequence ?? .max || (afterSequence == member.revokedAfterSequence && member.revokedCheckpoints.isEmpty) {
        member.revokedCheckpoints = named
      }
      member.revokedAfterSequence = min(afterSequence, member.revokedAfterSequence ?? .max)
      members[device] = member
    case .changeRole(let device, let role, let afterSequence, let checkpoints):
      guard var member = members[device], member.isActive else { throw MembershipRefusal("device \(device) is not an active member") }
      if member.role == .admin, role != .admin, isLastActiveAdmin(device) {
        throw MembershipRefusal("device \(device) is the group's last admin, and the last admin keeps its role")
      }
      if role.writes {
        member.demotedAfterSequence = nil
        member.demotedCheckpoints = []
        cutOffDemotions[device] = nil
      } else if let afterSequence {
        // Its writes up to what the demoting admin had were made while it
        // could write. Two admins that demoted it concurrently each had
        // some of them: the one that had more decides, so that neither's
        // writes are refused elsewhere. A reader's cut-off moves for no
        // other change (one made after, by an admin that saw it a reader,
        // names nothing it could write).
        let concurrent = cutOffDemotions[device].map { $0 != event && !builtOn.contains($0) } ?? false
        if member.role.writes || (concurrent && afterSequence > member.demotedAfterSequence ?? 0) {
          member.demotedAfterSequence = afterSequence
          member.demotedCheckpoints = checkpoints.filter { $0.sequence <= afterSequence }
          cutOffDemotions[device] = event
        }
      }
      member.role = role
      members[device] = member
    case .withdrawInvitation(let id):
      if let device = usedInvitations[id] {
        throw MembershipRefusal("invitation \(id.uuidString.lowercased()) admitted \(device.shortDescription) already")
      }
      withdrawnInvitations.insert(id)
    case .shareKeys(let ephemeral, let grants):
      try share(grants, ephemeral: ephemeral, in: event)
    case .createGroup:
      throw MembershipRefusal("the group was created already")
    case .join, .builtOn, .older:
      throw MembershipRefusal("\(change) is not a change of an admin")
    }
  }

  /// Records the grants of a ``MembershipChange/shareKeys(ephemeral:grants:)``:
  /// one naming no epoch starts the one `event` names. A grant never refuses
  /// the change that carries it (a revocation beside it must hold whatever
  /// became of the devices and epochs it names): one to a device that is no
  /// member (its addition turned out void) or revoked meanwhile is kept, so
  /// that the epoch counts as exposed; one of an epoch no applied change
  /// started is kept too, and opens what was sealed with it, no more.
  private mutating func share(_ shared: [KeyGrant], ephemeral: [UInt8], in event: MembershipHash) throws(MembershipRefusal) {
    guard !shared.isEmpty, ephemeral.count == 32 else { throw MembershipRefusal("it shares no key") }
    var started = false
    for (index, grant) in shared.enumerated() {
      let epoch = grant.epoch ?? event
      if grant.epoch == nil { started = true }
      if grants[epoch, default: [:]][grant.device] == nil {
        grants[epoch, default: [:]][grant.device] = HeldGrant(grant: grant, index: index, ephemeral: ephemeral)
      }
    }
    if started { epochs.append(event) }
  }

  /// Keeps the grants of changes not applied whose writer is a member with
  /// the key that signed them (see ``unappliedGrants``).
  mutating func collectUnappliedGrants(from events: some Sequence<MembershipEvent>, applied: Set<MembershipHash>) {
    for event in events where !applied.contains(event.hash) {
      guard let writer = members[event.origin], writer.publicKey == event.signer else { continue }
      for case .shareKeys(let ephemeral, let shared) in event.changes {
        if writer.isActiveAdmin {
          for grant in shared where members[grant.device]?.isActive != true { unappliedExposures.insert(grant.epoch ?? event.hash) }
        }
        for (index, grant) in shared.enumerated() where unappliedGrants[grant.epoch ?? event.hash, default: [:]][grant.device] == nil {
          unappliedGrants[grant.epoch ?? event.hash, default: [:]][grant.device] = HeldGrant(grant: grant, index: index, ephemeral: ephemeral)
        }
      }
    }
  }

  /// A request an admin may admit: with a sound invitation into this group
  /// that an active admin signed, not used or withdrawn, from a device that
  /// is not a member (nor was).
  func pendingRequest(_ event: MembershipEvent) -> JoinRequest? {
    guard event.origin.isKeyDerived, let invitation = event.joinRequest, invitation.group == group, invitation.signatureProblem == nil,
          members[event.origin] == nil, usedInvitations[invitation.id] == nil, !withdrawnInvitations.contains(invitation.id),
          let inviter = members[invitation.inviter], inviter.isActiveAdmin, inviter.publicKey == invitation.inviterKey
    else { return nil }
    return JoinRequest(device: event.origin, publicKey: event.signer, invitation: invitation, event: event.hash)
  }
}
