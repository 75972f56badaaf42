import Foundation
import Logging

/// Settings of a relay server (``RelayServer``): where it listens, what it
/// stores in, and the limits it enforces.
public struct RelayServerConfiguration: Sendable {
  /// Where the relay keeps its groups' events.
  public enum Storage: Sendable, Equatable {
    /// One SQLite file: nothing else to set up; one relay process per file.
    case sqlite(path: String)
    /// A PostgreSQL database (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`,
    /// or `postgres://USER@/DATABASE?host=/socket/directory`), shared by any
    /// number of relay processes, which are then interchangeable.
    case postgres(url: String)
  }

  /// The address to listen on (`0.0.0.0` for every interface).
  public var host = "127.0.0.1"
  /// The port; 0 picks a free one (see ``RelayServer/port``).
  public var port = 7440
  public var storage: Storage
  /// The largest event (sealed) a device may push. Larger ones are refused
  /// with an error that names this limit.
  public var maxEventBytes = 64 << 20
  /// The most bytes a group may store (1 GiB by default); nil: no quota. A
  /// push that would pass it is refused, to be retried once the operator
  /// raises it; nothing of it is stored.
  public var groupQuotaBytes: Int? = 1 << 30
  /// The most events a group may store (1,000,000 by default); nil: no quota.
  /// Counted apart from bytes: each stored event costs the store a row
  /// whatever its size.
  public var groupQuotaEvents: Int? = 1_000_000
  /// The most membership events a group may store (10,000 by default): its
  /// member list's history, handed to every member in each welcome. A
  /// membership message that would pass it is refused, nothing of it stored.
  public var maxMembershipEvents = 10_000
  /// The most bytes one device may push per second, over all its
  /// connections (16 MiB by default; bursts of a few seconds allowed); nil:
  /// no limit. A push over the allowance waits, unanswered, until the
  /// allowance covers it, for at most ``maxPushDelay``; a push that would
  /// wait longer is refused, to be retried later, and nothing of it stored.
  public var maxPushBytesPerSecond: Int? = 16 << 20
  /// How long a push over ``maxPushBytesPerSecond`` may be held before it
  /// is refused.
  public var maxPushDelay: Duration = .seconds(10)
  /// The most connections open at once. Nil: the process's limit on open
  /// files less 64 (kept for the store and logs). When all are taken, a new
  /// connection takes the place of the oldest one the relay has not
  /// answered yet; answered ones (a device syncing) are never evicted.
  public var maxConnections: Int?
  /// The most connections open at once from one IP address (devices behind
  /// one NAT share an address).
  public var maxConnectionsPerAddress = 128
  /// A connection must become a member's session (a WebSocket whose hello
  /// the relay accepts) within this time of opening, or it is closed: idle
  /// sockets, requests sent a byte at a time, bytes that are not HTTP,
  /// WebSockets that never prove a member; a `GET /health` or `/metrics`
  /// is answered, and its connection closed at this time too. Until then a
  /// connection may be evicted for a newcomer when the slots are taken.
  public var requestTimeout: Duration = .seconds(15)
  /// An HTTP connection left idle this long between requests is closed.
  public var idleTimeout: Duration = .seconds(60)
  /// The bearer token `GET /metrics` asks for (`Authorization: Bearer
  /// TOKEN`). Nil: metrics are not served (they tell whoever reaches the
  /// port how many devices connect and what the relay refuses).
  public var metricsToken: String?
  /// Whether anyone may start a group on this relay. Off (the default): a
  /// group's first connection must bring a token the operator created
  /// (``RelayServer/createGroupCreationToken(in:groups:logger:)``,
  /// `chronicle relay token create`); a relay on the open internet is
  /// otherwise free storage for whoever finds it.
  public var openGroups = false
  /// The names (`HOST[:PORT]`) devices address this relay by: a device's
  /// hello signed for another relay is refused, so no relay can pass it on
  /// to this one. Empty: the `Host` header of each connection (set the
  /// names when a proxy in front rewrites it).
  public var names: [String] = []
  /// A device must identify itself within this time of connecting.
  public var handshakeTimeout: Duration = .seconds(10)
  /// Each call to the store must answer within this time; past it, the
  /// device is told the relay is unavailable and to retry (a PostgreSQL
  /// server restarting otherwise holds every session until it is back).
  public var storeTimeout: Duration = .seconds(10)
  /// Events are sent to devices in messages of about this many bytes.
  public var pageBytes = 512 << 10
  /// Whether SIGTERM and SIGINT stop the relay gracefully (connections
  /// closed, the store closed), as `chronicle relay` does. Off when the
  /// relay is embedded: cancelling its task stops it.
  public var stopsOnTerminationSignals = false
  public var logger: Logger

  public init(storage: Storage, logger: Logger = Logger(label: "chronicle.relay")) {
    self.storage = storage
    self.logger = logger
  }
}
