import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

/// Groups: a member list replicated as signed events; invitations admitted by
/// an admin's device, revocation, and events refused from devices that are
/// not (or no longer) members.
@Suite("Devices: group membership, invitations, revocation")
struct GroupMembershipTests: ThreePeers {
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

  @Test func aDeviceJoinsWithAnInvitationAndEveryMemberListsTheSameMembers() throws {
    try insert(a, 1, "Home")
    let group = try a.createGroup()
    #expect(try a.group == group)
    let invitation = try a.invite()
    #expect(try Invitation(text: invitation.text) == invitation)
    #expect(invitation.inviter == a.peerID && invitation.group == group)

    try b.join(try Invitation(text: invitation.text))
    #expect(try b.group == group)
    try insert(b, 2, "Work")
    try push(b, to: a)  // a learns b joined, then takes b's rows
    try push(a, to: b)
    #expect(try names(a) == ["Home", "Work"])
    #expect(try names(b) == ["Home", "Work"])

    let listed = try a.members()
    #expect(listed.map(\.device) == [a.peerID, b.peerID])
    #expect(listed.map(\.admission) == [.founder, .invitation])
    #expect(listed[1].addedBy == a.peerID)
    #expect(listed.allSatisfy { $0.isActive })
    #expect(try b.members().map(\.device) == listed.map(\.device))
    #expect(try b.members().map(\.admission) == [.founder, .invitation])
    #expect(try a.replayMatchesLive(directory) && b.replayMatchesLive(directory))
  }

  @Test func eventsFromADeviceOutsideTheGroupAreRefused() throws {
    try a.createGroup()
    try insert(c, 7, "Outsider")
    let before = try a.digests()
    expectRefused(c.peerID, "not a member") { try push(c, to: a) }
    #expect(try a.digests() == before)
    // A database that received the group's events is in the group too.
    try push(a, to: b)
    #expect(try b.group == (try a.group))
    expectRefused(c.peerID, "not a member") { try push(c, to: b) }
  }

  @Test func devicesThatSyncedBeforeTheGroupWasCreatedAreItsFoundingMembers() throws {
    try insert(b, 1, "From b")
    try push(b, to: a)
    try a.createGroup()
    #expect(try a.members().map(\.admission) == [.founder, .founding])
    // A founding member is an admin with its key: it can act as one.
    #expect(try a.members().last?.publicKey == b.identity.publicKey)
    #expect(try a.members().map(\.role) == [.admin, .admin])
    try insert(b, 2, "Still b")
    try push(a, to: b)
    try push(b, to: a)
    #expect(try names(a) == ["From b", "Still b"])
  }

  @Test func aRevokedDevicesLaterEventsAreRefusedByEveryPeerAndItsEarlierOnesStay() async throws {
    try a.createGroup()
    try b.join(try a.invite())
    try c.join(try a.invite())
    try insert(b, 1, "Before")
    try push(b, to: a)
    try push(c, to: a)
    try push(a, to: c)
    try a.revoke(b.peerID)
    let revoked = try #require(try a.members().first { $0.device == b.peerID })
    #expect(!revoked.isActive && revoked.revokedBy == a.peerID)
    try insert(b, 2, "After")

    // In memory, passed on by a member, as a bundle, and through a shared folder.
    expectRefused(b.peerID, "revoked by \(a.peerID.shortDescription)") { try push(b, to: a) }
    // c learns of the revocation, and gets b's late event from a, which
    // passes on what it refused for good: c refuses it too.
    expectRefused(b.peerID, "revoked", by: c) { try push(a, to: c) }
    // A settled refusal counts as held: no peer sends it again, and the same
    // copy in a bundle is nothing new.
    #expect(try c.versionVector()[b.peerID] == b.versionVector()[b.peerID])
    let bundle = directory.url.appendingPathComponent("b.chrb")
    try b.exportBundle(beyond: VersionVector(), to: bundle)
    let again = try c.applyRemote(bundle: Array(try Data(contentsOf: bundle)), source: "b.chrb")
    #expect(again.refused.isEmpty && again.appliedEvents == 0)
    let folder = directory.url.appendingPathComponent("shared")
    try await SyncEngine(for: b, transport: .directory(folder)).sendChanges()
    let report = try await SyncEngine(for: c, transport: .directory(folder)).fetchChanges()
    #expect(report.rejected.isEmpty && report.merged.refused.isEmpty && report.merged.appliedEvents == 0)
    #expect(try names(a) == ["Before"])
    #expect(try names(c) == ["Before"])
    // A revoked device cannot change the member list either.
    try push(a, to: b)
    #expect(throws: ChronicleError.self) { try b.revoke(a.peerID) }
  }

  @Test func anInvitationSignedByANonMemberOrAlteredIsRefused() throws {
    let group = try a.createGroup()
    try push(a, to: b)  // b holds the group's events but was never added
    // b signs an invitation into a's group although it is not a member.
    let bKey = try #require(try DeviceKey.read(from: b.identity.keyFile))
    let forged = Invitation(group: group, inviter: b.peerID, key: bKey, role: .admin, expires: Date(timeIntervalSinceNow: 3600))
    try c.join(forged)  // c cannot tell: it knows nothing of the group yet; no admin admits it
    try insert(c, 3, "Smuggled")
    expectRefused(c.peerID, "not a member") { try push(c, to: a) }
    #expect(try names(a).isEmpty)

    // An invitation altered after signing (a later expiry) is refused at once.
    var bytes = try a.invite(expiresIn: .seconds(60)).bytes
    bytes[87] ^= 0x40
    let altered = try #require(Invitation(bytes: bytes))
    let fresh = try openSyncPeer(directory, name: "d.sqlite", clock: clock)
    #expect(throws: ChronicleError.self) { try fresh.join(altered) }
    #expect(throws: ChronicleError.self) { try Invitation(text: "chronicle-invitation-v2:nonsense") }
    #expect(throws: ChronicleError.self) { try Invitation(text: "chronicle-invitation-v1:AAAA") }
    #expect(try fresh.group == nil)
  }

  @Test func anEventOfAnotherGroupIsRefused() throws {
    try a.createGroup()
    try c.createGroup()
    try insert(c, 9, "Other group")
    expectRefused(c.peerID, "another group") { try push(c, to: a) }
  }

  @Test func aCloneIsANewDeviceThatKnowsTheGroupAndJoinsIt() throws {
    let group = try a.createGroup()
    try insert(a, 1, "Home")
    let path = directory.path("clone.sqlite")
    let peer = try a.clone(into: path)
    var configuration = ChronicleConfiguration()
    configuration.wallClock = clock.reader(skew: 0)
    let clone = try Chronicle.open(path: path, configuration: configuration)
    #expect(try clone.peerID == peer && peer.isKeyDerived && clone.identity.canSign)
    #expect(try clone.group == group)
    #expect(try clone.members().map(\.device) == [a.peerID])
    try insert(clone, 2, "From the clone")
    expectRefused(peer, "not a member") { try push(clone, to: a) }
    try clone.write { db in try db.execute(sql: "DELETE FROM lists WHERE id = 2") }
    // Joined, it syncs.
    try clone.join(try a.invite())
    try insert(clone, 3, "After joining")
    try push(clone, to: a)
    #expect(try names(a) == ["Home", "After joining"])
    try push(a, to: clone)
    #expect(throws: ChronicleError.self) { try clone.join(try a.invite()) }  // a member already
  }

  @Test func knowingTheGroupsIDDoesNotLetADeviceEnrollItself() throws {
    let group = try a.createGroup()
    try b.join(try a.invite())
    try push(b, to: a)
    try push(a, to: c)  // c holds the group's events (and so its id) but was never invited
    // c writes a creation of a's group naming itself its founder.
    c.session.pendingMembership = [.createGroup(group: group, nonce: Array(repeating: 1, count: 16), founders: [])]
    try c.write { _ in }
    try insert(c, 5, "Enrolled?")
    expectRefused(c.peerID, "not a member") { try push(c, to: a) }
    expectRefused(c.peerID, "not a member") { try push(c, to: b) }
    #expect(try a.members().map(\.device) == [a.peerID, b.peerID])
  }

  /// Compaction drops old events from the log, not the group's history: the
  /// member list, the membership events a relay needs, and a clone made
  /// after it keep them, and changes made later resolve against them.
  @Test func compactionAndClonesKeepTheGroupsHistory() throws {
    try a.createGroup()
    try b.join(try a.invite())
    try push(b, to: a)
    try push(a, to: b)
    try push(b, to: a)
    let members = try a.members()
    let history = try a.membershipEvents().map(\.hash)
    let report = try a.compact(before: try a.versionVector())
    #expect(report.prunedEvents > 0)
    #expect(try a.members() == members)
    #expect(try a.membershipEvents().map(\.hash) == history)
    let path = directory.path("clone.sqlite")
    try a.clone(into: path)
    var configuration = ChronicleConfiguration()
    configuration.wallClock = clock.reader(skew: 0)
    let clone = try Chronicle.open(path: path, configuration: configuration)
    #expect(try clone.membershipEvents().map(\.hash) == history)
    try a.revoke(b.peerID)  // built on the history the log no longer holds
    #expect(try a.members().first { $0.device == b.peerID }?.isActive == false)
    try push(a, to: b)
    #expect(try b.members().first { $0.device == b.peerID }?.isActive == false)
  }
}
