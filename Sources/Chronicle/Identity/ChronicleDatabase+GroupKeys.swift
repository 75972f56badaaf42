import Foundation
import GRDB

/// The group content keys a device holds: the keys of the epochs an admin
/// granted it, opened with its device key (they are kept sealed in the
/// group's membership events, never in the clear, so a copy of the database
/// without its key file holds none).
package struct GroupKeyring: Sendable {
  package let group: UUID
  /// The epoch this device seals new data with: the group's current one,
  /// when this device holds its key; nil when it holds none yet.
  package let sealingEpoch: MembershipHash?
  /// The group's current epoch, held here or not.
  package let currentEpoch: MembershipHash?
  /// Every key this device opens data with: its applied grants' and those
  /// of changes that turned out void or refused.
  package let keys: [MembershipHash: [UInt8]]
  /// The keys of its applied grants only: what it seals with and shares.
  let appliedKeys: [MembershipHash: [UInt8]]

  package func key(of epoch: MembershipHash) -> [UInt8]? { keys[epoch] }
}

extension GroupState {
  /// The keys of the epochs granted to `device`, opened with `key`. New
  /// data is sealed with the current epoch's key, unless it reached a device
  /// that is no active member (two concurrent revocations): then with the
  /// last epoch before it that reached none, and with none while there is
  /// none (until an admin's device starts a new one).
  func keyring(of device: PeerID, key: DeviceKey) -> GroupKeyring {
    func opened(_ granted: [MembershipHash: [PeerID: HeldGrant]]) -> [MembershipHash: [UInt8]] {
      var keys: [MembershipHash: [UInt8]] = [:]
      for (epoch, byDevice) in granted {
        guard let held = byDevice[device],
              let opened = EpochKeySealing.open(held.grant, index: held.index, ephemeral: held.ephemeral, group: group, with: key)
        else { continue }
        keys[epoch] = opened
      }
      return keys
    }
    let applied = opened(grants)
    let keys = opened(unappliedGrants).merging(applied) { _, applied in applied }
    let sealing = epochs.last { applied[$0] != nil && !isExposed($0) }
    return GroupKeyring(group: group, sealingEpoch: sealing, currentEpoch: currentEpoch, keys: keys, appliedKeys: applied)
  }

  /// One change granting each of `keys` (nil epoch: the epoch the change
  /// starts) to each of `members` that has a key.
  static func sharing(_ keys: [(epoch: MembershipHash?, key: [UInt8])], with members: [GroupMember], group: UUID) -> MembershipChange? {
    let ephemeral = EpochKeySealing.ephemeral()
    var grants: [KeyGrant] = []
    for member in members.sorted(by: { $0.device < $1.device }) {
      guard let signingKey = member.publicKey else { continue }
      for (epoch, key) in keys {
        if let grant = EpochKeySealing.seal(
          key, epoch: epoch, to: member.device, signingKey: signingKey, index: grants.count, ephemeral: ephemeral, group: group)
        {
          grants.append(grant)
        }
      }
    }
    guard !grants.isEmpty else { return nil }
    return .shareKeys(ephemeral: Array(ephemeral.publicKey.rawRepresentation), grants: grants)
  }

  /// A change starting a new epoch, its key granted to every active member
  /// but `excluded`.
  func newEpoch(excluding excluded: PeerID? = nil) -> MembershipChange? {
    let recipients = members.values.filter { $0.isActive && $0.device != excluded }
    return Self.sharing([(nil, EpochKeySealing.newKey())], with: Array(recipients), group: group)
  }
}

extension ChronicleDatabase {
  /// The group content keys this device holds, from the membership events
  /// of its log and `received` (verified by the caller: a relay hands a
  /// device the group's history before its events); nil in no group or
  /// without the device key file.
  package func groupKeyring(adding received: [MembershipEvent] = []) throws -> GroupKeyring? {
    guard let key = deviceKey else { return nil }
    return try read { db in
      guard try db.tableExists("chronicle_membership_events"), var history = try GroupMembership(db: db).history() else { return nil }
      for event in received { history.insert(event) }
      return history.resolve().keyring(of: peerID, key: key)
    }
  }

  /// Takes a group's membership events received outside its log (a relay's
  /// welcome hands a member the group's history before its events) into
  /// this database's history, so that the member list is known before the
  /// events it decides on arrive; they join the log itself when their
  /// origin's events do. Only events of this database's group; their
  /// signatures are checked by the caller. Returns whether any was new.
  @discardableResult
  package func learnMembershipHistory(_ events: [MembershipEvent]) throws -> Bool {
    guard !events.isEmpty else { return false }
    let stored = try writer.write { db in
      let membership = GroupMembership(db: db)
      guard try db.tableExists("chronicle_membership_events"), let group = try membership.group() else { return false }
      var stored = false
      for event in events where event.otherGroup(than: group) == nil {
        if try membership.store(event) { stored = true }
      }
      if stored { try membership.resolve() }
      return stored
    }
    // Events refused for good may be admitted under the new member list.
    if stored { _ = try readmitRefusedEvents(after: MergeReport()) }
    return stored
  }

  /// Starts a new key epoch (an admin's change): a new group content key,
  /// sealed to each active member's device, that new data is sealed with
  /// from then on. A revocation does it by itself; this is for a key
  /// thought exposed (a lost device not revoked yet is better revoked).
  ///
  /// - Throws: ``ChronicleError/membership(_:)`` when this device is not an
  ///   active admin of a group.
  public func rekey() throws {
    try writeMembership { db, peer in
      let membership = GroupMembership(db: db)
      try Self.requireActiveAdmin(peer, membership)
      guard let state = try membership.history()?.resolve(), let change = state.newEpoch() else {
        throw ChronicleError.membership("no active member of this group has a device key to seal a new group key to")
      }
      return [change]
    }
  }

  /// What an admin's device does for its group's keys after its member list
  /// changes: starts an epoch when the group has none (a group of an older
  /// Chronicle) or the current one was granted to a device revoked since,
  /// and shares the current key with active members that lack it (added
  /// concurrently with the change that started it). Returns whether it
  /// wrote a change; a device that is not an active admin writes none.
  @discardableResult
  package func tendGroupKeys() throws -> Bool {
    guard let key = deviceKey else { return false }
    var wrote = false
    try writeMembership { db, peer in
      let membership = GroupMembership(db: db)
      guard try db.tableExists("chronicle_membership_events"), let state = try membership.history()?.resolve(), state.isCreated,
            state.members[peer]?.isActiveAdmin == true, state.members[peer]?.publicKey == key.publicKey
      else { return [] }
      // No epoch, one a device outside the group holds, or one this admin
      // was not granted (it cannot share it): a new one, for every member.
      if state.currentEpoch == nil || state.isCurrentEpochExposed || state.keyring(of: peer, key: key).sealingEpoch != state.currentEpoch {
        guard let change = state.newEpoch() else { return [] }
        wrote = true
        return [change]
      }
      let lacking = state.membersLackingCurrentKey
      guard !lacking.isEmpty, let epoch = state.currentEpoch, let current = state.keyring(of: peer, key: key).appliedKeys[epoch],
            let change = GroupState.sharing([(epoch, current)], with: lacking, group: state.group)
      else { return [] }
      wrote = true
      return [change]
    }
    return wrote
  }

  /// The grants of every epoch key this device holds to `device`, a member
  /// being added (so that it reads the group's history); nil when there are none.
  func sharingHeldKeys(with device: PeerID, publicKey: [UInt8], state: GroupState) -> MembershipChange? {
    guard let key = deviceKey else { return nil }
    let keyring = state.keyring(of: peerID, key: key)
    let keys = state.epochs.compactMap { epoch in keyring.appliedKeys[epoch].map { (epoch: Optional(epoch), key: $0) } }
    let member = GroupMember(device: device, publicKey: publicKey, role: .reader, addedBy: nil, addedAt: HLCTimestamp(rawValue: 0), admission: .added)
    return GroupState.sharing(keys, with: [member], group: state.group)
  }
}
