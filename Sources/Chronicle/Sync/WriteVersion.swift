/// The version of one write: its event's clock reading and origin peer.
///
/// Last-write-wins compares versions: the higher clock wins, and equal clocks
/// are decided by the peer id, never by arrival order.
package struct WriteVersion: Hashable, Comparable, Sendable, CustomStringConvertible {
  public var timestamp: HLCTimestamp
  public var origin: PeerID

  public init(timestamp: HLCTimestamp, origin: PeerID) {
    self.timestamp = timestamp
    self.origin = origin
  }

  public static func < (lhs: WriteVersion, rhs: WriteVersion) -> Bool {
    lhs.timestamp != rhs.timestamp ? lhs.timestamp < rhs.timestamp : lhs.origin < rhs.origin
  }

  public var description: String { "\(timestamp)@\(origin.shortDescription)" }
}
