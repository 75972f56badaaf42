import Crypto
import Foundation

/// An invitation into a group, signed by a member: whoever holds it can join
/// (``ChronicleDatabase/join(_:)``) until it expires. Share it as
/// ``text`` over a channel you trust, as you would a password.
public struct Invitation: Hashable, Sendable, CustomStringConvertible {
  /// The serialized invitation: group (16), inviter (16), inviter's public
  /// key (32), invitation id (16), expiry in milliseconds since 1970 (u64),
  /// then the inviter's Ed25519 signature (64) of those 88 bytes.
  public let bytes: [UInt8]

  static let signedSize = 16 + 16 + 32 + 16 + 8
  static let size = signedSize + 64
  static let prefix = "chronicle-invitation-v1:"

  init?(bytes: [UInt8]) {
    guard bytes.count == Self.size, PeerID(bytes: bytes[16..<32]) != nil else { return nil }
    self.bytes = bytes
  }

  /// An invitation into `group`, signed by `inviter` with `key`.
  init(group: UUID, inviter: PeerID, key: DeviceKey, id: UUID = UUID(), expires: Date) {
    var writer = BinaryWriter(capacity: Self.size)
    writer.writeBytes(withUnsafeBytes(of: group.uuid) { Array($0) })
    writer.writeBytes(inviter.bytes)
    writer.writeBytes(key.publicKey)
    writer.writeBytes(withUnsafeBytes(of: id.uuid) { Array($0) })
    writer.writeUInt64BigEndian(UInt64(max(0, expires.timeIntervalSince1970 * 1000)))
    let signed = writer.bytes
    bytes = signed + key.sign(signed)
  }

  /// Reads an invitation from its ``text`` form.
  ///
  /// - Throws: ``ChronicleError/invalidInvitation(_:)`` when it is not one.
  public init(text: String) throws {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard trimmed.hasPrefix(Self.prefix), let data = Data(base64Encoded: String(trimmed.dropFirst(Self.prefix.count))),
          let invitation = Invitation(bytes: Array(data))
    else { throw ChronicleError.invalidInvitation("not a Chronicle invitation (it starts with \(Self.prefix), as chronicle invite prints it)") }
    self = invitation
  }

  /// The invitation as one line of text.
  public var text: String { Self.prefix + Data(bytes).base64EncodedString() }
  public var description: String { text }

  /// The group it admits into.
  public var group: UUID { UUID(uuid: PeerID(bytes: bytes[0..<16])!.uuid.uuid) }
  /// The member who signed it.
  public var inviter: PeerID { PeerID(bytes: bytes[16..<32])! }
  /// The inviter's public key.
  public var inviterKey: [UInt8] { Array(bytes[32..<64]) }
  /// When it stops admitting.
  public var expires: Date {
    let milliseconds = bytes[80..<88].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
  }

  /// Whether the signature is the inviter key's.
  var isSignatureValid: Bool {
    guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: inviterKey) else { return false }
    return key.isValidSignature(bytes[Self.signedSize...], for: bytes[..<Self.signedSize])
  }
}
