import Chronicle
import Foundation
import HTTPTypes
import Logging
import Synchronization
import WSClient

/// Syncs a group's devices through a relay (`chronicle relay`): an always-on
/// server that stores the group's events and hands each device what it
/// lacks, so devices sync without ever being online together.
///
/// Events are sealed with the group's current content key before they leave
/// the device (each revocation starts a new one, which the revoked device is
/// not granted); the relay stores and forwards ciphertext. It admits a device only when the
/// group's member list (which it learns from the members' signed membership
/// events) names it.
///
/// ```swift
/// let relay = try RelayTransport(url: "wss://relay.example.com", configuration: RelayConfiguration())
/// try await relay.sync(database)                  // once
/// SyncEngine(for: database, transport: relay).start()  // stay connected
/// ```
public struct RelayTransport: LiveSyncTransport {
  /// The relay's address: `ws://HOST:PORT` or `wss://HOST[:PORT]`.
  public let url: String
  public let configuration: RelayConfiguration

  /// A transport to the relay at `url`.
  ///
  /// - Throws: ``RelayError/invalidURL(_:)`` unless `url` is a `ws://` or `wss://` address.
  public init(url: String, configuration: RelayConfiguration) throws {
    guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "ws" || scheme == "wss",
          let host = parsed.host, !host.isEmpty
    else { throw RelayError.invalidURL(url) }
    self.url = parsed.path.isEmpty || parsed.path == "/" ? "\(scheme)://\(host)\(parsed.port.map { ":\($0)" } ?? "")/v1/sync" : url
    self.configuration = configuration
  }

  /// Pushes this device's news, then pulls what it lacks, on one connection.
  public func sync(_ database: ChronicleDatabase) async throws -> RelaySyncReport {
    try await session(database, push: true, pull: true, live: nil)
  }

  /// Pushes only; returns how many events the relay stored.
  public func send(from database: ChronicleDatabase) async throws -> Int {
    try await session(database, push: true, pull: false, live: nil).sentEvents
  }

  /// Pulls only.
  public func fetch(into database: ChronicleDatabase) async throws -> FetchReport {
    fetchReport(try await session(database, push: false, pull: true, live: nil).received)
  }

  /// Pushes, then pulls, on one connection.
  public func exchange(with database: ChronicleDatabase) async throws -> (sent: Int, fetched: FetchReport) {
    let report = try await sync(database)
    return (report.sentEvents, fetchReport(report.received))
  }

  /// Syncs, then stays connected: pushes this device's events as they are
  /// written, applies the group's as the relay pushes them, and reconnects
  /// after a failure (reported, then retried after a delay that doubles up
  /// to ``RelayConfiguration/maxReconnectDelay``), resuming where it stopped.
  ///
  /// - Throws: ``RelayError`` for what retrying cannot fix (an invalid
  ///   address, a database in no group, a missing key file), and
  ///   `CancellationError` when the task is cancelled.
  public func watch(_ database: ChronicleDatabase, report: @escaping @Sendable (SyncEngine.Event) -> Void) async throws {
    var delay = configuration.reconnectDelay
    while true {
      try Task.checkCancellation()
      let connected = Mutex(false)
      do {
        let hooks = LiveHooks(
          caughtUp: { sent, received in
            connected.withLock { $0 = true }
            report(.sent(count: sent))
            report(.fetched(fetchReport(received)))
          },
          pushed: { report(.sent(count: $0)) },
          applied: { report(.fetched(fetchReport($0))) })
        _ = try await session(database, push: true, pull: true, live: hooks)
        throw RelayError.connectionClosed(relay: url, waitingFor: "events")
      } catch let error as RelayError where error == .notInAGroup || error == .invalidURL(url) {
        throw error
      } catch let error as RelayError {
        if case .deviceKeyMissing = error { throw error }
        try Task.checkCancellation()
        report(.failed("\(error)"))
        configuration.logger.warning("relay sync failed, retrying", metadata: ["relay": "\(url)", "error": "\(error)"])
      } catch is CancellationError {
        throw CancellationError()
      } catch {
        try Task.checkCancellation()
        report(.failed("\(error)"))
        configuration.logger.warning("relay sync failed, retrying", metadata: ["relay": "\(url)", "error": "\(error)"])
      }
      if connected.withLock({ $0 }) { delay = configuration.reconnectDelay }
      // Jitter spreads the reconnections of many devices after a relay restarts.
      let jittered = delay * Double.random(in: 0.5...1.0)
      try await Task.sleep(for: jittered)
      delay = min(delay * 2, configuration.maxReconnectDelay)
    }
  }

  /// What a fetch from this relay merged, as ``SyncEngine`` reports it.
  private func fetchReport(_ merged: MergeReport) -> FetchReport {
    var fetched = FetchReport()
    fetched.merged = merged
    fetched.appliedSources = [url]
    return fetched
  }

  /// Called as a watching session makes progress.
  struct LiveHooks: Sendable {
    var caughtUp: @Sendable (_ sent: Int, _ received: MergeReport) -> Void
    var pushed: @Sendable (Int) -> Void
    var applied: @Sendable (MergeReport) -> Void
  }

  private func session(_ database: ChronicleDatabase, push: Bool, pull: Bool, live: LiveHooks?) async throws -> RelaySyncReport {
    let (group, membership) = try await offload { () -> (UUID?, [[UInt8]]) in
      (try database.group, try database.membershipEvents().map(\.bytes))
    }
    guard let group else { throw RelayError.notInAGroup }
    guard let key = database.deviceKey else { throw RelayError.deviceKeyMissing(path: (try? database.identity.keyFile.path) ?? database.path + "-device.key") }
    let client = RelayClientSession(
      url: url, configuration: configuration, database: database, key: key, group: group, membership: membership)
    let outcome = Mutex<Result<RelaySyncReport, any Error>?>(nil)
    var webSocket = WebSocketClientConfiguration(
      maxFrameSize: 1 << 20, closeTimeout: .seconds(2), autoPing: .enabled(timePeriod: .seconds(20)))
    webSocket.additionalHeaders[.userAgent] = "chronicle"
    if let token = configuration.creationToken, let header = HTTPField.Name(RelayConfiguration.creationTokenHeader) {
      webSocket.additionalHeaders[header] = token
    }
    do {
      try await WebSocketClient.connect(url: url, configuration: webSocket, logger: configuration.logger) { inbound, outbound, _ in
        let link = RelayLink(peerName: "relay \(url)", outbound: outbound)
        let result: Result<RelaySyncReport, any Error>
        do {
          result = .success(try await withThrowingTaskGroup(of: RelaySyncReport?.self) { tasks in
            tasks.addTask {
              await link.watchDeadlines()
              return nil
            }
            var report = try await client.run(link, inbound: inbound, push: push, pull: pull, live: live)
            (report.bytesSent, report.bytesReceived) = link.bytes
            tasks.cancelAll()
            return report
          })
        } catch {
          result = .failure(client.relayError(error, link: link))
        }
        outcome.withLock { $0 = result }
        await link.close()
      }
    } catch {
      if outcome.withLock({ $0 }) == nil { throw RelayError.unreachable(relay: url, reason: "\(error)") }
    }
    guard let result = outcome.withLock({ $0 }) else { throw RelayError.connectionClosed(relay: url, waitingFor: "the relay's challenge") }
    return try result.get()
  }
}

extension SyncTransport where Self == RelayTransport {
  /// Syncs through the relay at `url` (`ws://HOST:PORT` or `wss://HOST`).
  public static func relay(url: String) throws -> RelayTransport {
    try RelayTransport(url: url, configuration: RelayConfiguration())
  }
}
