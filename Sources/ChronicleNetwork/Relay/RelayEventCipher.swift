import Chronicle
import Crypto
import Foundation

/// Seals events with the group's key before they reach a relay, and opens
/// them on the devices that receive them: the relay stores and forwards
/// ciphertext it cannot read.
///
/// ChaCha20-Poly1305 under a key derived from the group key and the group's
/// id (HKDF-SHA256), with a random nonce per event. The event's group,
/// origin and sequence are authenticated with it, so a relay cannot pass
/// one event off as another (or as another group's).
package struct RelayEventCipher: Sendable {
  private let keyBytes: [UInt8]
  private let group: UUID
  private var key: SymmetricKey { SymmetricKey(data: keyBytes) }

  /// Bytes a sealed event adds to its event: nonce and tag.
  package static let overhead = 12 + 16

  package init(key: SyncKey, group: UUID) {
    self.group = group
    keyBytes = HKDF<SHA256>.deriveKey(
      inputKeyMaterial: key.key, salt: PeerID(group).bytes, info: Array("chronicle relay events v1".utf8), outputByteCount: 32
    ).withUnsafeBytes { Array($0) }
  }

  package func seal(_ event: [UInt8], origin: PeerID, sequence: UInt64) throws -> SealedEvent {
    let box = try ChaChaPoly.seal(event, using: key, authenticating: associatedData(origin, sequence))
    return SealedEvent(origin: origin, sequence: sequence, sealed: Array(box.combined))
  }

  /// The event inside `sealed`.
  ///
  /// - Throws: ``RelayError/unreadableEvent(_:reason:)`` when it was not
  ///   sealed with this group's key for that origin and sequence.
  package func open(_ sealed: SealedEvent) throws -> [UInt8] {
    do {
      let box = try ChaChaPoly.SealedBox(combined: sealed.sealed)
      return Array(try ChaChaPoly.open(box, using: key, authenticating: associatedData(sealed.origin, sealed.sequence)))
    } catch {
      throw RelayError.unreadableEvent(
        "\(sealed.origin.shortDescription):\(sealed.sequence)",
        reason: "it does not open with this group's key (a different key file than the device that wrote it, or altered on the way)")
    }
  }

  private func associatedData(_ origin: PeerID, _ sequence: UInt64) -> [UInt8] {
    var data = Array("chronicle relay v1".utf8) + PeerID(group).bytes + origin.bytes
    withUnsafeBytes(of: sequence.bigEndian) { data += $0 }
    return data
  }
}
