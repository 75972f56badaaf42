import Chronicle
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// Serves a database to the peers of its group over TCP: each connection is
/// authenticated (``SyncKey``), then the client pushes the events the server
/// lacks and pulls those it lacks. Connections are served concurrently;
/// their writes are serialized by the database.
///
/// ```swift
/// let server = try await SyncServer.bind(database, host: "0.0.0.0", port: 7420, configuration: configuration)
/// print("listening on port \(server.port)")
/// try await server.run()          // until shutdown()
/// ```
public final class SyncServer: Sendable {
  /// The database served.
  public let database: ChronicleDatabase
  /// The group key, limits, timeouts and logger.
  public let configuration: NetworkSyncConfiguration
  /// The port the server listens on (useful after binding port 0).
  public let port: Int
  /// At most this many authenticated sessions at once; a device that
  /// authenticates beyond them is told the server is busy. Connections still
  /// in their handshake are counted apart
  /// (``NetworkSyncConfiguration/maxPendingHandshakes``).
  public let maxConnections: Int
  /// The blobs served to and accepted from clients (`nil`: blob requests are refused).
  public let blobs: (any BlobStore)?

  private let listener: NIOAsyncChannel<SyncChannel, Never>
  private struct State {
    /// Authenticated sessions, and their devices.
    var sessions: [ObjectIdentifier: (channel: any Channel, peer: PeerID, member: Bool)] = [:]
    /// Connections that have not authenticated yet.
    var pending: [ObjectIdentifier: PendingConnection] = [:]
    var isShuttingDown = false
  }

  /// A connection in its handshake.
  private struct PendingConnection {
    var channel: any Channel
    var host: String
    var accepted: ContinuousClock.Instant
    /// Whether its hello has arrived: a client that said nothing yet is the
    /// first dropped when connections flood in.
    var spoke = false
  }
  private let state = Mutex(State())

  private init(
    database: ChronicleDatabase, configuration: NetworkSyncConfiguration, listener: NIOAsyncChannel<SyncChannel, Never>, maxConnections: Int,
    blobs: (any BlobStore)?
  ) {
    self.database = database
    self.blobs = blobs
    self.configuration = configuration
    self.listener = listener
    self.port = listener.channel.localAddress?.port ?? 0
    self.maxConnections = maxConnections
  }

  /// Starts listening on `host`:`port` (port 0 picks a free one).
  ///
  /// - Parameter blobs: content-addressed content to serve beside the events
  ///   (``TCPTransport/fetchBlobs(_:into:as:progress:)``) and to accept from
  ///   clients (``TCPTransport/sendBlobs(_:from:as:progress:)``); `nil` refuses both.
  /// - Throws: ``NetworkSyncError/keyFileNeeded(_:)`` for
  ///   ``SyncKey/groupMembersOnly`` and a database in no group.
  public static func bind(
    _ database: ChronicleDatabase, host: String = "127.0.0.1", port: Int, configuration: NetworkSyncConfiguration, maxConnections: Int = 64,
    blobs: (any BlobStore)? = nil
  ) async throws -> SyncServer {
    try Handshake.requireKeyOrGroup(database, configuration: configuration)
    let listener: NIOAsyncChannel<SyncChannel, Never>
    do {
      listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.backlog, value: 256)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
        .bind(host: host, port: port) { channel in SyncChannel.wrap(channel) }
    } catch {
      throw NetworkSyncError.unreachable(address: "\(host):\(port)", reason: "cannot listen there (\(error))")
    }
    let server = SyncServer(database: database, configuration: configuration, listener: listener, maxConnections: maxConnections, blobs: blobs)
    configuration.logger.info("listening", metadata: ["address": "\(host):\(server.port)", "peer": "\(database.peerID)"])
    return server
  }

  /// Serves connections until ``shutdown(gracePeriod:)``; returns when the
  /// sessions in progress have ended.
  public func run() async throws {
    // A shutdown that came before run (a signal right after bind) stops it at once.
    guard !state.withLock({ $0.isShuttingDown }) else { return }
    try await withTaskExecutorPreference(SessionExecutor.shared) {
      try await listener.executeThenClose { connections in
        try await withThrowingDiscardingTaskGroup { group in
          for try await connection in connections {
            group.addTask { await self.serve(connection) }
          }
        }
      }
    }
    configuration.logger.info("stopped")
  }

  /// Stops accepting connections. Sessions in progress may finish within
  /// `gracePeriod`; then they are cut (a batch being applied is rolled back
  /// whole, and the peer resumes after the last applied one next time).
  public func shutdown(gracePeriod: Duration = .seconds(10)) {
    let alreadyShuttingDown = state.withLock { state in
      defer { state.isShuttingDown = true }
      return state.isShuttingDown
    }
    guard !alreadyShuttingDown else { return }
    configuration.logger.info("shutting down", metadata: ["sessions": "\(state.withLock { $0.sessions.count })"])
    listener.channel.close(promise: nil)
    listener.channel.eventLoop.scheduleTask(in: .nanoseconds(gracePeriod.nanoseconds)) { [self] in
      for channel in state.withLock({ $0.sessions.values.map(\.channel) + $0.pending.values.map(\.channel) }) { channel.close(promise: nil) }
    }
  }

  /// Admits a new connection to the handshake. When the budget for its
  /// address is full, that address's oldest pending connection is dropped
  /// for it; when the whole budget is, the oldest of the address holding
  /// the most (either way, one that has not sent its hello first). `false`
  /// (refused) only while the server is shutting down.
  private func admitToHandshake(_ id: ObjectIdentifier, _ connection: SyncChannel) -> Bool {
    let host = Self.addressGroup(connection.channel.channel.remoteAddress) ?? connection.address
    let (admitted, dropped) = state.withLock { state -> (Bool, (any Channel)?) in
      guard !state.isShuttingDown else { return (false, nil) }
      var dropped: (any Channel)?
      let fromHost = state.pending.filter { $0.value.host == host }
      var competitors: [ObjectIdentifier: PendingConnection] = [:]
      if fromHost.count >= configuration.maxPendingHandshakesPerAddress {
        competitors = fromHost
      } else if state.pending.count >= configuration.maxPendingHandshakes {
        // The address holding the most pays for the newcomer: a few
        // addresses flooding lose their own connections, not others'.
        // (Of several as large, the oldest connection of any of them.)
        let counts = Dictionary(grouping: state.pending.values, by: \.host).mapValues(\.count)
        if let most = counts.values.max() {
          competitors = state.pending.filter { counts[$0.value.host] == most }
        }
      }
      if !competitors.isEmpty {
        let silent = competitors.filter { !$0.value.spoke }
        let oldest = (silent.isEmpty ? competitors : silent).min { $0.value.accepted < $1.value.accepted }!
        state.pending.removeValue(forKey: oldest.key)
        dropped = oldest.value.channel
      }
      state.pending[id] = PendingConnection(channel: connection.channel.channel, host: host, accepted: .now)
      return (true, dropped)
    }
    dropped?.close(promise: nil)
    return admitted
  }

  /// What the handshake budgets count connections by: an IPv4 address, or
  /// an IPv6 address's /64 (one machine commonly holds a whole /64).
  static func addressGroup(_ address: SocketAddress?) -> String? {
    guard let address else { return nil }
    if case .v6(let v6) = address {
      let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
      // An IPv4 address mapped into IPv6 stays itself.
      if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return address.ipAddress }
      return bytes[0..<8].map { String(format: "%02x", $0) }.joined() + "::/64"
    }
    return address.ipAddress
  }

  private func serve(_ connection: SyncChannel) async {
    let id = ObjectIdentifier(connection.channel.channel)
    var logger = configuration.logger
    logger[metadataKey: "remote"] = "\(connection.address)"
    let inHandshake = admitToHandshake(id, connection)
    defer { state.withLock { state in
      state.pending.removeValue(forKey: id)
      state.sessions.removeValue(forKey: id)
    } }
    let start = ContinuousClock.now
    var report = NetworkSyncReport()
    do {
      try await connection.run(writeTimeout: configuration.frameTimeout) { connection in
        guard inHandshake else {
          await connection.sendFailureQuietly("the server is shutting down, or busy with \(configuration.maxPendingHandshakes) handshakes; try again later")
          throw NetworkSyncError.refusedByPeer(peer: connection.peerName, message: "refused: server busy or shutting down")
        }
        do {
          let (peer, key) = try await Handshake.server(&connection, database: database, configuration: configuration) {
            state.withLock { $0.pending[id]?.spoke = true }
          }
          let perPeer = configuration.maxSessionsPerPeer, nonMembers = configuration.maxNonMemberSessions
          let member = try database.deviceRefusal(peer, publicKey: key) == nil
          let refusal = state.withLock { state -> String? in
            state.pending.removeValue(forKey: id)
            guard !state.isShuttingDown, state.sessions.count < maxConnections else {
              return "the server is busy or shutting down (\(maxConnections) sessions at most); try again later"
            }
            guard state.sessions.values.count(where: { $0.peer == peer }) < perPeer else {
              return "device \(peer) has \(perPeer) sessions on this server already, its limit (maxSessionsPerPeer); try again when one ends"
            }
            guard member || state.sessions.values.count(where: { !$0.member }) < nonMembers else {
              return "the server holds \(nonMembers) sessions of devices outside its group already (maxNonMemberSessions); try again later"
            }
            state.sessions[id] = (connection.channel, peer, member)
            return nil
          }
          if let refusal {
            await connection.sendFailureQuietly(refusal)
            throw NetworkSyncError.refusedByPeer(peer: connection.peerName, message: "refused: \(refusal)")
          }
          report.remotePeer = peer
          logger[metadataKey: "peer"] = "\(peer.shortDescription)"
          logger.debug("authenticated")
          try await session(&connection, device: (peer, key), report: &report)
          report.bytesSent = connection.bytesSent
          report.bytesReceived = connection.bytesReceived
        } catch let error as NetworkSyncError {
          // Tell the peer what went wrong, when it can still hear it.
          switch error {
          case .protocolViolation, .frameTooLarge, .timedOut, .eventTooLarge: await connection.sendFailureQuietly("\(error)")
          default: break
          }
          throw error
        } catch let error as BlobError {
          await connection.sendFailureQuietly("\(error)")
          throw error
        }
      }
      logger.info(
        "session done",
        metadata: [
          "received": "\(report.received.appliedEvents) applied, \(report.received.duplicateEvents) duplicates",
          "sent": "\(report.sentEvents)", "blobs": "\(report.sentBlobs) sent, \(report.receivedBlobs.stored) received", "seconds": "\(String(format: "%.2f", (ContinuousClock.now - start).seconds))",
        ])
    } catch {
      switch error {
      case NetworkSyncError.authenticationFailed, NetworkSyncError.protocolViolation, NetworkSyncError.frameTooLarge, NetworkSyncError.timedOut,
        is SyncError, is BlobError:
        logger.warning("disconnected", metadata: ["reason": "\(error)"])
      default:
        logger.notice("session ended", metadata: ["reason": "\(error)"])
      }
    }
  }

  /// The blob store, or a refusal the client is told about.
  private func blobStore(_ connection: inout FramedConnection) async throws -> any BlobStore {
    if let blobs { return blobs }
    await connection.sendFailureQuietly("this server keeps no blobs")
    throw NetworkSyncError.protocolViolation(peer: connection.peerName, reason: "asked for blobs, which this server does not keep")
  }

  /// Refuses a request of a device that is not (or no longer) a member of
  /// the server's group: only pushing its events (its join) is open to it.
  private func requireMember(_ device: (peer: PeerID, key: [UInt8]?), _ connection: inout FramedConnection) async throws {
    // A short read, as in the handshake: not queued behind other sessions' merges.
    guard let refusal = try database.deviceRefusal(device.peer, publicKey: device.key) else { return }
    await connection.sendFailureQuietly("device \(device.peer) may not fetch from or store on this server: \(refusal)")
    throw NetworkSyncError.authenticationFailed(peer: connection.peerName, reason: refusal)
  }

  /// After the handshake: answers the client's requests until it says bye.
  private func session(
    _ connection: inout FramedConnection, device: (peer: PeerID, key: [UInt8]?), report: inout NetworkSyncReport
  ) async throws {
    while true {
      let request = try await connection.receive("a request", within: configuration.frameTimeout)
      // Its data may have been deleted since the handshake (no group any more).
      try await Handshake.requireKeyOrGroup(database, configuration: configuration, telling: &connection)
      switch request {
      case .vector, .blobQuery, .blobRequest, .blob, .blobPart:
        try await requireMember(device, &connection)
      default:
        break
      }
      switch request {
      case .vectorRequest:
        var vector = try await offload { [database] in try database.versionVector() }
        // The vector tells what the group wrote and who wrote it: a device
        // that is not a member (yet) learns its own entry only, which is all
        // it needs to push its join request.
        let isMember = try database.deviceRefusal(device.peer, publicKey: device.key) == nil
        if !isMember {
          vector = VersionVector([device.peer: vector[device.peer]])
        }
        // Routes it lacks, of events it would forward: asked of members only.
        let wants = connection.protocolVersion >= 6 && isMember ? try await offload { [database] in try database.routeWants() } : []
        try await connection.send(.vector(vector, wants: wants))
        report.received.add(
          try await EventStreams.receive(into: database, over: &connection, configuration: configuration, takesRoutes: isMember, progress: nil))
      case .vector(let vector, let wants):
        let outgoing: OutgoingEvents
        do {
          outgoing = try await offload { [database] in try OutgoingEvents(from: database, beyond: vector) }
        } catch let error as SyncError {
          await connection.sendFailureQuietly("\(error)")
          throw error
        } catch let error as ChronicleError {
          // This side may not send (writes made around Chronicle, a key
          // file missing): the client is told why, as `sync` tells its user.
          await connection.sendFailureQuietly("the server refuses to send its events: \(error)")
          throw error
        }
        let (sent, applied) = try await EventStreams.send(
          outgoing, answering: wants, over: &connection, configuration: configuration, progress: nil)
        report.sentEvents += sent
        report.remoteApplied += applied
      case .blobQuery(let hashes):
        try await BlobStreams.answerQuery(hashes, store: try blobStore(&connection), over: &connection)
      case .blobRequest(let hashes):
        report.sentBlobs += try await BlobStreams.serveRequest(hashes, from: try blobStore(&connection), over: &connection, configuration: configuration)
      case .blob, .blobPart:
        report.receivedBlobs.add(
          try await BlobStreams.receivePush(first: request, into: try blobStore(&connection), over: &connection, configuration: configuration))
      case .bye:
        return
      default:
        throw connection.unexpected(request, waitingFor: "a request")
      }
    }
  }
}
