import Crypto
import Foundation

/// Seals events with the group's current content key before they reach a
/// relay, and opens them on the devices that receive them: the relay stores
/// and forwards ciphertext it cannot read.
///
/// Two forms, told apart by their first byte:
/// - `0x01`, epoch (32 bytes), nonce, ciphertext, tag: a data event, sealed
///   with ChaCha20-Poly1305 under a key derived (HKDF-SHA256) from the key
///   of that epoch (``GroupKeyring``) and the group's id. The nonce is
///   derived from the epoch's key and the event (HMAC-SHA256, under a second
///   key derived from the epoch's, of the associated data and the event's
///   SHA-256), so every member holding that epoch's key
///   seals an event to the same bytes: what its origin signed for the relay
///   (``EventRoute``) holds for the copy any member forwards. A nonce repeats
///   only with its event. The group, origin, sequence and epoch are
///   authenticated with it, so a relay cannot pass one event off as
///   another, or as another group's.
/// - `0x00` and the signed event: a membership event, which the relay reads
///   in the clear anyway (it admits devices by it) and which carries the
///   sealed grants of the keys a device needs to open the rest.
///
/// Each revocation starts a new epoch whose key the revoked device is not
/// granted: what is sealed after it, it cannot open.
package struct RelayEventCipher: Sendable {
  package private(set) var keyring: GroupKeyring
  private var derived: [MembershipHash: [UInt8]] = [:]
  /// Per epoch, the key nonces are derived with (apart from the sealing key).
  private var nonceKeys: [MembershipHash: [UInt8]] = [:]

  /// Bytes a sealed data event adds to its event: form, epoch, nonce and tag.
  package static let overhead = 1 + 32 + 12 + 16

  private static let clearForm: UInt8 = 0, sealedForm: UInt8 = 1

  package init(keyring: GroupKeyring) {
    self.keyring = keyring
    for (epoch, key) in keyring.keys {
      derived[epoch] = Self.derive(key, group: keyring.group, info: "chronicle relay events v2")
      nonceKeys[epoch] = Self.derive(key, group: keyring.group, info: "chronicle relay nonces v1")
    }
  }

  private static func derive(_ epochKey: [UInt8], group: UUID, info: String) -> [UInt8] {
    HKDF<SHA256>.deriveKey(
      inputKeyMaterial: SymmetricKey(data: epochKey), salt: PeerID(group).bytes, info: Array(info.utf8), outputByteCount: 32
    ).withUnsafeBytes { Array($0) }
  }

  /// Whether this device holds the key new data is sealed with.
  package var canSealData: Bool { keyring.sealingEpoch != nil }

  /// Whether it holds the key of `epoch`.
  package func holds(_ epoch: MembershipHash) -> Bool { derived[epoch] != nil }

  /// `event` as the relay stores it: a membership event (`isMembership`) in
  /// the clear, any other sealed with the current epoch's key.
  ///
  /// - Throws: ``NoKey`` for a data event while this device holds no key
  ///   of the group's current epoch.
  package func seal(_ event: [UInt8], origin: PeerID, sequence: UInt64, isMembership: Bool) throws -> SealedEvent {
    if isMembership {
      return SealedEvent(origin: origin, sequence: sequence, sealed: [Self.clearForm] + event)
    }
    guard let epoch = keyring.sealingEpoch, derived[epoch] != nil else {
      throw NoKey(reason:
        keyring.currentEpoch == nil
          ? "the group has no key epoch yet: an admin's device starts one when it next syncs (or chronicle rekey DB on it)"
          : "this device was not granted the key of the group's current epoch \(keyring.currentEpoch!) yet: an admin's device shares it when it next syncs")
    }
    return try seal(event, origin: origin, sequence: sequence, epoch: epoch)!
  }

  /// `event` sealed with the key of `epoch` (the same bytes on every device
  /// that holds it); nil when this device holds no grant of that epoch.
  package func seal(_ event: [UInt8], origin: PeerID, sequence: UInt64, epoch: MembershipHash) throws -> SealedEvent? {
    guard let key = derived[epoch], let nonceKey = nonceKeys[epoch] else { return nil }
    let associated = associatedData(origin, sequence, epoch)
    var nonceInput = associated
    nonceInput += SHA256.hash(data: event)
    let nonce = HMAC<SHA256>.authenticationCode(for: nonceInput, using: SymmetricKey(data: nonceKey)).prefix(12)
    let box = try ChaChaPoly.seal(
      event, using: SymmetricKey(data: key), nonce: try ChaChaPoly.Nonce(data: Array(nonce)), authenticating: associated)
    return SealedEvent(origin: origin, sequence: sequence, sealed: [Self.sealedForm] + epoch.bytes + Array(box.combined))
  }

  /// The epoch a sealed data event names; nil for a membership event in
  /// the clear or bytes of no known form.
  package static func epoch(of sealed: [UInt8]) -> MembershipHash? {
    guard sealed.first == sealedForm, sealed.count >= overhead else { return nil }
    return MembershipHash(bytes: sealed[1..<33])
  }

  /// Whether `sealed` is a membership event in the clear.
  package static func isClear(_ sealed: [UInt8]) -> Bool { sealed.first == clearForm }

  /// Why this device cannot seal a data event now.
  package struct NoKey: Error {
    package var reason: String
  }

  /// Why a sealed event does not open.
  package enum OpenFailure: Error {
    /// Sealed with the key of an epoch this device holds no grant of (yet).
    case keyNotHeld(MembershipHash)
    /// Not sealed with this group's keys for that origin and sequence, or damaged.
    case unreadable(String)
  }

  /// The event inside `sealed`.
  package func open(_ sealed: SealedEvent) throws(OpenFailure) -> [UInt8] {
    guard let form = sealed.sealed.first else { throw .unreadable("it is empty") }
    let body = sealed.sealed.dropFirst()
    switch form {
    case Self.clearForm:
      let event = Array(body)
      guard let membership = try? MembershipEvent(verifying: event),
            membership.origin == sealed.origin, membership.sequence == sealed.sequence
      else { throw .unreadable("it travels in the clear, but is not a signed membership event of \(sealed.origin.shortDescription):\(sealed.sequence)") }
      return event
    case Self.sealedForm:
      guard body.count >= 32 + 12 + 16, let epoch = MembershipHash(bytes: body.prefix(32)) else { throw .unreadable("it is truncated") }
      guard let key = derived[epoch] else { throw .keyNotHeld(epoch) }
      do {
        let box = try ChaChaPoly.SealedBox(combined: body.dropFirst(32))
        return Array(try ChaChaPoly.open(box, using: SymmetricKey(data: key), authenticating: associatedData(sealed.origin, sealed.sequence, epoch)))
      } catch {
        throw .unreadable("it does not open with the key of epoch \(epoch) for that origin and sequence (altered on the way, or sealed as another event)")
      }
    default:
      throw .unreadable("it is of an unknown form (\(form)): a newer Chronicle sealed it, or it is damaged")
    }
  }

  private func associatedData(_ origin: PeerID, _ sequence: UInt64, _ epoch: MembershipHash) -> [UInt8] {
    var data = Array("chronicle relay v2".utf8) + PeerID(keyring.group).bytes + origin.bytes
    withUnsafeBytes(of: sequence.bigEndian) { data += $0 }
    return data + epoch.bytes
  }
}
