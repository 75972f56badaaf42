/// The version of one write: its event's clock reading and origin peer.
///
/// Last-write-wins compares versions: the higher clock wins, and equal clocks
/// are decided by the peer id, never by arrival order.
package struct WriteVersion: Hashable, Comparable, Sendable, CustomStringConvertible {
  package var timestamp: HLCTimestamp
  package var origin: PeerID

  package init(timestamp: HLCTimestamp, origin: PeerID) {
    self.timestamp = timestamp
    self.origin = origin
  }

  package static func < (lhs: WriteVersion, rhs: WriteVersion) -> Bool {
    lhs.timestamp != rhs.timestamp ? lhs.timestamp < rhs.timestamp : lhs.origin < rhs.origin
  }

  package var description: String { "\(timestamp)@\(origin.shortDescription)" }
}
