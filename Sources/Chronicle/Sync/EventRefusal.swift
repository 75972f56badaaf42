import Foundation

/// A received event that a merge refused, and why: the rest of its batch
/// applies without it (see ``RefusedEvents``).
struct EventRefusal: Sendable {
  var id: EventID
  var reason: String
  /// Whether the refusal is final for an event whose origin is proven (its
  /// signature verified with its origin's key): a revoked device's late
  /// write, a reader's write, another group's event. The version vector
  /// then counts it as held, so no peer sends it again, and its bytes are
  /// kept to be admitted after all should the member list change.
  ///
  /// Unsettled refusals (a signature that does not verify, an origin not a
  /// member yet, a clock ahead, a different copy of an event this log
  /// holds) keep nothing but the record: the event is asked for again, and
  /// a good copy is taken when one comes.
  var settled: Bool
  var bytes: Int
  /// The refused copy's CRC-32, when it decoded.
  var checksum: UInt32?
  /// The event's signed form, kept for a settled refusal.
  var kept: [UInt8]?

  init(_ incoming: IncomingEvent, reason: String, settled: Bool) {
    id = incoming.event.id
    self.reason = reason
    self.settled = settled
    bytes = incoming.encoded.bytes.count
    checksum = incoming.encoded.checksum
    kept = settled ? Array(incoming.encoded.bytes) : nil
  }

  init(id: EventID, reason: String, bytes: Int) {
    self.id = id
    self.reason = reason
    settled = false
    self.bytes = bytes
  }
}

/// Thrown inside a merge's transaction when events of the batch are
/// refused: the transaction rolls back, and the batch is merged again
/// without them (``ChronicleDatabase/applyRemote(_:source:)``).
struct RefusedInBatch: Error {
  var refusals: [EventRefusal]
}

/// A received event this database refused, as `chronicle refused` lists it.
public struct RefusedEvent: Sendable, Equatable, CustomStringConvertible {
  /// The device the event names as its origin, and its sequence there.
  public var origin: PeerID
  public var sequence: UInt64
  /// Why it was refused.
  public var reason: String
  /// Who sent it (a peer, a folder, a relay, a file).
  public var source: String
  /// True when the refusal is final and the event's origin is proven: the
  /// version vector counts it as held, so no peer sends it again (it is
  /// admitted after all if the member list changes so that it may be).
  /// False when a good copy from any peer is still taken.
  public var settled: Bool
  /// The size of the refused copy, in bytes.
  public var bytes: Int
  /// How many times it was refused, first and last.
  public var times: Int
  public var firstRefused: Date
  public var lastRefused: Date

  public var description: String {
    "\(origin.shortDescription):\(sequence) from \(source)\(settled ? " (settled)" : ""): \(reason)"
  }
}

extension RefusedEvent {
  /// A refusal made just now, as a merge reports it.
  init(_ refusal: EventRefusal, source: String, at now: Date = Date()) {
    self.init(
      origin: refusal.id.origin, sequence: refusal.id.sequence, reason: refusal.reason, source: source, settled: refusal.settled,
      bytes: refusal.bytes, times: 1, firstRefused: now, lastRefused: now)
  }
}
