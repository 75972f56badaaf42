import Chronicle
import Foundation
import Logging

/// Settings of a device syncing through a relay (``RelayTransport``).
///
/// No key file is needed: events are sealed with the group's content keys,
/// which an admin's device grants each member in the group's membership
/// events (see ``RelayEventCipher``), so the relay cannot read them.
public struct RelayConfiguration: Sendable {
  /// The largest message accepted from the relay, and so the largest event
  /// that can be synced. Use the relay's `--max-event-size` or more.
  public var maxMessageBytes = 65 << 20
  /// Events are pushed in messages of about this many bytes.
  public var pushBatchBytes = 512 << 10
  /// Received events are applied in transactions of about this many bytes
  /// (or ``applyBatchEvents`` events): memory stays bounded, and an
  /// interrupted sync keeps what it applied.
  public var applyBatchBytes = 1 << 20
  /// See ``applyBatchBytes``.
  public var applyBatchEvents = 1_000
  /// The relay must admit the device within this time of connecting.
  public var handshakeTimeout: Duration = .seconds(10)
  /// The relay must answer each request (a push, a pull) within this time.
  public var responseTimeout: Duration = .seconds(60)
  /// While watching, the first wait before reconnecting; it doubles after
  /// each failure, up to ``maxReconnectDelay``, and resets once connected.
  public var reconnectDelay: Duration = .milliseconds(250)
  /// See ``reconnectDelay``.
  public var maxReconnectDelay: Duration = .seconds(30)
  /// While watching, how often the log is checked for events written by
  /// other processes (events written through this process's database are
  /// pushed as soon as they commit).
  public var localPollInterval: Duration = .seconds(1)
  /// A group creation token from the relay's operator: needed once, by the
  /// founder's device, on the connection that starts the group on a relay
  /// that does not start groups for anyone (the default). Sent on every
  /// connection; the relay spends it only to start a group.
  public var creationToken: String?
  /// Where connections and failures are logged.
  public var logger: Logger

  /// The header of the WebSocket upgrade request that carries ``creationToken``.
  package static let creationTokenHeader = "Chronicle-Creation-Token"

  public init(logger: Logger = Logger(label: "chronicle.relay.client")) {
    self.logger = logger
  }
}

/// What one sync through a relay did.
public struct RelaySyncReport: Sendable {
  /// Events the relay stored: this device's, and other members' it
  /// forwarded (it already held any others sent).
  public var sentEvents = 0
  /// What the received events did here.
  public var received = MergeReport()
  public var bytesSent = 0
  public var bytesReceived = 0
  /// Why some of this device's events were not pushed (this device holds no
  /// key of the group's current epoch yet); nil when all were.
  public var unpushed: String?
  /// Why forwarding other members' events stopped (the relay refused a
  /// push of them: its rate limit, for one); nil when it did not.
  public var unforwarded: String?

  public init() {}
}
