import Crypto
import Foundation

/// What an event's origin signs for relays: that the sealed bytes a relay
/// stores under (group, origin, sequence) are its event.
///
/// The signature covers `chronicle relay route v1` ‖ group id ‖ origin ‖
/// sequence (8 bytes, big-endian) ‖ SHA-256 of the sealed bytes (form and
/// epoch included), made with the origin's device key. A relay checks it
/// with the key the group's member list records for the origin, without
/// opening anything, before it stores the event: so any member may forward
/// another's events (sealing is deterministic, ``RelayEventCipher``), and
/// none can put anything else in another device's place. A membership event
/// travels in the clear with its own signature and needs none.
package enum EventRoute {
  package static let signatureSize = 64

  /// The bytes the origin signs for `event` in `group`.
  package static func signedBytes(_ event: SealedEvent, group: UUID) -> [UInt8] {
    var bytes = Array("chronicle relay route v1".utf8) + PeerID(group).bytes + event.origin.bytes
    withUnsafeBytes(of: event.sequence.bigEndian) { bytes += $0 }
    return bytes + SHA256.hash(data: event.sealed)
  }

  /// `event` with its origin's route signature, made with `key` (the origin's).
  package static func signed(_ event: SealedEvent, group: UUID, key: DeviceKey) -> SealedEvent {
    var event = event
    event.route = RelayEventCipher.isClear(event.sealed) ? [] : key.signature(for: signedBytes(event, group: group))
    return event
  }

  /// Whether `event` carries a route signature `publicKey` made for it.
  package static func verify(_ event: SealedEvent, group: UUID, publicKey: [UInt8]) -> Bool {
    guard event.route.count == signatureSize, let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
    return key.isValidSignature(event.route, for: signedBytes(event, group: group))
  }
}
