import Chronicle
import Foundation

/// How far a stream of events has come, for progress display.
public struct NetworkSyncProgress: Sendable {
  /// Which way the events flow, seen from this side.
  public enum Direction: String, Sendable {
    /// This side streams events to the other.
    case sending
    /// This side receives events and applies them.
    case receiving
    /// The side about to merge the stream reads its own history into merge
    /// state first (its first merge): `events` of `totalEvents` read so far.
    /// Reported by that side, and by the sender, which the other keeps
    /// informed while it waits.
    case preparing
  }

  /// Which way the events flow.
  public var direction: Direction
  /// Events sent, or received and applied, so far.
  public var events: Int
  /// Events in the whole stream.
  public var totalEvents: Int
  /// Serialized event bytes so far.
  public var bytes: Int
  /// Serialized event bytes in the whole stream.
  public var totalBytes: Int
  /// Time since the stream started.
  public var elapsed: Duration

  /// Events per second so far.
  public var eventsPerSecond: Double {
    elapsed.seconds > 0 ? Double(events) / elapsed.seconds : 0
  }

  /// The time left at the rate so far (`nil` before there is a rate).
  public var estimatedTimeLeft: Duration? {
    guard bytes > 0, elapsed.seconds > 0 else { return nil }
    let rate = Double(bytes) / elapsed.seconds
    return .milliseconds(Int64(Double(max(0, totalBytes - bytes)) / rate * 1000))
  }
}

/// What one network sync session did.
public struct NetworkSyncReport: Sendable {
  /// The other peer.
  public var remotePeer: PeerID?
  /// Events this side sent.
  public var sentEvents = 0
  /// What the other side reported applying of them.
  public var remoteApplied = 0
  /// What this side merged of the events it received.
  public var received = MergeReport()
  /// Bytes this side wrote to the connection, framing and sealing included.
  public var bytesSent = 0
  /// Bytes this side read from the connection, framing and sealing included.
  public var bytesReceived = 0
  /// Blobs this side sent on request.
  public var sentBlobs = 0
  /// Blobs this side received and stored.
  public var receivedBlobs = BlobTransferReport()

  /// An empty report.
  public init() {}
}
