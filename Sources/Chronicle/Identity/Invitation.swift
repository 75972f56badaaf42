import Crypto
import Foundation

/// An invitation into a group, signed by an admin: a device that holds it
/// asks to join (``ChronicleDatabase/join(_:)``), and the first admin device
/// that sees the request while the invitation is valid by its own clock
/// admits it, once. Share it as ``text`` over a channel you trust.
///
/// An invitation admits one device: a second request with it is refused by
/// every admin, and so is a request an admin first sees after the expiry,
/// whatever date the requesting device put on it. Its text holds a secret
/// key that never leaves the joining device: a join request carries the
/// signed part and a signature of the joining device's key made with the
/// secret key, so whoever sees a request (a member, the relay) cannot ask
/// to join with it under another key.
public struct Invitation: Hashable, Sendable, CustomStringConvertible {
  /// The signed part: group (16), inviter (16), inviter's public key (32),
  /// invitation id (16), expiry in milliseconds since 1970 (u64), the role
  /// it grants (1: reader, 2: writer, 3: admin), the invitation's public key
  /// (32); then the inviter's Ed25519 signature (64) of those 121 bytes.
  public let bytes: [UInt8]
  /// The invitation's private key (its 32-byte seed); nil in an invitation
  /// read from a join request.
  let secret: [UInt8]?

  static let signedSize = 16 + 16 + 32 + 16 + 8 + 1 + 32
  static let size = signedSize + 64
  static let prefix = "chronicle-invitation-v2:"
  static let olderPrefix = "chronicle-invitation-v1:"

  init?(bytes: [UInt8], secret: [UInt8]? = nil) {
    guard bytes.count == Self.size, PeerID(bytes: bytes[16..<32]) != nil, MemberRole(code: bytes[88]) != nil else { return nil }
    if let secret {
      guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: secret),
            Array(key.publicKey.rawRepresentation) == Array(bytes[89..<121])
      else { return nil }
    }
    self.bytes = bytes
    self.secret = secret
  }

  /// An invitation into `group` for a device of `role`, signed by `inviter` with `key`.
  init(group: UUID, inviter: PeerID, key: DeviceKey, id: UUID = UUID(), role: MemberRole, expires: Date) {
    let invitationKey = Curve25519.Signing.PrivateKey()
    var writer = BinaryWriter(capacity: Self.size)
    writer.writeBytes(withUnsafeBytes(of: group.uuid) { Array($0) })
    writer.writeBytes(inviter.bytes)
    writer.writeBytes(key.publicKey)
    writer.writeBytes(withUnsafeBytes(of: id.uuid) { Array($0) })
    writer.writeUInt64BigEndian(UInt64(max(0, expires.timeIntervalSince1970 * 1000)))
    writer.writeByte(role.code)
    writer.writeBytes(invitationKey.publicKey.rawRepresentation)
    let signed = writer.bytes
    bytes = signed + key.sign(signed)
    secret = Array(invitationKey.rawRepresentation)
  }

  /// Reads an invitation from its ``text`` form.
  ///
  /// - Throws: ``ChronicleError/invalidInvitation(_:)`` when it is not one.
  public init(text: String) throws {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if trimmed.hasPrefix(Self.olderPrefix) {
      throw ChronicleError.invalidInvitation(
        "it is from an older Chronicle (\(Self.olderPrefix)), whose invitations could be reused: ask an admin for a new one (chronicle invite)")
    }
    guard trimmed.hasPrefix(Self.prefix), let data = Data(base64Encoded: String(trimmed.dropFirst(Self.prefix.count))),
          data.count == Self.size + 32, let invitation = Invitation(bytes: Array(data.prefix(Self.size)), secret: Array(data.suffix(32)))
    else { throw ChronicleError.invalidInvitation("not a Chronicle invitation (it starts with \(Self.prefix), as chronicle invite prints it)") }
    self = invitation
  }

  /// The invitation as one line of text, its secret key included.
  public var text: String { Self.prefix + Data(bytes + (secret ?? [])).base64EncodedString() }
  public var description: String { "invitation \(id.uuidString.lowercased()) into group \(group.uuidString.lowercased()) as \(role)" }

  /// The group it admits into.
  public var group: UUID { PeerID(bytes: bytes[0..<16])!.uuid }
  /// The admin who signed it.
  public var inviter: PeerID { PeerID(bytes: bytes[16..<32])! }
  /// The inviter's public key.
  public var inviterKey: [UInt8] { Array(bytes[32..<64]) }
  /// Its id: an admin admits one device with it, and can withdraw it by this id.
  public var id: UUID { PeerID(bytes: bytes[64..<80])!.uuid }
  /// When admins stop admitting with it (by their own clocks).
  public var expires: Date {
    let milliseconds = bytes[80..<88].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
  }
  /// The role of the device it admits.
  public var role: MemberRole { MemberRole(code: bytes[88])! }

  /// Whether the signature is the inviter key's.
  var isSignatureValid: Bool {
    guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: inviterKey) else { return false }
    return key.isValidSignature(bytes[Self.signedSize...], for: bytes[..<Self.signedSize])
  }

  /// Why it is not the inviter's own (altered, forged, or signed by another
  /// key than the inviter's id comes from); nil when it is.
  var signatureProblem: String? {
    guard isSignatureValid else { return "is not signed by the key it names (altered or forged)" }
    if inviter.isKeyDerived, PeerID(publicKey: inviterKey) != inviter { return "is signed by another key than its inviter's" }
    return nil
  }

  /// The invitation as a join request carries it: without its secret.
  var withoutSecret: Invitation { Invitation(bytes: bytes)! }

  /// What a joining device signs with the invitation's key: its own id and key.
  private static func proofTranscript(device: PeerID, publicKey: [UInt8]) -> [UInt8] {
    Array("chronicle join v2".utf8) + device.bytes + publicKey
  }

  /// Proof that the holder of the secret asks to join as `device` with `publicKey`.
  func proof(device: PeerID, publicKey: [UInt8]) -> [UInt8]? {
    guard let secret, let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: secret) else { return nil }
    return Array((try? key.signature(for: Self.proofTranscript(device: device, publicKey: publicKey))) ?? Data())
  }

  /// Whether `proof` shows that the holder of this invitation's secret asked
  /// to join as `device` with `publicKey`.
  func isProofValid(_ proof: [UInt8], device: PeerID, publicKey: [UInt8]) -> Bool {
    guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: bytes[89..<121]) else { return false }
    return key.isValidSignature(proof, for: Self.proofTranscript(device: device, publicKey: publicKey))
  }
}
