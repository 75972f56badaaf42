import Crypto
import Foundation

/// The signature block of a signed event (`Schemas/EVENT-FORMAT.md`): after
/// the body, the signer's 32-byte Ed25519 public key, in version 3 the
/// 32-byte link to its origin's previous event (``historyDigest(of:)``),
/// and the 64-byte signature over every byte before it; then the CRC-32.
///
/// A device writes its events as version 1 (unsigned) at commit and signs
/// them, in sequence order, before they leave it (``seal(_:linkedTo:with:)``):
/// signing costs more than a small commit, and an event that never leaves
/// its device needs no proof. The links make each device's events a hash
/// chain: a revocation names the digests of some of the revoked device's
/// events its revoker held (checkpoints), and a receiver takes that device's
/// earlier events only when they lead to them (``RevokedHistory``), so a
/// revoked device cannot sign new contents for sequences a peer has not
/// seen yet.
enum EventSignature {
  static let publicKeySize = 32
  static let linkSize = 32
  static let signatureSize = 64
  /// The format version of signed events with a link (older ones: 2, without).
  static let linkedVersion: UInt8 = 3

  /// The size of the signature block of a signed event of `version` (2 or 3).
  static func blockSize(version: UInt8) -> Int {
    version >= linkedVersion ? publicKeySize + linkSize + signatureSize : publicKeySize + signatureSize
  }

  /// The link to no event: the first event of its device, or one whose
  /// previous event its device no longer held when it signed it.
  static let noLink = [UInt8](repeating: 0, count: linkSize)

  /// The signed form of an unsigned (version 1) serialized event, by `key`,
  /// linked to `link` (the ``historyDigest(of:)`` of its origin's previous
  /// event, or ``noLink``).
  static func seal(_ unsigned: [UInt8], linkedTo link: [UInt8], with key: DeviceKey) -> [UInt8] {
    sign(covered(unsigned, linkedTo: link, key: key), with: key)
  }

  /// What the signature of `unsigned`'s signed form covers: the event
  /// with version 3, then the signer's key and the link. Its SHA-256 is
  /// the event's ``historyDigest(of:)``, so a device links its next event
  /// before this one is signed (the signatures are made on all cores).
  static func covered(_ unsigned: [UInt8], linkedTo link: [UInt8], key: DeviceKey) -> [UInt8] {
    precondition(unsigned.count > 9 && unsigned[4] == 1, "only version 1 events are sealed")
    precondition(link.count == linkSize)
    var covered = Array(unsigned.dropLast(4))
    covered.reserveCapacity(unsigned.count + blockSize(version: linkedVersion))
    covered[4] = linkedVersion
    covered += key.publicKey
    covered += link
    return covered
  }

  /// `covered` signed by `key`, with its checksum: a serialized event.
  static func sign(_ covered: [UInt8], with key: DeviceKey) -> [UInt8] {
    var signed = covered
    signed += key.sign(covered)
    var writer = BinaryWriter(capacity: 4)
    writer.writeUInt32BigEndian(Zlib.crc32(signed[...]))
    return signed + writer.bytes
  }

  /// The digest that the next event of the same origin links to: SHA-256
  /// of what the event's signature covers (its signature and checksum
  /// left out), or of an unsigned event without its checksum.
  static func historyDigest(of bytes: [UInt8]) -> [UInt8] {
    Array(SHA256.hash(data: coveredPart(of: bytes)))
  }

  /// ``historyDigest(of:)`` of the bytes a signature covers, as ``covered(_:linkedTo:key:)`` returns them.
  static func historyDigest(ofCovered covered: [UInt8]) -> [UInt8] {
    Array(SHA256.hash(data: covered))
  }

  private static func coveredPart(of bytes: [UInt8]) -> ArraySlice<UInt8> {
    guard bytes.count > 9 else { return bytes[...] }
    let end = bytes.count - 4
    return bytes[4] >= 2 && end > signatureSize ? bytes[..<(end - signatureSize)] : bytes[..<end]
  }

  /// The link a version 3 event carries to its origin's previous event;
  /// nil for an older or unsigned one (or a link to no event).
  static func link(of signed: [UInt8]) -> [UInt8]? {
    guard signed.count > blockSize(version: linkedVersion) + 9, signed[4] >= linkedVersion else { return nil }
    let end = signed.count - 4 - signatureSize
    let link = Array(signed[(end - linkSize)..<end])
    return link == noLink ? nil : link
  }

  /// The signer's public key of a signed event whose signature holds.
  ///
  /// - Throws: ``Problem/badSignature`` when it does not (tampered or forged).
  static func verifiedSigner(of signed: [UInt8]) throws(Problem) -> [UInt8] {
    let end = signed.count - 4
    guard signed.count > 9, signed[4] >= 2, signed.count > blockSize(version: signed[4]) + 9 else { throw .unsigned }
    let keyStart = end - blockSize(version: signed[4])
    let publicKey = Array(signed[keyStart..<(keyStart + publicKeySize)])
    let signature = signed[(end - signatureSize)..<end]
    guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey),
          key.isValidSignature(signature, for: signed[..<(end - signatureSize)])
    else { throw .badSignature }
    return publicKey
  }

  /// The public key a signed event carries, unchecked: for events whose
  /// signature was checked before (or, measuring, is not checked).
  static func embeddedSigner(of signed: [UInt8]) -> [UInt8] {
    let keyStart = signed.count - 4 - blockSize(version: signed[4])
    return Array(signed[keyStart..<(keyStart + publicKeySize)])
  }

  /// Why a signed event is not its origin's (its signature does not verify,
  /// or its key is not the one its key-derived origin comes from); nil for a
  /// sound or an unsigned event. Binding a key to an older (not key-derived)
  /// origin takes the log's device records: admission and verify check that.
  static func originProblem(of bytes: [UInt8], origin: PeerID) -> Problem? {
    guard bytes.count > 4, bytes[4] >= 2 else { return nil }
    do {
      let signer = try verifiedSigner(of: bytes)
      return origin.isKeyDerived && PeerID(publicKey: signer) != origin ? .notTheOriginsKey : nil
    } catch {
      return error
    }
  }

  /// How a receiver words the refusal of an event whose origin `problem` leaves unproven.
  static func reason(_ problem: Problem) -> String {
    problem.description + ": the peer that sent it holds a forged or damaged copy (chronicle verify on it names the event)"
  }

  /// Why an event's origin is not proven.
  enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
    /// A version 1 event: no signature.
    case unsigned
    /// The signature does not verify over the event's bytes.
    case badSignature
    /// Signed by a key that is not the origin's.
    case notTheOriginsKey

    var description: String {
      switch self {
      case .unsigned: "it is not signed, and this device signs its events"
      case .badSignature: "its signature does not verify: it was changed after signing, or forged"
      case .notTheOriginsKey: "it is signed by another device's key than its origin's (a forgery under another device's id)"
      }
    }
  }
}
