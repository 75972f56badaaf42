import Chronicle
import ChronicleNetwork
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// An always-on relay for groups of Chronicle devices: it stores the sealed
/// events each device pushes and hands every device of the group the ones it
/// lacks, pushing new ones to connected devices as they arrive, so devices
/// sync without being online together. It cannot read the events (they are
/// sealed with the group's key) and admits only the devices its groups'
/// member lists name.
///
/// HTTP and WebSocket on one port:
/// - `GET /v1/sync`: the relay protocol (a WebSocket; `Schemas/SYNC-PROTOCOL.md`).
/// - `GET /health`: `ok` while the store answers, `not ok` otherwise (the
///   detail goes to the log).
/// - `GET /metrics`: Prometheus metrics (connections, events and bytes in
///   and out, refusals by kind), for the holder of
///   ``RelayServerConfiguration/metricsToken`` only.
///
/// Every connection counts against ``RelayServerConfiguration/maxConnections``
/// and ``RelayServerConfiguration/maxConnectionsPerAddress``, and is closed
/// when it sends nothing the relay answers within
/// ``RelayServerConfiguration/requestTimeout``.
///
/// ```swift
/// let relay = try await RelayServer(configuration: RelayServerConfiguration(storage: .sqlite(path: "relay.sqlite")))
/// try await relay.run()   // until cancelled (or SIGTERM, when configured)
/// ```
public final class RelayServer: Sendable {
  public let configuration: RelayServerConfiguration
  private let core: RelayCore
  private let listeningPort = ListeningPort()

  /// Opens the store (creating its tables when missing); nothing listens until ``run()``.
  public init(configuration: RelayServerConfiguration) async throws {
    self.configuration = configuration
    let store = try await configuration.storage.open(logger: configuration.logger)
    core = RelayCore(store: DeadlineRelayStore(base: store, limit: configuration.storeTimeout), configuration: configuration)
  }

  /// The port the relay listens on, once ``run()`` listens (waits until
  /// then). Throws when `run()` ended without listening: a
  /// ``RelayServerError`` (the port was taken, or `run()` was cancelled
  /// first) or the store's error; and `CancellationError` when the waiting
  /// task is cancelled.
  public var port: Int {
    get async throws { try await listeningPort.value }
  }

  /// Serves until the task is cancelled (or, with
  /// ``RelayServerConfiguration/stopsOnTerminationSignals``, SIGTERM or
  /// SIGINT arrives); then closes connections and the store.
  public func run() async throws {
    let core = self.core
    let logger = configuration.logger
    do {
      try await core.store.observeChanges { [hub = core.hub] change in hub.handle(change) }
    } catch {
      listeningPort.failed(error)
      throw error
    }

    let router = Router()
    router.get("/health") { _, _ -> Response in
      do {
        _ = try await core.store.lastPosition(of: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "ok\n")))
      } catch {
        // The detail is for the operator's log, not for whoever asks.
        logger.warning("health check failed: the store does not answer", metadata: ["error": "\(error)"])
        return Response(status: .serviceUnavailable, body: ResponseBody(byteBuffer: ByteBuffer(string: "not ok\n")))
      }
    }
    let metricsToken = configuration.metricsToken
    router.get("/metrics") { request, _ -> Response in
      guard let metricsToken else {
        return Response(
          status: .notFound,
          body: ResponseBody(byteBuffer: ByteBuffer(string: "metrics are off: start the relay with a metrics token (chronicle relay --metrics-token-file FILE)\n")))
      }
      guard let given = request.headers[.authorization], BearerToken.matches(given, metricsToken) else {
        return Response(
          status: .unauthorized, headers: [.wwwAuthenticate: "Bearer"],
          body: ResponseBody(byteBuffer: ByteBuffer(string: "metrics need the relay's metrics token: Authorization: Bearer TOKEN\n")))
      }
      return Response(
        status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
        body: ResponseBody(byteBuffer: ByteBuffer(string: core.metrics.text)))
    }
    let connections = ConnectionGuard(
      limits: .init(
        total: configuration.maxConnections ?? OpenFileLimit.connectionsByDefault,
        perAddress: configuration.maxConnectionsPerAddress, requestTimeout: configuration.requestTimeout),
      metrics: core.metrics)
    let sockets = Router(context: RelayRequestContext.self)
    sockets.ws("/v1/sync") { inbound, outbound, context in
      var logger = context.logger
      logger[metadataKey: "connection"] = "\(UUID().uuidString.prefix(8).lowercased())"
      let link = RelayLink(peerName: "device", outbound: outbound)
      let token = context.request.headers[GroupCreationToken.header].map(GroupCreationToken.init(text:))
      let channel = context.requestContext.channel
      let session = RelaySession(
        relay: core, link: link, creationToken: token, host: context.request.head.authority, logger: logger
      ) { connections.admitted(channel) }
      await session.run(inbound)
    }
    let channel = HTTP1WebSocketUpgradeChannel.Configuration(
      http1: .init(idleTimeout: TimeAmount(configuration.idleTimeout)),
      ws: .init(maxFrameSize: 1 << 20, autoPing: .enabled(timePeriod: .seconds(30)), closeTimeout: .seconds(2)))
    let webSocketResponder = sockets.buildResponder()
    let server = HTTPServerBuilder { responder in
      GuardedChildChannel(
        base: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: channel),
        connections: connections, logger: logger)
    }
    let app = Application(
      router: router,
      server: server,
      configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: "chronicle-relay"),
      onServerRunning: { [listeningPort] channel in
        let port = channel.localAddress?.port ?? 0
        listeningPort.listening(on: port)
        logger.info("relay listening", metadata: ["port": "\(port)"])
      },
      logger: logger)
    let services = ServiceGroup(
      configuration: ServiceGroupConfiguration(
        services: [.init(service: app)],
        gracefulShutdownSignals: configuration.stopsOnTerminationSignals ? [.sigterm, .sigint] : [],
        logger: logger))
    do {
      try await services.run()
    } catch {
      // Before it listened and unless cancelled, the error is about the
      // address (taken, or not this machine's).
      let cancelled = Task.isCancelled
      let refusal: RelayServerError =
        cancelled ? .stoppedBeforeListening : .cannotListen(address: "\(configuration.host):\(configuration.port)", reason: "\(error)")
      let neverListened = listeningPort.failed(refusal)
      core.hub.finishAll()
      try? await core.store.close()
      throw neverListened && !cancelled ? refusal : error
    }
    listeningPort.failed(RelayServerError.stoppedBeforeListening)
    core.hub.finishAll()
    try await core.store.close()
  }
}
