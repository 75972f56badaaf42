import Crypto
import Foundation

/// A group content key sealed to one member's device, carried by an admin's
/// membership event (``MembershipChange/shareKeys(ephemeral:grants:)``).
///
/// The group's content keys have epochs: the group's creation, every
/// revocation and every `chronicle rekey` start a new one, whose key is
/// sealed to each remaining member and to no one else. Data that leaves a
/// device for a relay is sealed with the current epoch's key, so a revoked
/// device, which is granted no key from its revocation on, reads nothing
/// written after it.
public struct KeyGrant: Hashable, Sendable {
  /// The epoch whose key this is: the hash of the membership event that
  /// started it; nil for the epoch the event carrying the grant starts.
  public var epoch: MembershipHash?
  /// The device it is sealed to.
  public var device: PeerID
  /// The 32-byte key, sealed (ChaCha20-Poly1305: 32 bytes and a 16-byte tag).
  public var sealed: [UInt8]

  static let sealedSize = 32 + 16

  public init(epoch: MembershipHash?, device: PeerID, sealed: [UInt8]) {
    self.epoch = epoch
    self.device = device
    self.sealed = sealed
  }
}

/// Seals epoch keys to devices and opens them: X25519 between a fresh
/// ephemeral key (one per change) and the recipient's agreement key
/// (``AgreementKey``), HKDF-SHA256 over the secret, both public keys, the
/// group and the recipient; ChaCha20-Poly1305 with the grant's place in its
/// change as nonce and the epoch it names as associated data.
enum EpochKeySealing {
  /// A new ephemeral key for one change's grants.
  static func ephemeral() -> Curve25519.KeyAgreement.PrivateKey { Curve25519.KeyAgreement.PrivateKey() }

  /// A new random epoch key.
  static func newKey() -> [UInt8] { SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) } }

  /// `key` sealed to the device that signs with `signingKey`, as grant
  /// `index` of a change; nil when that key has no agreement form.
  static func seal(
    _ key: [UInt8], epoch: MembershipHash?, to device: PeerID, signingKey: [UInt8], index: Int,
    ephemeral: Curve25519.KeyAgreement.PrivateKey, group: UUID
  ) -> KeyGrant? {
    guard let recipient = AgreementKey.publicKey(ofSigningKey: signingKey),
          let wrap = wrapKey(ephemeral: ephemeral.publicKey.rawRepresentation, recipient: recipient.rawRepresentation, group: group, device: device,
            secret: { try ephemeral.sharedSecretFromKeyAgreement(with: recipient) }),
          let box = try? ChaChaPoly.seal(key, using: wrap, nonce: nonce(index), authenticating: epoch?.bytes ?? noEpoch)
    else { return nil }
    return KeyGrant(epoch: epoch, device: device, sealed: Array(box.ciphertext) + Array(box.tag))
  }

  /// The key in `grant`, grant `index` of a change with `ephemeral`, opened
  /// with this device's key; nil when it is not sealed to it.
  static func open(_ grant: KeyGrant, index: Int, ephemeral: [UInt8], group: UUID, with device: DeviceKey) -> [UInt8]? {
    let own = AgreementKey.privateKey(of: device)
    guard grant.sealed.count == KeyGrant.sealedSize,
          let sender = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: ephemeral),
          let wrap = wrapKey(ephemeral: ephemeral, recipient: own.publicKey.rawRepresentation, group: group, device: grant.device,
            secret: { try own.sharedSecretFromKeyAgreement(with: sender) }),
          let box = try? ChaChaPoly.SealedBox(nonce: nonce(index), ciphertext: grant.sealed.prefix(32), tag: grant.sealed.suffix(16)),
          let key = try? ChaChaPoly.open(box, using: wrap, authenticating: grant.epoch?.bytes ?? noEpoch)
    else { return nil }
    return Array(key)
  }

  private static let noEpoch = [UInt8](repeating: 0, count: 32)

  private static func wrapKey(
    ephemeral: some DataProtocol, recipient: some DataProtocol, group: UUID, device: PeerID, secret: () throws -> SharedSecret
  ) -> SymmetricKey? {
    // A low-order point gives the all-zero secret, whatever the other key.
    guard let shared = try? secret(), shared.withUnsafeBytes({ $0.contains { $0 != 0 } }) else { return nil }
    return shared.hkdfDerivedSymmetricKey(
      using: SHA256.self, salt: Array(ephemeral) + Array(recipient),
      sharedInfo: Array("chronicle epoch key v1".utf8) + PeerID(group).bytes + device.bytes, outputByteCount: 32)
  }

  private static func nonce(_ index: Int) -> ChaChaPoly.Nonce {
    var bytes = [UInt8](repeating: 0, count: 12)
    for shift in 0..<8 { bytes[11 - shift] = UInt8(truncatingIfNeeded: UInt64(index) >> (8 * UInt64(shift))) }
    return try! ChaChaPoly.Nonce(data: bytes)  // 12 bytes: always valid
  }
}
