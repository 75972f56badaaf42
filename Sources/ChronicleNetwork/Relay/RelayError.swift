import Foundation

/// Why a sync through a relay failed. Batches applied before the error stay
/// applied; the next sync resumes after them.
public enum RelayError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The relay's address is not a `ws://` or `wss://` URL.
  case invalidURL(String)
  /// The database belongs to no group: a relay serves groups.
  case notInAGroup
  /// This device's key file is missing, so it cannot prove who it is.
  case deviceKeyMissing(path: String)
  /// The relay refused the session or a request, and said why. `retryable`:
  /// the same request may succeed later (a rate limit, a relay restarting).
  case refused(relay: String, message: String, retryable: Bool)
  /// One of this device's events is larger than the relay accepts: it
  /// cannot sync through that relay (the events before it were pushed).
  case eventTooLarge(event: String, size: Int, limit: Int)
  /// The relay broke the protocol (garbage, a message out of turn).
  case protocolViolation(relay: String, reason: String)
  /// An event from the relay does not open with the group's key.
  case unreadableEvent(String, reason: String)
  /// This device holds no key of its group's current epoch, so it cannot
  /// seal its data for the relay (it still receives).
  case noGroupKey(String)
  /// The relay sent nothing for too long.
  case timedOut(relay: String, waitingFor: String, seconds: Double)
  /// The connection ended before the session did.
  case connectionClosed(relay: String, waitingFor: String)
  /// The relay could not be reached.
  case unreachable(relay: String, reason: String)

  /// Whether trying again later may succeed without anything changing here.
  public var isRetryable: Bool {
    switch self {
    case .refused(_, _, let retryable): retryable
    case .timedOut, .connectionClosed, .unreachable: true
    case .invalidURL, .notInAGroup, .deviceKeyMissing, .protocolViolation, .unreadableEvent, .eventTooLarge, .noGroupKey: false
    }
  }

  public var description: String {
    switch self {
    case .invalidURL(let url):
      "\(url) is not a relay address: expected ws://HOST:PORT or wss://HOST[:PORT] (chronicle relay prints its address)"
    case .notInAGroup:
      "this database is in no group: a relay syncs the devices of a group. Create one (chronicle group DB --create) or join one (chronicle join DB INVITATION) first"
    case .deviceKeyMissing(let path):
      "this device's key file \(path) is missing, so it cannot prove to the relay who it is"
    case .refused(let relay, let message, let retryable):
      "\(relay) refused: \(message)\(retryable ? " (retry later)" : "")"
    case .eventTooLarge(let event, let size, let limit):
      "event \(event) is \(size) bytes sealed, over the relay's limit of \(limit) (its --max-event-size): it cannot sync through this relay; sync it through a shared folder or a relay with a higher limit (the events before it were pushed)"
    case .protocolViolation(let relay, let reason):
      "\(relay) broke the relay protocol: \(reason). Nothing of the batch in progress was applied."
    case .unreadableEvent(let event, let reason):
      "event \(event) from the relay is unreadable: \(reason)."
    case .noGroupKey(let reason):
      "this device cannot seal its events for the relay: \(reason)"
    case .timedOut(let relay, let waitingFor, let seconds):
      "\(relay) sent no \(waitingFor) within \(String(format: "%g", seconds)) s; sync again to resume"
    case .connectionClosed(let relay, let waitingFor):
      "the connection to \(relay) closed while waiting for \(waitingFor); sync again to resume (what was applied stays)"
    case .unreachable(let relay, let reason):
      "cannot reach \(relay): \(reason)"
    }
  }
}
