import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

/// The member list read as an attacker would: a device that saw an
/// invitation once, a plain member, a revoked founder. Each test is one way
/// to take a group over that used to work.
@Suite("Devices: membership against a hostile member")
struct MembershipAttackTests: ThreePeers {
  let directory: TemporaryDirectory
  let clock = ManualWallClock()
  let a: ChronicleDatabase
  let b: ChronicleDatabase
  let c: ChronicleDatabase

  init() throws {
    directory = try TemporaryDirectory()
    a = try openSyncPeer(directory, name: "a.sqlite", clock: clock)
    b = try openSyncPeer(directory, name: "b.sqlite", clock: clock)
    c = try openSyncPeer(directory, name: "c.sqlite", clock: clock)
  }

  /// Writes an event of `database` carrying `changes` as they are, built on
  /// what it has applied: what a hostile device can sign, whatever its API refuses.
  func forge(_ database: ChronicleDatabase, _ changes: [MembershipChange], builtOn: Bool = true) throws {
    let heads = try database.read { db in try GroupMembership(db: db).history()?.resolve().heads ?? [] }
    database.session.pendingMembership = (builtOn ? [.builtOn(heads)] : []) + changes
    try database.write { _ in }
  }

  /// 1. An invitation is valid by the admitting admin's clock: a device that
  /// dates its request before the expiry is still refused after it.
  @Test func aJoinBackdatedBeforeTheExpiryIsNotAdmittedAfterIt() throws {
    try a.createGroup()
    let invitation = try a.invite(expiresIn: .seconds(60))
    clock.advance(by: 3_600_000)  // an hour later, by everyone's clock but the attacker's
    let attacker = try openSyncPeer(directory, name: "attacker.sqlite", clock: clock, skew: -3_600_000)
    try attacker.join(invitation)  // its own clock says the invitation is still valid
    try insert(attacker, 66, "Backdated")
    expectRefused(attacker.peerID, "not a member") { try push(attacker, to: a) }
    #expect(try member(a, attacker.peerID) == nil)
    #expect(try names(a).isEmpty)
  }

  /// 9. An invitation admits one device; a second device with the same text
  /// is refused by every admin, and so is one that lifted the invitation out
  /// of another device's request (without its secret).
  @Test func anInvitationAdmitsOneDeviceOnly() throws {
    try a.createGroup()
    let invitation = try a.invite()
    try b.join(invitation)
    try push(b, to: a)
    #expect(try member(a, b.peerID)?.invitation == invitation.id)

    try c.join(invitation)  // the same text, a second time
    try insert(c, 7, "Second use")
    expectRefused(c.peerID, "not a member") { try push(c, to: a) }
    #expect(try member(a, c.peerID) == nil)

    // Lifted from b's request: the signed part, and a proof made with another key.
    let thief = try openSyncPeer(directory, name: "thief.sqlite", clock: clock)
    let fresh = try a.invite()
    try thief.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (8, 'Lifted')") }
    try forge(thief, [.join(invitation: fresh.withoutSecret, proof: Array(repeating: 7, count: 64))], builtOn: false)
    expectRefused(thief.peerID, "not a member") { try push(thief, to: a) }
    #expect(try member(a, thief.peerID) == nil)
    // The invitation itself is still unused: its rightful holder joins.
    let holder = try openSyncPeer(directory, name: "holder.sqlite", clock: clock)
    try holder.join(fresh)
    try push(holder, to: a)
    #expect(try member(a, holder.peerID)?.isActive == true)
  }

  /// An invitation withdrawn before it is used admits no one.
  @Test func aWithdrawnInvitationAdmitsNoOne() throws {
    try a.createGroup()
    let invitation = try a.invite()
    try a.withdraw(invitation)
    try b.join(invitation)
    try insert(b, 1, "Withdrawn")
    expectRefused(b.peerID, "not a member") { try push(b, to: a) }
  }

  /// 2. A founder that was revoked sends the group's creation again, naming
  /// another device as a founding member: no device takes it.
  @Test func aRevokedFounderCannotCreateTheGroupAgain() throws {
    let group = try a.createGroup()
    try b.join(try a.invite(as: .admin))
    try push(b, to: a)
    try push(a, to: b)
    try b.revoke(a.peerID)
    try push(b, to: a)
    #expect(try member(a, a.peerID)?.isActive == false)

    let creation = try #require(try a.membershipEvents().first { if case .createGroup = $0.changes[0] { true } else { false } })
    guard case .createGroup(_, let nonce, let founders) = creation.changes[0] else { return }
    // The same creation again (same founder, nonce and founders), and one naming c.
    try forge(a, [.createGroup(group: group, nonce: nonce, founders: founders)], builtOn: false)
    try forge(a, [.createGroup(group: group, nonce: nonce, founders: [FoundingMember(device: c.peerID, publicKey: c.identity.publicKey)])], builtOn: false)
    // Devices refuse them whole: they come after a's revocation.
    expectRefused(a.peerID, "revoked") { try push(a, to: b) }
    #expect(try member(b, a.peerID)?.isActive == false)
    #expect(try b.members().filter(\.isActive).map(\.device) == [b.peerID])
    // A relay, which takes membership events from anyone's hello, resolves
    // them the same way: a stays revoked, c is no member.
    let signed = try a.serializedEvents(beyond: VersionVector()).compactMap { try? MembershipEvent(verifying: $0) }
    #expect(signed.count == 7)  // the creation, its first key epoch, b's request, its admission, the revocation, two creations again
    var roster = GroupRoster(group: group)
    roster.add(signed.shuffled())
    #expect(roster.members[a.peerID]?.isActive == false)
    #expect(roster.members[c.peerID] == nil)
    #expect(roster.refusal(of: c.peerID, publicKey: try c.identity.publicKey) != nil)
  }

  /// 3. Only an admin revokes, and the last admin is not revoked: a plain
  /// member that signs a revocation of the founder (cut off at :0) changes
  /// nothing, and the founder's events keep flowing.
  @Test func aPlainMemberCannotRevokeTheFounder() throws {
    try a.createGroup()
    try b.join(try a.invite())
    try push(b, to: a)
    try c.join(try a.invite(as: .admin))  // a second admin: a is not the last one
    try push(c, to: a)
    try push(a, to: b)
    #expect(throws: ChronicleError.self) { try b.revoke(a.peerID) }  // the API refuses
    try forge(b, [.revoke(device: a.peerID, afterSequence: 0, checkpoints: [])])  // a hostile build does not
    try forge(b, [.changeRole(device: b.peerID, role: .admin, afterSequence: nil, checkpoints: [])])
    try push(b, to: c)
    try push(a, to: c)
    try push(b, to: a)
    for database in [a, c] {
      #expect(try member(database, a.peerID)?.isActive == true)
      #expect(try member(database, b.peerID)?.role == .writer)
    }
    try insert(a, 1, "Founder's")
    try push(a, to: c)
    #expect(try names(c) == ["Founder's"])
  }

  /// The last admin is not revoked or demoted, even by itself: a group
  /// always has someone who can change its member list.
  @Test func theLastAdminStays() throws {
    try a.createGroup()
    try b.join(try a.invite())
    try push(b, to: a)
    #expect(throws: ChronicleError.self) { try a.revoke(a.peerID) }
    #expect(throws: ChronicleError.self) { try a.changeRole(of: a.peerID, to: .writer) }
    #expect(try member(a, a.peerID)?.isActiveAdmin == true)
    try a.changeRole(of: b.peerID, to: .admin)
    try a.revoke(a.peerID)  // no longer the last
    #expect(try member(a, a.peerID)?.isActive == false)
  }

  /// A reader's writes are refused by every member, whatever path they take.
  @Test func aReadersWritesAreRefused() throws {
    try a.createGroup()
    try b.join(try a.invite(as: .reader))
    try push(b, to: a)
    #expect(try member(a, b.peerID)?.role == .reader)
    // A reader's write fails before it commits.
    try push(a, to: b)
    #expect(throws: ChronicleError.self) { try insert(b, 3, "From a reader") }
    #expect(try names(b).isEmpty)
    // A hostile build writes anyway (its own member list says writer); every member refuses it.
    try b.writer.write { db in
      try db.execute(sql: "UPDATE chronicle_members SET role = 'writer' WHERE peer_id = ?", arguments: [Data(b.peerID.bytes)])
    }
    try insert(b, 3, "From a reader")
    expectRefused(b.peerID, "reader") { try push(b, to: a) }
    #expect(try names(a).isEmpty)
    // Made a writer, its writes are taken.
    try a.changeRole(of: b.peerID, to: .writer)
    try push(b, to: a)
    #expect(try names(a) == ["From a reader"])
  }

  /// 4, 6. A revocation beats the revoked admin's concurrent changes: an
  /// admin that adds a device while another revokes it, unseen, added no one,
  /// on every device, in any order of arrival.
  @Test func aRevocationBeatsTheRevokedAdminsConcurrentChanges() throws {
    try a.createGroup()
    try b.join(try a.invite(as: .admin))
    try push(b, to: a)
    try push(a, to: b)
    // Concurrently: a adds a device, then revokes b; b adds c, built on
    // less history than the revocation (so ordered before it).
    let other = try openSyncPeer(directory, name: "other.sqlite", clock: clock)
    try a.addMember(publicKey: other.identity.publicKey)
    try a.revoke(b.peerID)
    try b.addMember(publicKey: c.identity.publicKey)
    let observer = try openSyncPeer(directory, name: "observer.sqlite", clock: clock)
    try observer.join(try a.invite())
    try push(observer, to: a)
    // b's addition reaches the observer before the revocation; a refuses it
    // whole (it comes after b's cut-off).
    try push(b, to: observer)
    #expect(try member(observer, c.peerID)?.isActive == true)
    try push(a, to: observer)
    expectRefused(b.peerID, "revoked") { try push(b, to: a) }
    // A relay that holds every one of these events agrees.
    var roster = GroupRoster(group: try #require(try a.group))
    roster.add(try observer.membershipEvents())
    #expect(roster.members[c.peerID] == nil)
    for database in [a, observer] {
      #expect(try member(database, c.peerID) == nil, "\(database.peerID.shortDescription) lists c")
      #expect(try member(database, b.peerID)?.isActive == false)
    }
    #expect(try a.members().map(\.device) == observer.members().map(\.device))
  }

  /// A forged copy beside the genuine event in a batch is refused for its
  /// signature, checked before its body is read; the refusal is of the id,
  /// so the genuine copy waits for the next sync. Two different events under one id that both carry their origin's
  /// signature (a device signing two versions of one event) are both
  /// refused: a signature checked for one never vouches for the other. A
  /// later copy alone is taken.
  @Test func aForgedTwinBesideTheGenuineEventIsRefused() throws {
    try a.createGroup()
    try b.join(try a.invite())
    try push(b, to: a)
    try push(a, to: b)
    try a.changeRole(of: b.peerID, to: .reader)
    let genuine = try #require(try a.serializedEvents(beyond: b.versionVector()).last)
    var forged = genuine
    forged[forged.count - 10] ^= 0x01  // a signature byte
    Self.fixChecksum(&forged)
    let unchanged = try b.members()
    expectRefused(a.peerID, "its signature does not verify", by: b) {
      try b.applyRemote(bundle: EventBundle.encode(writer: a.peerID, events: [forged, genuine]), source: "twins")
    }
    #expect(try b.members() == unchanged)
    try push(a, to: b)
    #expect(try member(b, b.peerID)?.role == .reader)

    try a.changeRole(of: b.peerID, to: .writer)
    let second = try #require(try a.serializedEvents(beyond: b.versionVector()).last)
    // The same id signed twice by its origin, with another clock.
    var unsigned = Array(second.dropLast(EventSignature.blockSize(version: second[4]) + 4))
    unsigned[4] = 1
    unsigned[29] ^= 0x01
    unsigned += [0, 0, 0, 0]
    Self.fixChecksum(&unsigned)
    let equivocation = EventSignature.seal(unsigned, linkedTo: EventSignature.noLink, with: try #require(a.deviceKey))
    let before = try b.members()
    expectRefused(a.peerID, "two different events under this id", by: b) {
      try b.applyRemote(bundle: EventBundle.encode(writer: a.peerID, events: [equivocation, second]), source: "twins")
    }
    #expect(try b.members() == before)
    try push(a, to: b)  // the genuine one alone is taken
    #expect(try member(b, b.peerID)?.role == .writer)
  }

  static func fixChecksum(_ event: inout [UInt8]) {
    let crc = Zlib.crc32(event[..<(event.count - 4)])
    event.replaceSubrange((event.count - 4)..., with: withUnsafeBytes(of: crc.bigEndian) { Array($0) })
  }

  /// A revoked admin that writes a revocation of its revoker on older
  /// history (so that it sorts first) does not undo its revocation: of two
  /// admins that act against each other concurrently, the one that joined
  /// first wins, on every device and at the relay.
  @Test func aRevokedAdminCannotRevokeItsRevokerOnOlderHistory() throws {
    try a.createGroup()
    try b.join(try a.invite(as: .admin))
    try push(b, to: a)
    try push(a, to: b)
    let observer = try openSyncPeer(directory, name: "observer.sqlite", clock: clock)
    try push(a, to: observer)  // the group so far
    let w = try openSyncPeer(directory, name: "w.sqlite", clock: clock)
    try a.addMember(publicKey: w.identity.publicKey)  // a's history grows deeper than b's
    try a.revoke(b.peerID)
    try forge(b, [.revoke(device: a.peerID, afterSequence: 0, checkpoints: [])])  // built on b's older heads
    try forge(b, [.changeRole(device: a.peerID, role: .reader, afterSequence: nil, checkpoints: [])])
    try push(b, to: observer)  // b's revocation of a first
    let cutOff = try #require(try member(observer, a.peerID))
    #expect(!cutOff.isActive)
    #expect(cutOff.revokedAfterSequence ?? 0 >= 2)  // not :0: b had applied a's events up to the admission of b
    try push(a, to: observer)
    for database in [a, observer] {
      #expect(try member(database, a.peerID)?.isActiveAdmin == true, "\(database.peerID.shortDescription)")
      #expect(try member(database, b.peerID)?.isActive == false)
      #expect(try member(database, w.peerID)?.isActive == true)
    }
    var roster = GroupRoster(group: try #require(try a.group))
    roster.add(try observer.membershipEvents().shuffled())
    #expect(roster.members[a.peerID]?.isActiveAdmin == true && roster.members[b.peerID]?.isActive == false)
  }

  /// An admin made a writer that adds a device on history older than its
  /// demotion (so that it sorts first) adds no one, on every device and at
  /// the relay, in any order; an admin made one again acts as one.
  @Test func aDemotedAdminCannotAddADeviceOnOlderHistory() throws {
    try a.createGroup()
    try b.join(try a.invite(as: .admin))
    try push(b, to: a)
    try push(a, to: b)
    let observer = try openSyncPeer(directory, name: "observer.sqlite", clock: clock)
    try push(a, to: observer)
    let w = try openSyncPeer(directory, name: "w.sqlite", clock: clock)
    try a.addMember(publicKey: w.identity.publicKey)  // a's history grows deeper than b's
    try a.changeRole(of: b.peerID, to: .writer)
    let x = try openSyncPeer(directory, name: "x.sqlite", clock: clock)
    try b.addMember(publicKey: x.identity.publicKey, as: .admin)  // b has not heard: built on its older heads
    try push(b, to: observer)  // b's addition first
    #expect(try member(observer, x.peerID)?.isActiveAdmin == true)  // not known yet to be void
    try push(a, to: observer)
    try push(b, to: a)
    for database in [a, observer] {
      #expect(try member(database, x.peerID) == nil, "\(database.peerID.shortDescription)")
      #expect(try member(database, b.peerID)?.role == .writer)
      #expect(try member(database, w.peerID)?.isActive == true)
    }
    var roster = GroupRoster(group: try #require(try a.group))
    roster.add(try observer.membershipEvents().shuffled())
    #expect(roster.members[x.peerID] == nil && roster.members[b.peerID]?.role == .writer)

    // Made an admin again, b adds x: built on its promotion, it holds.
    try a.changeRole(of: b.peerID, to: .admin)
    try push(a, to: b)
    try b.addMember(publicKey: x.identity.publicKey, as: .writer)
    try push(b, to: a)
    try push(a, to: observer)
    for database in [a, b, observer] {
      #expect(try member(database, x.peerID)?.role == .writer, "\(database.peerID.shortDescription)")
    }
  }

  /// A junior admin that is demoted, and on older history demotes its
  /// demoter and gives it its role back (so that both demotions apply),
  /// stays demoted: of two admins that took each other's role away
  /// concurrently, the one who joined first wins.
  @Test func aDemotedAdminCannotEscapeByDemotingAndRestoringItsDemoter() throws {
    try a.createGroup()
    // The junior admin's peer id sorts after the founder's (the order in
    // which the fold used to look at the two demotions, letting it win).
    var attempt = 0
    var h = try openSyncPeer(directory, name: "h0.sqlite", clock: clock)
    while h.peerID < a.peerID {
      attempt += 1
      h = try openSyncPeer(directory, name: "h\(attempt).sqlite", clock: clock)
    }
    try h.join(try a.invite(as: .admin))
    try push(h, to: a)
    try push(a, to: h)
    let w1 = try openSyncPeer(directory, name: "w1.sqlite", clock: clock)
    let w2 = try openSyncPeer(directory, name: "w2.sqlite", clock: clock)
    try a.addMember(publicKey: w1.identity.publicKey)  // a's history two changes deeper than h's
    try a.addMember(publicKey: w2.identity.publicKey)
    try a.changeRole(of: h.peerID, to: .writer)
    try forge(h, [.changeRole(device: a.peerID, role: .writer, afterSequence: nil, checkpoints: [])])  // on h's older heads
    let observer = try openSyncPeer(directory, name: "observer.sqlite", clock: clock)
    try push(h, to: observer)
    let demotion = try #require(try observer.membershipEvents().first { event in
      event.origin == h.peerID && event.changes.contains { if case .changeRole = $0 { true } else { false } }
    })
    h.session.pendingMembership = [.builtOn([demotion.hash]), .changeRole(device: a.peerID, role: .admin, afterSequence: nil, checkpoints: [])]
    try h.write { _ in }
    try push(h, to: observer)
    try push(a, to: observer)
    try push(h, to: a)
    for database in [a, observer] {
      #expect(try member(database, h.peerID)?.role == .writer, "\(database.peerID.shortDescription)")
      #expect(try member(database, a.peerID)?.isActiveAdmin == true, "\(database.peerID.shortDescription)")
      #expect(try member(database, w2.peerID)?.isActive == true, "\(database.peerID.shortDescription)")
    }
    var roster = GroupRoster(group: try #require(try a.group))
    roster.add(try observer.membershipEvents().shuffled())
    #expect(roster.members[h.peerID]?.role == .writer && roster.members[a.peerID]?.isActiveAdmin == true)
  }

  /// An admin that takes another's role away and gives it back in one
  /// change demotes no one: the other's changes, made before it saw that
  /// change or after, all hold.
  @Test func aDemotionUndoneInTheSameChangeDisablesNoAdmin() throws {
    try a.createGroup()
    try b.join(try a.invite(as: .admin))
    try push(b, to: a)
    try push(a, to: b)
    try forge(a, [
      .changeRole(device: b.peerID, role: .writer, afterSequence: nil, checkpoints: []),
      .changeRole(device: b.peerID, role: .admin, afterSequence: nil, checkpoints: []),
    ])
    let w = try openSyncPeer(directory, name: "w.sqlite", clock: clock)
    try b.addMember(publicKey: w.identity.publicKey)  // concurrently with a's change
    try push(b, to: a)
    try push(a, to: b)
    try b.revoke(a.peerID)  // after it
    // (a's own list is not read: a forged change is not recorded as its
    // writer's membership history, only sent.)
    let observer = try openSyncPeer(directory, name: "observer.sqlite", clock: clock)
    try push(b, to: observer)
    try push(a, to: observer)
    for database in [b, observer] {
      #expect(try member(database, w.peerID)?.isActive == true, "\(database.peerID.shortDescription)")
      #expect(try member(database, a.peerID)?.isActive == false, "\(database.peerID.shortDescription)")
    }
  }

  /// A reader's cut-off moves only for a demotion made concurrently with
  /// the one that set it: an admin that saw it a reader and names a later
  /// (or any) sequence lets none of its writes in.
  @Test func aReadersCutOffIsNotRaisedByALaterChange() throws {
    try makeGroup()
    try insert(b, 1, "One")
    try push(b, to: a)
    try a.changeRole(of: b.peerID, to: .reader)
    let cutOff = try #require(try member(a, b.peerID)?.demotedAfterSequence)
    // (c judges: a forged change is not recorded in its writer's own history, only sent.)
    try forge(a, [.changeRole(device: b.peerID, role: .reader, afterSequence: .max, checkpoints: [])])
    try insert(b, 2, "Two")  // b has not heard
    expectRefused(b.peerID, "is a reader", by: a) { try push(b, to: a) }
    try push(a, to: c)  // with b's refused list, which c settles too
    try push(b, to: c)
    #expect(try member(c, b.peerID)?.demotedAfterSequence == cutOff)
    #expect(try c.refusedEvents().contains { $0.origin == b.peerID && $0.reason.contains("is a reader") })
    #expect(try names(a) == ["One"])
    #expect(try names(c) == ["One"])
  }

  /// A revocation that turns out void makes nothing void: b adds d unseen
  /// by c, c revokes b unseen by a, a revokes c. c's revocation is void, so
  /// b stays, and so does d.
  @Test func aVoidRevocationVoidsNothing() throws {
    try a.createGroup()
    try b.join(try a.invite(as: .admin))
    try push(b, to: a)
    try c.join(try a.invite(as: .admin))
    try push(c, to: a)
    for database in [b, c] { try push(a, to: database) }
    let d = try openSyncPeer(directory, name: "d.sqlite", clock: clock)
    try b.addMember(publicKey: d.identity.publicKey)
    try c.revoke(b.peerID)
    try a.revoke(c.peerID)
    let observer = try openSyncPeer(directory, name: "observer.sqlite", clock: clock)
    try push(b, to: observer)
    try push(c, to: observer)
    try push(a, to: observer)
    #expect(try member(observer, c.peerID)?.isActive == false)
    #expect(try member(observer, b.peerID)?.isActive == true)
    #expect(try member(observer, d.peerID)?.isActive == true)
  }

  /// An invitation is an admin's: one a stranger mints into the group (its
  /// own key as the inviter's) gets its request refused, and a relay does
  /// not store it.
  @Test func aSelfMintedInvitationGetsNothingStored() throws {
    let group = try a.createGroup()
    try b.join(try a.invite())
    try push(b, to: a)
    try push(a, to: b)
    let stranger = try openSyncPeer(directory, name: "stranger.sqlite", clock: clock)
    let strangerKey = try #require(try DeviceKey.read(from: stranger.identity.keyFile))
    let minted = Invitation(group: group, inviter: stranger.peerID, key: strangerKey, role: .admin, expires: Date(timeIntervalSinceNow: 3600))
    try stranger.join(minted)
    expectRefused(stranger.peerID, "not a member of this group") { try push(stranger, to: b) }
    let request = try #require(try stranger.serializedEvents(beyond: VersionVector()).compactMap { try? MembershipEvent(verifying: $0) }.first)
    var roster = GroupRoster(group: group)
    roster.add(try a.membershipEvents())
    #expect(roster.add([request]).isEmpty)
    #expect(!roster.history.contains(request.hash))
  }

  /// A revoked junior admin's changes made beside its counter-revocation
  /// (all built on the same old history) stay void with it: the admin it
  /// added is no member, on every device and at the relay.
  @Test func aRevokedAdminsChangesBesideItsCounterRevocationStayVoid() throws {
    try a.createGroup()
    try b.join(try a.invite(as: .admin))
    try push(b, to: a)
    try push(a, to: b)
    let observer = try openSyncPeer(directory, name: "observer.sqlite", clock: clock)
    try push(a, to: observer)
    let base = try b.read { db in try GroupMembership(db: db).history()!.resolve().heads }
    let w = try openSyncPeer(directory, name: "w.sqlite", clock: clock)
    let m = try openSyncPeer(directory, name: "m.sqlite", clock: clock)
    try a.addMember(publicKey: w.identity.publicKey)
    try a.revoke(b.peerID)
    let changes: [MembershipChange] = [
      .add(device: m.peerID, publicKey: try m.identity.publicKey, role: .admin, invitation: nil),
      .revoke(device: a.peerID, afterSequence: 0, checkpoints: []), .changeRole(device: a.peerID, role: .reader, afterSequence: nil, checkpoints: []),
    ]
    for change in changes { try forge(b, [.builtOn(base), change], builtOn: false) }
    try push(b, to: observer)
    try push(a, to: observer)
    #expect(try member(observer, m.peerID) == nil)
    #expect(try member(observer, a.peerID)?.isActiveAdmin == true)
    #expect(try member(observer, b.peerID)?.isActive == false)
    #expect(try member(observer, w.peerID)?.isActive == true)
    var roster = GroupRoster(group: try #require(try a.group))
    roster.add(try observer.membershipEvents().shuffled())
    #expect(roster.members[m.peerID] == nil && roster.members[a.peerID]?.isActiveAdmin == true)
  }
}
