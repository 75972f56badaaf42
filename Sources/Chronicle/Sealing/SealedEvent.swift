import Foundation

/// An event as a relay holds it: who wrote it, its place in that device's
/// log, the event sealed with the group's key (``RelayEventCipher``), which
/// the relay cannot open, and its origin's signature of the sealed bytes
/// (``EventRoute``; empty for a membership event in the clear, which is
/// signed itself).
package struct SealedEvent: Sendable, Equatable {
  package var origin: PeerID
  package var sequence: UInt64
  package var sealed: [UInt8]
  package var route: [UInt8]

  package init(origin: PeerID, sequence: UInt64, sealed: [UInt8], route: [UInt8] = []) {
    self.origin = origin
    self.sequence = sequence
    self.sealed = sealed
    self.route = route
  }
}
