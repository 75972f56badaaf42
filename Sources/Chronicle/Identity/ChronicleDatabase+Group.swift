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

  /// The group's devices: who added each one and when, and revocations.
  public func members() throws -> [GroupMember] {
    try read { db in try db.tableExists("chronicle_members") ? GroupMembership(db: db).members() : [] }
  }
}

extension ChronicleDatabase {
  /// Creates a group with this device as its first member, and returns its id.
  ///
  /// The devices whose events this database already holds become members
  /// too: they were already syncing with it. The member list is replicated
  /// as an event of this device, like any write.
  ///
  /// - Throws: ``ChronicleError/membership(_:)`` when the database is in a group already.
  @discardableResult
  public func createGroup() throws -> UUID {
    var generator = SystemRandomNumberGenerator()
    let nonce = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    let group = MembershipChange.groupID(founder: peerID, nonce: nonce)
    try writeMembership { db, peer in
      if let current = try GroupMembership(db: db).group() {
        throw ChronicleError.membership("this database is in group \(current.uuidString.lowercased()) already; a database belongs to one group")
      }
      let registry = DeviceRegistry(db: db)
      let origins = try EventLog.origins(db)
      let founders = try origins.filter { $0 != peer }.sorted().map { device in
        FoundingMember(device: device, publicKey: try registry.device(device)?.publicKey)
      }
      return .createGroup(group: group, nonce: nonce, founders: founders)
    }
    return group
  }

  /// An invitation into this database's group, signed by this device, that
  /// admits whoever joins with it (``join(_:)``) until it expires.
  ///
  /// - Throws: ``ChronicleError/membership(_:)`` when this database is in no
  ///   group or this device is not an active member;
  ///   ``ChronicleError/deviceKeyMissing(path:peer:)`` without the key file.
  public func invite(expiresIn lifetime: Duration = .seconds(7 * 24 * 3600)) throws -> Invitation {
    let state = device.withLock { $0 }
    guard let key = state.key else {
      throw ChronicleError.deviceKeyMissing(path: DeviceKey.fileURL(forDatabaseAt: path).path, peer: state.peer)
    }
    return try read { db in
      let membership = GroupMembership(db: db)
      guard let group = try membership.group() else {
        throw ChronicleError.membership("this database is in no group yet: create one first (createGroup(), chronicle group create DB)")
      }
      try Self.requireActiveMember(state.peer, membership)
      let seconds = Double(lifetime.components.seconds) + Double(lifetime.components.attoseconds) / 1e18
      return Invitation(group: group, inviter: state.peer, key: key, expires: Date(timeIntervalSinceNow: seconds))
    }
  }

  /// Joins the group of `invitation`: this device becomes a member, which the
  /// group's other devices learn from this device's next sync. Then sync as
  /// usual to receive the group's data.
  ///
  /// - Throws: ``ChronicleError/invalidInvitation(_:)`` when the invitation
  ///   is expired, altered or not signed by its inviter;
  ///   ``ChronicleError/membership(_:)`` when the database is in a group already.
  public func join(_ invitation: Invitation) throws {
    guard invitation.isSignatureValid else { throw ChronicleError.invalidInvitation("it is not signed by the key it names (altered or forged)") }
    if invitation.inviter.isKeyDerived, PeerID(publicKey: invitation.inviterKey) != invitation.inviter {
      throw ChronicleError.invalidInvitation("it is signed by another key than its inviter's")
    }
    guard invitation.expires > Date() else { throw ChronicleError.invalidInvitation("it expired at \(invitation.expires)") }
    try writeMembership { db, peer in
      let membership = GroupMembership(db: db)
      if let current = try membership.group() {
        // A database that knows the group (a clone, or one that received its
        // events) joins it like any device; the inviter must be a member.
        guard current == invitation.group else {
          throw ChronicleError.membership("this database is in group \(current.uuidString.lowercased()) already; a database belongs to one group")
        }
        if let member = try membership.member(peer), member.isActive {
          throw ChronicleError.membership("this device is a member of that group already")
        }
        do {
          try membership.checkInviter(of: invitation)
        } catch let problem as GroupMembership.Problem {
          throw ChronicleError.invalidInvitation("\(problem)")
        }
      } else {
        try membership.enter(with: invitation)
      }
      return .join(invitation: invitation)
    }
  }

  /// Adds a device by its public key (as ``identity`` shows it on that device):
  /// an alternative to an invitation.
  public func addMember(publicKey: [UInt8]) throws {
    guard publicKey.count == 32 else { throw ChronicleError.membership("a device's public key is 32 bytes, this one is \(publicKey.count)") }
    try writeMembership { db, peer in
      try Self.requireActiveMember(peer, GroupMembership(db: db))
      return .add(device: PeerID(publicKey: publicKey), publicKey: publicKey)
    }
  }

  /// Revokes `device`: every peer that receives this change refuses its
  /// events after the last one this database holds of it, however they
  /// travel. A revoked device cannot be added again; it may join anew as a
  /// new device (``deleteLocalData()``) with a new invitation.
  public func revoke(_ device: PeerID) throws {
    try writeMembership { db, peer in
      let membership = GroupMembership(db: db)
      try Self.requireActiveMember(peer, membership)
      guard let member = try membership.member(device) else {
        throw ChronicleError.membership("device \(device) is not a member of this group (chronicle members DB lists them)")
      }
      guard member.isActive else { throw ChronicleError.membership("device \(device) is revoked already") }
      let last = try VersionVector.read(db)[device]
      return .revoke(device: device, afterSequence: last)
    }
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
      if let key = member.publicKey, key != publicKey { return "its key is not the one member \(peer) was added with" }
      if let by = member.revokedBy { return "device \(peer) was revoked by \(by)" }
      return nil
    }
  }

  /// Writes one event carrying the membership change `make` returns, and
  /// applies it to this database's member list, in one transaction.
  private func writeMembership(_ make: (Database, PeerID) throws -> MembershipChange) throws {
    let session = self.session
    let state = device.withLock { $0 }
    guard let key = state.key else {
      throw ChronicleError.deviceKeyMissing(path: DeviceKey.fileURL(forDatabaseAt: path).path, peer: state.peer)
    }
    try writer.write { db in
      let change = try make(db, state.peer)
      session.pendingMembership = change
      defer { session.pendingMembership = nil }
      guard let appended = try session.appendEvent(db) else { return }
      let timestamp = try appended.stored().event.timestamp
      do {
        try GroupMembership(db: db).apply(change, by: state.peer, writerKey: key.publicKey, at: timestamp)
      } catch let problem as GroupMembership.Problem {
        throw ChronicleError.membership("this change of the member list is refused: \(problem)")
      }
    }
  }

  private static func requireActiveMember(_ peer: PeerID, _ membership: GroupMembership) throws {
    guard try membership.group() != nil else {
      throw ChronicleError.membership("this database is in no group yet: create one first (createGroup(), chronicle group create DB)")
    }
    guard let member = try membership.member(peer) else {
      throw ChronicleError.membership("this device (\(peer)) is not a member of its group, so it cannot change the member list")
    }
    guard member.isActive else {
      throw ChronicleError.membership("this device (\(peer)) was revoked by \(member.revokedBy!), so it cannot change the member list")
    }
  }
}
