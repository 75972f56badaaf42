import Foundation
import GRDB

extension ChronicleLogSource {
  /// The group this database belongs to; nil until it creates or joins one
  /// (or receives the events of one).
  ///
  /// A database in no group syncs with anyone whose events are signed (or
  /// from before device keys). Once in a group it accepts events only from
  /// the group's members, however they travel.
  public var group: UUID? {
    get throws {
      try read { db in try db.tableExists("chronicle_group") ? GroupMembership(db: db).group() : nil }
    }
  }

  /// The group's devices, with their roles: who added each one and when,
  /// and revocations. The list is a function of the group's membership
  /// events: every device holding the same events lists the same members.
  public func members() throws -> [GroupMember] {
    try read { db in try db.tableExists("chronicle_members") ? GroupMembership(db: db).members() : [] }
  }
}

extension ChronicleDatabase {
  /// Creates a group with this device as its first admin, and returns its id.
  ///
  /// The devices whose events this database already holds become admins
  /// too: they were already syncing with it. The member list is replicated
  /// as an event of this device, like any write.
  ///
  /// - Throws: ``ChronicleError/membership(_:)`` when the database is in a group already.
  @discardableResult
  public func createGroup() throws -> UUID {
    guard peerID.isKeyDerived else {
      throw ChronicleError.membership(
        "this device's id \(peerID) is from before device keys, so nothing proves which key acts for it: start a new device (deleteLocalData()) to create a group")
    }
    var generator = SystemRandomNumberGenerator()
    let nonce = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    var created: UUID?
    try writeMembership { db, peer in
      let membership = GroupMembership(db: db)
      if let current = try membership.group() {
        throw ChronicleError.membership("this database is in group \(current.uuidString.lowercased()) already; a database belongs to one group")
      }
      let registry = DeviceRegistry(db: db)
      let founders = try EventLog.origins(db).filter { $0 != peer }.sorted().map { device in
        FoundingMember(device: device, publicKey: try registry.device(device)?.publicKey ?? EventLog.signingKey(db, origin: device))
      }
      let group = MembershipChange.groupID(founder: peer, nonce: nonce, founders: founders)
      try membership.enter(group)
      created = group
      return [.createGroup(group: group, nonce: nonce, founders: founders)]
    }
    // The group's first key epoch, sealed to the founding members with keys.
    try rekey()
    return created!
  }

  /// An invitation into this database's group, signed by this device, that
  /// admits one device as `role`: the first admin device that sees its
  /// request (``join(_:)``) before the invitation expires, by that device's
  /// own clock, admits it.
  ///
  /// - Throws: ``ChronicleError/membership(_:)`` when this database is in no
  ///   group or this device is not an active admin;
  ///   ``ChronicleError/deviceKeyMissing(path:peer:)`` without the key file.
  public func invite(as role: MemberRole = .writer, expiresIn lifetime: Duration = .seconds(7 * 24 * 3600)) throws -> Invitation {
    let state = device.withLock { $0 }
    guard let key = state.key else {
      throw ChronicleError.deviceKeyMissing(path: DeviceKey.fileURL(forDatabaseAt: path).path, peer: state.peer)
    }
    return try read { db in
      let membership = GroupMembership(db: db)
      let group = try Self.requireActiveAdmin(state.peer, membership)
      let seconds = Double(lifetime.components.seconds) + Double(lifetime.components.attoseconds) / 1e18
      return Invitation(group: group, inviter: state.peer, key: key, role: role, expires: clock.wallTime.addingTimeInterval(seconds))
    }
  }

  /// Asks to join the group of `invitation`: this device writes a join
  /// request, which the group's admin devices admit when they receive it
  /// (sync with one, directly or through the relay). Sync again once
  /// admitted to receive the group's data.
  ///
  /// - Throws: ``ChronicleError/invalidInvitation(_:)`` when the invitation
  ///   is expired, altered or not signed by its inviter;
  ///   ``ChronicleError/membership(_:)`` when the database is in a group already.
  public func join(_ invitation: Invitation) throws {
    if let problem = invitation.signatureProblem { throw ChronicleError.invalidInvitation("it \(problem)") }
    guard invitation.expires > clock.wallTime else { throw ChronicleError.invalidInvitation("it expired at \(invitation.expires)") }
    try writeMembership { db, peer in
      let membership = GroupMembership(db: db)
      if let current = try membership.group() {
        // A database that knows the group (a clone, or one that received its
        // events) joins it like any device.
        guard current == invitation.group else {
          throw ChronicleError.membership("this database is in group \(current.uuidString.lowercased()) already; a database belongs to one group")
        }
        if let member = try membership.member(peer), member.isActive {
          throw ChronicleError.membership("this device is a member of that group already")
        }
      } else {
        try membership.enter(invitation.group)
      }
      guard let key = self.deviceKey, let proof = invitation.proof(device: peer, publicKey: key.publicKey) else {
        throw ChronicleError.invalidInvitation("it holds no secret: use the invitation's whole text, as chronicle invite prints it")
      }
      return [.join(invitation: invitation.withoutSecret, proof: proof)]
    }
  }

  /// Adds a device by its public key (as ``identity`` shows it on that
  /// device), as `role`: an alternative to an invitation, for an admin.
  public func addMember(publicKey: [UInt8], as role: MemberRole = .writer) throws {
    guard publicKey.count == 32 else { throw ChronicleError.membership("a device's public key is 32 bytes, this one is \(publicKey.count)") }
    try writeMembership { db, peer in
      let membership = GroupMembership(db: db)
      try Self.requireActiveAdmin(peer, membership)
      let device = PeerID(publicKey: publicKey)
      let keys = try membership.history().flatMap { sharingHeldKeys(with: device, publicKey: publicKey, state: $0.resolve()) }
      return [.add(device: device, publicKey: publicKey, role: role, invitation: nil)] + (keys.map { [$0] } ?? [])
    }
  }

  /// Gives a member another role (an admin's change).
  ///
  /// Making a writer or an admin a reader names the last event this
  /// database holds of it, as a revocation does: every member takes its
  /// row changes up to that one (made while it could write, whichever way
  /// they travel) and refuses those after it.
  public func changeRole(of device: PeerID, to role: MemberRole) throws {
    try writeMembership { db, peer in
      let membership = GroupMembership(db: db)
      try Self.requireActiveAdmin(peer, membership)
      guard let member = try membership.member(device), member.isActive else {
        throw ChronicleError.membership("device \(device) is not an active member of this group (chronicle members DB lists them)")
      }
      guard !role.writes, member.role.writes else { return [.changeRole(device: device, role: role, afterSequence: nil, checkpoints: [])] }
      let (last, checkpoints) = try Self.heldHistory(of: device, db)
      return [.changeRole(device: device, role: role, afterSequence: last, checkpoints: checkpoints)]
    }
  }

  /// The last event this database holds of `device` (events refused here
  /// are not counted; those it lacks below are admitted when they come),
  /// and checkpoints naming its events up to it by digest, so that they
  /// cannot be rewritten: what a revocation or a demotion records.
  private static func heldHistory(of device: PeerID, _ db: Database) throws -> (last: UInt64, checkpoints: [HistoryCheckpoint]) {
    let last = max(try EventLog.lastSequence(db, origin: device), try LogBaseline.Header.read(db)?.vector[device] ?? 0)
    return (last, try RevokedHistory.checkpoints(of: device, through: last, db))
  }

  /// Withdraws an invitation before it is used: no admin admits with it from
  /// then on (an admin's change).
  public func withdraw(_ invitation: Invitation) throws {
    try writeMembership { db, peer in
      let group = try Self.requireActiveAdmin(peer, GroupMembership(db: db))
      guard invitation.group == group else { throw ChronicleError.membership("the invitation is into another group") }
      return [.withdrawInvitation(invitation.id)]
    }
  }

  /// Revokes `device` (an admin's change): every peer that receives this
  /// change refuses its events after the last one this database holds of
  /// it, and its changes of the member list that this database had not
  /// seen, however they travel. A revoked device cannot be added again; it
  /// may join anew as a new device (``deleteLocalData()``) with a new
  /// invitation.
  public func revoke(_ device: PeerID) throws {
    try writeMembership { db, peer in
      let membership = GroupMembership(db: db)
      try Self.requireActiveAdmin(peer, membership)
      guard let member = try membership.member(device) else {
        throw ChronicleError.membership("device \(device) is not a member of this group (chronicle members DB lists them)")
      }
      guard member.isActive else { throw ChronicleError.membership("device \(device) is revoked already") }
      let (last, checkpoints) = try Self.heldHistory(of: device, db)
      // A new key epoch in the same change: the revoked device is granted
      // nothing written from here on.
      let newEpoch = try membership.history()?.resolve().newEpoch(excluding: device)
      return [.revoke(device: device, afterSequence: last, checkpoints: checkpoints)] + (newEpoch.map { [$0] } ?? [])
    }
  }

  /// Admits the join requests this database holds, and those among
  /// `received` (verified by the caller), when this device is an active
  /// admin: one device per invitation, while the invitation is valid by this
  /// device's clock. Returns how many it admitted.
  @discardableResult
  package func admitJoinRequests(received: [MembershipEvent] = []) throws -> Int {
    let now = clock.wallTime
    let pending: [GroupState.JoinRequest] = try read { db in
      let membership = GroupMembership(db: db)
      guard try db.tableExists("chronicle_membership_events"), var history = try membership.history(),
            try membership.member(peerID)?.isActiveAdmin == true
      else { return [] }
      for event in received where event.joinRequest != nil { history.insert(event) }
      var seen: Set<UUID> = []
      return history.resolve().joinRequests.filter { $0.invitation.expires > now && seen.insert($0.invitation.id).inserted }
    }
    var admitted = 0
    for request in pending {
      try writeMembership { db, peer in
        guard let state = try GroupMembership(db: db).resolve(), state.members[peer]?.isActiveAdmin == true,
              state.members[request.device] == nil, state.usedInvitations[request.invitation.id] == nil,
              !state.withdrawnInvitations.contains(request.invitation.id)
        else { return [] }
        admitted += 1
        let keys = sharingHeldKeys(with: request.device, publicKey: request.publicKey, state: state)
        return [.add(device: request.device, publicKey: request.publicKey, role: request.invitation.role, invitation: request.invitation.id)]
          + (keys.map { [$0] } ?? [])
      }
    }
    return admitted
  }

  /// This device's key, nil when its key file is missing.
  package var deviceKey: DeviceKey? { device.withLock { $0.key } }

  /// Why `peer`, which proved it holds `publicKey` (nil: it proved nothing),
  /// may not sync with this database; nil when it may. A database in a group
  /// admits its active members only; with `requiringMembership` false, also
  /// devices it does not know yet (which may push their join, nothing more).
  package func deviceRefusal(_ peer: PeerID, publicKey: [UInt8]?, requiringMembership: Bool = true) throws -> String? {
    if let publicKey, peer.isKeyDerived, PeerID(publicKey: publicKey) != peer {
      return "its key is not the one its peer id \(peer) is derived from"
    }
    return try read { db in
      if let publicKey, let known = try DeviceRegistry(db: db).device(peer), known.publicKey != publicKey {
        return "its key is not the one device \(peer) signs its events with"
      }
      let membership = GroupMembership(db: db)
      guard try membership.group() != nil else { return nil }
      guard let publicKey else { return "this database's group admits devices by their key, and it proved none (its key file is missing)" }
      guard let member = try membership.member(peer) else {
        return requiringMembership ? "device \(peer) is not a member of this group (invite it: chronicle invite DB)" : nil
      }
      if member.publicKey != publicKey { return "its key is not the one member \(peer) was added with" }
      if let by = member.revokedBy { return "device \(peer) was revoked by \(by)" }
      return nil
    }
  }

  /// This device's role in its group: as its member list says, or, before
  /// its admission reached it, the role its invitation grants; nil in no group.
  package func ownRole() throws -> MemberRole? {
    try read { db in
      guard try db.tableExists("chronicle_membership_events") else { return nil }
      let membership = GroupMembership(db: db)
      if let member = try membership.member(peerID) { return member.role }
      return try ownInvitations(membership).last?.role
    }
  }

  /// The invitations this device asked to join with (its own join requests).
  private func ownInvitations(_ membership: GroupMembership) throws -> [Invitation] {
    try membership.storedEvents().filter { $0.origin == peerID }.compactMap(\.joinRequest)
  }

  /// Why this database does not sync with a server `peer` that proved it
  /// holds `publicKey` (nil: it proved nothing); nil when it does. In no
  /// group: anyone. In a group whose history this device holds: an active
  /// member, with the key it was added with. Before that (a join not
  /// admitted yet, the group known only from the invitation): the admin
  /// that signed the invitation.
  package func serverRefusal(_ peer: PeerID, publicKey: [UInt8]?) throws -> String? {
    try read { db in
      let membership = GroupMembership(db: db)
      guard try db.tableExists("chronicle_membership_events"), try membership.group() != nil else { return nil }
      guard let publicKey else { return "it proved no device key" }
      if try membership.members().isEmpty {
        let invitations = try ownInvitations(membership)
        if invitations.contains(where: { $0.inviter == peer && $0.inviterKey == publicKey }) { return nil }
        let inviters = invitations.map(\.inviter.description).joined(separator: ", ")
        return "this device's join is not admitted yet, and it is not the admin that invited this device (\(inviters.isEmpty ? "none" : inviters))"
      }
      guard let member = try membership.member(peer) else { return "device \(peer) is not a member of this group" }
      if member.publicKey != publicKey { return "its key is not the one member \(peer) was added with" }
      if let by = member.revokedBy { return "device \(peer) was revoked by \(by)" }
      return nil
    }
  }

  /// Writes one event carrying the membership changes `make` returns (none:
  /// no event), built on the membership events this database has applied;
  /// signs it at once, and resolves the member list with it, in one
  /// transaction. A change the member list refuses is not written.
  func writeMembership(_ make: (Database, PeerID) throws -> [MembershipChange]) throws {
    let session = self.session
    let state = device.withLock { $0 }
    guard let key = state.key else {
      throw ChronicleError.deviceKeyMissing(path: DeviceKey.fileURL(forDatabaseAt: path).path, peer: state.peer)
    }
    var wrote = false
    try writer.write { db in
      // This device's events before it are signed first: each signed event
      // links to the one before it, which must not change after (and a
      // change naming one of them names its signed form).
      while try !Self.sealPage(of: state.peer, with: key, db) {}
      let changes = try make(db, state.peer)
      guard let first = changes.first else { return }
      wrote = true
      let membership = GroupMembership(db: db)
      var written = changes
      switch first {
      case .createGroup, .join: break
      default: written.insert(.builtOn(try membership.history()?.resolve().heads ?? []), at: 0)
      }
      session.pendingMembership = written
      defer { session.pendingMembership = [] }
      guard let appended = try session.appendEvent(db) else { return }
      let sequence = try appended.stored().event.sequence
      let link = try EventLog.link(db, origin: state.peer, before: Int64(sequence))
      let signed = EventSignature.seal(appended.encoded.bytes, linkedTo: link, with: key)
      try EventLog.replaceWithSigned(db, position: appended.id, bytes: signed)
      guard let event = MembershipEvent(try appended.stored().event, signed: signed, signer: key.publicKey) else { return }
      try membership.store(event)
      let resolved = try membership.resolve()
      if event.joinRequest == nil, let reason = resolved?.refused[event.hash] {
        throw ChronicleError.membership("this change of the member list is refused: \(reason)")
      }
    }
    // Events refused for good may be admitted under the new member list.
    if wrote { _ = try readmitRefusedEvents(after: MergeReport()) }
  }

  /// The group, when `peer` is one of its active admins.
  @discardableResult
  static func requireActiveAdmin(_ peer: PeerID, _ membership: GroupMembership) throws -> UUID {
    guard let group = try membership.group() else {
      throw ChronicleError.membership("this database is in no group yet: create one first (createGroup(), chronicle group create DB)")
    }
    guard let member = try membership.member(peer) else {
      throw ChronicleError.membership("this device (\(peer)) is not a member of its group, so it cannot change the member list")
    }
    if let by = member.revokedBy {
      throw ChronicleError.membership("this device (\(peer)) was revoked by \(by), so it cannot change the member list")
    }
    guard member.role == .admin else {
      throw ChronicleError.membership("this device (\(peer)) is a \(member.role) of its group; only admins change the member list")
    }
    return group
  }
}
