import Crypto
import Foundation

/// The signature block of a version 2 event (`Schemas/EVENT-FORMAT.md`):
/// after the body, the signer's 32-byte Ed25519 public key and its 64-byte
/// signature over every byte before the signature; then the CRC-32.
///
/// A device writes its events as version 1 (unsigned) at commit and signs
/// them before they leave it (``seal(_:with:)``): signing costs more than a
/// small commit, and an event that never leaves its device needs no proof.
enum EventSignature {
  static let publicKeySize = 32
  static let signatureSize = 64
  static let blockSize = publicKeySize + signatureSize

  /// The version 2 form of an unsigned (version 1) serialized event, signed by `key`.
  static func seal(_ unsigned: [UInt8], with key: DeviceKey) -> [UInt8] {
    precondition(unsigned.count > 9 && unsigned[4] == 1, "only version 1 events are sealed")
    var signed = Array(unsigned.dropLast(4))
    signed.reserveCapacity(unsigned.count + blockSize)
    signed[4] = 2
    signed += key.publicKey
    signed += key.sign(signed)
    var writer = BinaryWriter(capacity: 4)
    writer.writeUInt32BigEndian(Zlib.crc32(signed[...]))
    return signed + writer.bytes
  }

  /// The signer's public key of a version 2 event whose signature holds.
  ///
  /// - Throws: ``Problem/badSignature`` when it does not (tampered or forged).
  static func verifiedSigner(of signed: [UInt8]) throws(Problem) -> [UInt8] {
    let end = signed.count - 4
    guard signed.count > blockSize + 9, signed[4] == 2 else { throw .unsigned }
    let publicKey = Array(signed[(end - blockSize)..<(end - signatureSize)])
    let signature = signed[(end - signatureSize)..<end]
    guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey),
          key.isValidSignature(signature, for: signed[..<(end - signatureSize)])
    else { throw .badSignature }
    return publicKey
  }

  /// The public key a version 2 event carries, unchecked: for events whose
  /// signature was checked before (or, measuring, is not checked).
  static func embeddedSigner(of signed: [UInt8]) -> [UInt8] {
    let end = signed.count - 4
    return Array(signed[(end - blockSize)..<(end - signatureSize)])
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
