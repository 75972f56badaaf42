import ChronicleTestSupport
import Foundation
import Testing

@testable import Chronicle

/// The group's content keys: each device's agreement key is derived from
/// its signing key, epoch keys are sealed to it, and only it opens them.
@Suite("Group keys: agreement keys, sealed grants, epochs")
struct GroupKeyTests {
  /// The agreement public key computed from a signing public key (Edwards
  /// to Montgomery) is the one the device's own agreement private key has:
  /// anyone seals to a member knowing only the key it signs with.
  @Test func theAgreementKeyOfASigningKeyIsTheDevicesOwn() throws {
    for _ in 0..<64 {
      let device = DeviceKey.generate()
      let fromPublic = try #require(AgreementKey.publicKey(ofSigningKey: device.publicKey)?.rawRepresentation)
      #expect(Array(fromPublic) == device.agreementPublicKey)
    }
    // The Ed25519 base point (y = 4/5) is the X25519 base point (u = 9).
    let basePoint = [UInt8](hexadecimal: "5866666666666666666666666666666666666666666666666666666666666666")!
    let u = try #require(AgreementKey.publicKey(ofSigningKey: basePoint)?.rawRepresentation)
    #expect(Array(u) == [9] + [UInt8](repeating: 0, count: 31))
  }

  @Test func aGrantOpensOnlyForItsDeviceItsEpochAndItsPlace() throws {
    let group = UUID(), alice = DeviceKey.generate(), mallory = DeviceKey.generate()
    let epoch = MembershipHash(bytes: [UInt8](repeating: 7, count: 32))!
    let key = EpochKeySealing.newKey()
    let ephemeral = EpochKeySealing.ephemeral()
    let grant = try #require(EpochKeySealing.seal(
      key, epoch: epoch, to: alice.derivedPeerID, signingKey: alice.publicKey, index: 3, ephemeral: ephemeral, group: group))
    let ephemeralPublic = Array(ephemeral.publicKey.rawRepresentation)
    #expect(EpochKeySealing.open(grant, index: 3, ephemeral: ephemeralPublic, group: group, with: alice) == key)
    #expect(EpochKeySealing.open(grant, index: 3, ephemeral: ephemeralPublic, group: group, with: mallory) == nil)
    #expect(EpochKeySealing.open(grant, index: 2, ephemeral: ephemeralPublic, group: group, with: alice) == nil)
    #expect(EpochKeySealing.open(grant, index: 3, ephemeral: ephemeralPublic, group: UUID(), with: alice) == nil)
    var otherEpoch = grant
    otherEpoch.epoch = nil
    #expect(EpochKeySealing.open(otherEpoch, index: 3, ephemeral: ephemeralPublic, group: group, with: alice) == nil)
    // Addressed to Mallory's id, still sealed to Alice's key: opens for no one.
    var readdressed = grant
    readdressed.device = mallory.derivedPeerID
    #expect(EpochKeySealing.open(readdressed, index: 3, ephemeral: ephemeralPublic, group: group, with: mallory) == nil)
    #expect(EpochKeySealing.open(readdressed, index: 3, ephemeral: ephemeralPublic, group: group, with: alice) == nil)
  }

  /// Two admins revoke two devices without seeing each other's change: each
  /// new epoch's key went to the device the other revoked. Whichever epoch
  /// is current, an admin's device that sees it exposed starts another, and
  /// neither revoked device holds the key the group seals with after that;
  /// meanwhile a writer seals with none of the exposed keys.
  @Test func concurrentRevocationsEndInAnEpochNeitherRevokedDeviceHolds() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let peers = try ["a", "b", "c", "d", "e"].map { try openSyncPeer(directory, name: "\($0).sqlite", clock: clock) }
    let (a, b, c, d, e) = (peers[0], peers[1], peers[2], peers[3], peers[4])
    try a.createGroup()
    for device in [b, c, d, e] {
      try device.join(try a.invite(as: device === b ? .admin : .writer))
      try push(device, to: a)
    }
    for device in [b, c, d, e] { try push(a, to: device) }
    func keyring(_ device: ChronicleDatabase) throws -> GroupKeyring { try #require(try device.groupKeyring()) }
    #expect(try keyring(c).sealingEpoch == keyring(a).sealingEpoch)
    // Concurrently: a revokes c, b revokes d.
    try a.revoke(c.peerID)
    try b.revoke(d.peerID)
    #expect(try keyring(d).sealingEpoch == nil || keyring(d).currentEpoch != keyring(a).currentEpoch)
    // A writer that holds both revocations (and cannot start an epoch)
    // seals with no key either revoked device holds: none, until an admin does.
    try push(a, to: e)
    try push(b, to: e)
    let waiting = try keyring(e)
    #expect(waiting.sealingEpoch == nil, "a writer seals with an epoch a revoked device holds")
    // They meet: each tends the keys once it holds both changes.
    try push(b, to: a)
    try push(a, to: b)
    try push(b, to: a)
    let current = try #require(try keyring(a).currentEpoch)
    #expect(try keyring(b).currentEpoch == current, "a and b agree on the epoch they seal with")
    #expect(try keyring(a).sealingEpoch == current && keyring(b).sealingEpoch == current)
    // The revoked devices receive everything (a copy of the history), and hold no key of it.
    for revoked in [c, d] {
      let history = try a.membershipEvents()
      let theirs = try #require(try revoked.groupKeyring(adding: history))
      #expect(theirs.currentEpoch == current)
      #expect(theirs.key(of: current) == nil, "a revoked device holds the group's current key")
    }
    try push(a, to: e)
    #expect(try keyring(e).sealingEpoch == current)
  }

  /// A revocation that grants its new key to a device whose addition turns
  /// out void (its adder was revoked by an admin that had not seen it)
  /// still revokes: a grant never refuses the change that carries it.
  @Test func aRevocationHoldsWhenOneOfItsGrantsGoesToADeviceWhoseAdditionIsVoid() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let peers = try ["a", "b", "c", "x", "n"].map { try openSyncPeer(directory, name: "\($0).sqlite", clock: clock) }
    let (a, b, c, x, n) = (peers[0], peers[1], peers[2], peers[3], peers[4])
    try a.createGroup()
    for device in [b, c, x] {
      try device.join(try a.invite(as: device === x ? .writer : .admin))
      try push(device, to: a)
    }
    for device in [b, c, x] { try push(a, to: device) }
    // a adds n (by its key: no request another admin could admit); b
    // revokes a without seeing it; c sees a's addition, not b's
    // revocation, and revokes x, granting its new key to n among others.
    try a.addMember(publicKey: n.identity.publicKey)
    try b.revoke(a.peerID)
    try push(a, to: c)
    try c.revoke(x.peerID)
    for (source, target) in [(b, c), (c, b), (a, b), (b, a), (c, a)] { try push(source, to: target) }
    for device in [a, b, c] {
      let members = try device.members()
      #expect(members.first { $0.device == x.peerID }?.isActive == false, "x is revoked on \(device.peerID)")
      #expect(members.first { $0.device == a.peerID }?.isActive == false)
      #expect(!members.contains { $0.device == n.peerID }, "n's addition is void")
    }
    // Whatever the current epoch, neither x nor n holds the key the group seals with.
    let sealing = try #require(try b.groupKeyring()?.sealingEpoch)
    #expect(try c.groupKeyring()?.sealingEpoch == sealing)
    let history = try b.membershipEvents()
    for outsider in [x, n, a] {
      #expect(try outsider.groupKeyring(adding: history)?.key(of: sealing) == nil)
    }
  }
}
