import Chronicle
import Foundation
import Logging

/// Settings shared by ``SyncServer`` and ``TCPTransport``.
public struct NetworkSyncConfiguration: Sendable {
  /// The group's key: only peers holding it may connect. A database in a
  /// group may use ``SyncKey/groupMembersOnly`` instead, on both sides: its
  /// members then need no key file.
  public var key: SyncKey
  /// Peers allowed to connect, by id; `nil` lets every holder of the key in.
  public var allowedPeers: Set<PeerID>?
  /// The largest frame accepted after authentication (before it: 4 KiB).
  /// Bounds the memory one connection can make this side allocate. Use the
  /// same value on every peer. An event larger than a frame travels in
  /// parts (up to ``maxEventSize``).
  public var maxFrameSize = 4 << 20
  /// The largest event accepted, in parts when it exceeds a frame. The
  /// default is the largest event a database can write (a transaction whose
  /// changes encode to more than 2^30 body bytes is refused at
  /// commit), so every event a peer wrote can be synced.
  public var maxEventSize = EventCodec.maximumBodySize + (64 << 10)
  /// The largest blob accepted, in parts when it exceeds a frame.
  public var maxBlobSize = 1 << 30
  /// Events are sent in frames of about this many bytes.
  public var frameBytes = 256 << 10
  /// Received events are applied in transactions of about this many bytes
  /// (or ``applyBatchEvents`` events), so memory stays bounded and an
  /// interrupted sync keeps what it applied.
  public var applyBatchBytes = 1 << 20
  /// See ``applyBatchBytes``.
  public var applyBatchEvents = 1_000
  /// The whole handshake must finish within this time.
  public var handshakeTimeout: Duration = .seconds(10)
  /// A server drops a connection that sends nothing (not even its hello)
  /// within this time: a client speaks first, at once.
  public var helloTimeout: Duration = .seconds(3)
  /// A server handles at most this many connections that have not
  /// authenticated yet, apart from its sessions (``SyncServer/maxConnections``
  /// counts authenticated ones only). When full, a new connection takes the
  /// place of one from the address holding the most of them (the oldest
  /// that has not sent its hello yet, else the oldest), so sockets and
  /// hellos from a few addresses cannot keep a member at another out.
  public var maxPendingHandshakes = 256
  /// At most this many of them from one address: a new one from an address
  /// at its limit takes the place of that address's oldest (silent first).
  public var maxPendingHandshakesPerAddress = 64
  /// A server holds at most this many authenticated sessions of one device
  /// at once (of ``SyncServer/maxConnections``); one more is told the
  /// server is busy, so no member can take every session.
  public var maxSessionsPerPeer = 4
  /// A server whose database is in a group holds at most this many
  /// sessions of devices that are not its members (a device pushing its
  /// join request), in all: any holder of the group key can make up device
  /// ids, so they would otherwise take every session.
  public var maxNonMemberSessions = 4
  /// Each frame must arrive within this time of being awaited, and each
  /// frame sent must be taken by the peer within it: a stalled or very slow
  /// peer (one that stops reading, too) is disconnected.
  public var frameTimeout: Duration = .seconds(60)
  /// While a receiving side prepares to merge (its first merge reads its
  /// whole history into merge state first), it tells the sender how far it
  /// is this often, so the sender neither times out nor waits in silence.
  public var workingInterval: Duration = .seconds(5)
  /// Sending is slowed to at most this many bytes per second (`nil`: no limit).
  public var maxSendRate: Int?
  /// Where connections, refusals and hostile peers are logged.
  public var logger: Logger

  /// A configuration with the group's key and default limits.
  public init(key: SyncKey, logger: Logger = Logger(label: "chronicle.network")) {
    self.key = key
    self.logger = logger
  }

  /// The frame limit before authentication: enough for the handshake only.
  static let handshakeFrameLimit = 4096
}

extension NetworkSyncConfiguration {
  /// Reads a byte count as tools take it (a rate for ``maxSendRate``, a
  /// size for a relay's limits): a positive number of bytes, with an
  /// optional `k` (KiB), `m` (MiB) or `g` (GiB) suffix, like `500k` or `2m`;
  /// `nil` for anything else.
  public static func byteRate(_ text: String) -> Int? {
    let lower = text.lowercased()
    let scales: [Character: Int] = ["k": 1 << 10, "m": 1 << 20, "g": 1 << 30]
    let scale = lower.last.flatMap { scales[$0] } ?? 1
    let digits = scale == 1 ? Substring(lower) : lower.dropLast()
    guard let value = Int(digits), value > 0, value <= Int.max / scale else { return nil }
    return value * scale
  }
}
