import Foundation

/// Why a network sync failed. A batch that was being applied when the error
/// happened was rolled back; batches applied before it stay (the next sync
/// resumes after them).
public enum NetworkSyncError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The group key file is missing, malformed or readable by others.
  case keyFile(path: String, problem: String)
  /// The other side did not prove it holds the group's key (or this side's
  /// key is not the group's).
  case authenticationFailed(peer: String, reason: String)
  /// The other side refused the session and said why.
  case refusedByPeer(peer: String, message: String)
  /// The other side broke the protocol (garbage, a message out of turn, a
  /// malformed frame).
  case protocolViolation(peer: String, reason: String)
  /// A frame announced more bytes than this side accepts.
  case frameTooLarge(peer: String, size: Int, limit: Int)
  /// A single event is larger than ``NetworkSyncConfiguration/maxEventSize``.
  case eventTooLarge(size: Int, limit: Int)
  /// The other side sent nothing (or too little) for too long.
  case timedOut(peer: String, waitingFor: String, seconds: Double)
  /// The connection ended before the session did.
  case connectionClosed(peer: String, waitingFor: String)
  /// The address could not be parsed or reached.
  case unreachable(address: String, reason: String)
  /// ``SyncKey/groupMembersOnly`` was given for a database in no group,
  /// whose peers can only be told apart by a shared key file.
  case keyFileNeeded(String)

  public var description: String {
    switch self {
    case .keyFile(let path, let problem):
      "group key file \(path): \(problem)"
    case .authenticationFailed(let peer, let reason):
      "authentication with \(peer) failed: \(reason). Check that both peers use the same key file (chronicle keygen writes one; copy it to every peer)."
    case .refusedByPeer(let peer, let message):
      "\(peer) ended the session: \(message)"
    case .protocolViolation(let peer, let reason):
      "\(peer) broke the sync protocol: \(reason). The connection was closed; nothing of the batch in progress was applied."
    case .frameTooLarge(let peer, let size, let limit):
      "\(peer) sent a frame of \(size) bytes, over the limit of \(limit). The connection was closed; if the peer is genuine, raise maxFrameSize on both sides."
    case .eventTooLarge(let size, let limit):
      "an event of \(size) bytes is over the limit of \(limit) bytes: raise maxEventSize (--max-event-size) on both peers, or sync through a shared folder."
    case .timedOut(let peer, let waitingFor, let seconds):
      "\(peer) sent no \(waitingFor) within \(String(format: "%g", seconds)) s. The connection was closed; sync again to resume."
    case .connectionClosed(let peer, let waitingFor):
      "the connection to \(peer) closed while waiting for \(waitingFor). Sync again to resume: what was applied stays."
    case .unreachable(let address, let reason):
      "cannot reach \(address): \(reason)"
    case .keyFileNeeded(let database):
      "\(database) is in no group, so it syncs over TCP only with the holders of a group key file: create one (chronicle keygen FILE), copy it to each peer and pass it (--key FILE); or create a group (chronicle group DB --create) and invite the other devices, which then need no key file"
    }
  }
}
