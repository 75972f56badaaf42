import Chronicle
import Foundation
import NIOCore
import NIOPosix

/// Syncs with a ``SyncServer`` over TCP: one authenticated connection pushes
/// the events the server lacks, then pulls those this database lacks. Each
/// direction streams in bounded memory and is applied in batches, so an
/// interrupted sync resumes after the last applied batch.
///
/// ```swift
/// let transport = TCPTransport(host: "192.168.1.20", port: 7420, configuration: configuration)
/// let report = try await transport.sync(database)
/// // or, on a timer: SyncEngine(for: database, transport: transport).start()
/// ```
public struct TCPTransport: SyncTransport {
  /// The server's host name or address.
  public let host: String
  /// The server's port.
  public let port: Int
  /// The group key, limits and timeouts.
  public let configuration: NetworkSyncConfiguration
  /// Called as events are sent and applied.
  public var progress: (@Sendable (NetworkSyncProgress) -> Void)?

  /// A transport to the server at `host`:`port`.
  public init(host: String, port: Int, configuration: NetworkSyncConfiguration, progress: (@Sendable (NetworkSyncProgress) -> Void)? = nil) {
    self.host = host
    self.port = port
    self.configuration = configuration
    self.progress = progress
  }

  /// Parses `HOST:PORT` (`[IPv6]:PORT` for IPv6 addresses).
  public init(address: String, configuration: NetworkSyncConfiguration, progress: (@Sendable (NetworkSyncProgress) -> Void)? = nil) throws {
    guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]), (1...65_535).contains(port) else {
      throw NetworkSyncError.unreachable(address: address, reason: "expected HOST:PORT, for instance 192.168.1.20:7420")
    }
    var host = String(address[..<colon])
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    guard !host.isEmpty else { throw NetworkSyncError.unreachable(address: address, reason: "no host before the port") }
    self.init(host: host, port: port, configuration: configuration, progress: progress)
  }

  /// Pushes this database's news, then pulls the server's, on one connection.
  public func sync(_ database: ChronicleDatabase) async throws -> NetworkSyncReport {
    try await session(database, push: true, pull: true)
  }

  /// Pushes only: sends the events the server lacks; returns how many.
  public func send(from database: ChronicleDatabase) async throws -> Int {
    try await session(database, push: true, pull: false).sentEvents
  }

  /// Pulls only: merges the events this database lacks.
  public func fetch(into database: ChronicleDatabase) async throws -> FetchReport {
    var report = FetchReport()
    report.merged = try await session(database, push: false, pull: true).received
    report.appliedSources = ["tcp:\(host):\(port)"]
    return report
  }

  /// Pushes, then pulls, on one connection (what ``SyncEngine/syncChanges()`` uses).
  public func exchange(with database: ChronicleDatabase) async throws -> (sent: Int, fetched: FetchReport) {
    let session = try await sync(database)
    var fetched = FetchReport()
    fetched.merged = session.received
    fetched.appliedSources = ["tcp:\(host):\(port)"]
    return (session.sentEvents, fetched)
  }

  /// Fetches the blobs of `hashes` that `store` lacks from the server,
  /// storing each (verified against its hash) as it arrives: an interrupted
  /// fetch keeps what it stored, and the next one asks only for the rest.
  /// Blobs the server does not hold either are listed in the report's
  /// ``BlobTransferReport/unavailable``. Connects only when something is missing.
  ///
  /// - Parameter database: who this side is in the handshake: its peer id
  ///   and device key (the server's allow list and member list apply to it).
  public func fetchBlobs(
    _ hashes: some Sequence<BlobHash>, into store: some BlobStore, as database: ChronicleDatabase, progress: (@Sendable (BlobTransferReport) -> Void)? = nil
  ) async throws -> BlobTransferReport {
    let missing = try await offload { [hashes = Array(hashes)] in try store.missing(hashes) }
    guard !missing.isEmpty else { return BlobTransferReport() }
    return try await blobSession(as: database) { connection in
      try await BlobStreams.fetch(missing, into: store, over: &connection, configuration: configuration, progress: progress)
    }
  }

  /// Sends the server the blobs of `hashes` it lacks, read from `store`.
  /// Blobs `store` does not hold are listed in ``BlobTransferReport/unavailable``.
  /// `database` is this side in the handshake, as for ``fetchBlobs(_:into:as:progress:)``.
  public func sendBlobs(
    _ hashes: some Sequence<BlobHash>, from store: some BlobStore, as database: ChronicleDatabase, progress: (@Sendable (BlobTransferReport) -> Void)? = nil
  ) async throws -> BlobTransferReport {
    var unique = Set<BlobHash>()
    let hashes = hashes.filter { unique.insert($0).inserted }
    guard !hashes.isEmpty else { return BlobTransferReport() }
    return try await blobSession(as: database) { connection in
      try await BlobStreams.push(hashes, from: store, over: &connection, configuration: configuration, progress: progress)
    }
  }

  private func blobSession(as database: ChronicleDatabase, _ body: @escaping (inout FramedConnection) async throws -> BlobTransferReport) async throws -> BlobTransferReport {
    try await withTaskExecutorPreference(SessionExecutor.shared) {
      let channel = try await connect(for: database)
      return try await channel.run(writeTimeout: configuration.frameTimeout) { connection in
        _ = try await Handshake.client(&connection, database: database, configuration: configuration)
        let report = try await body(&connection)
        try await connection.send(.bye)
        return report
      }
    }
  }

  /// Connects to the server, once `database` may sync with this
  /// configuration's key (a database in no group needs a key file).
  private func connect(for database: ChronicleDatabase) async throws -> SyncChannel {
    try Handshake.requireKeyOrGroup(database, configuration: configuration)
    do {
      return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .channelOption(.socketOption(.tcp_nodelay), value: 1)
        .connectTimeout(.nanoseconds(configuration.handshakeTimeout.nanoseconds))
        .connect(host: host, port: port) { [host, port] channel in SyncChannel.wrap(channel, address: "\(host):\(port)") }
    } catch {
      throw NetworkSyncError.unreachable(address: "\(host):\(port)", reason: "\(error)")
    }
  }

  private func session(_ database: ChronicleDatabase, push: Bool, pull: Bool) async throws -> NetworkSyncReport {
    try await withTaskExecutorPreference(SessionExecutor.shared) {
      try await runSession(database, push: push, pull: pull)
    }
  }

  private func runSession(_ database: ChronicleDatabase, push: Bool, pull: Bool) async throws -> NetworkSyncReport {
    let channel = try await connect(for: database)
    return try await channel.run(writeTimeout: configuration.frameTimeout) { connection in
      var report = NetworkSyncReport()
      report.remotePeer = try await Handshake.client(&connection, database: database, configuration: configuration)
      if push {
        try await connection.send(.vectorRequest)
        let answer = try await connection.receive("its version vector", within: configuration.frameTimeout)
        guard case .vector(let vector, let wants) = answer else { throw connection.unexpected(answer, waitingFor: "its version vector") }
        let outgoing = try await offload { try OutgoingEvents(from: database, beyond: vector) }
        (report.sentEvents, report.remoteApplied) = try await EventStreams.send(
          outgoing, answering: wants, over: &connection, configuration: configuration, progress: progress)
      }
      if pull {
        let carriesWants = connection.protocolVersion >= 6
        let (vector, wants) = try await offload { (try database.versionVector(), carriesWants ? try database.routeWants() : []) }
        try await connection.send(.vector(vector, wants: wants))
        report.received = try await EventStreams.receive(into: database, over: &connection, configuration: configuration, progress: progress)
      }
      try await connection.send(.bye)
      report.bytesSent = connection.bytesSent
      report.bytesReceived = connection.bytesReceived
      return report
    }
  }
}

extension SyncTransport where Self == TCPTransport {
  /// Syncs with a ``SyncServer`` at `host`:`port`.
  public static func tcp(host: String, port: Int, configuration: NetworkSyncConfiguration) -> TCPTransport {
    TCPTransport(host: host, port: port, configuration: configuration)
  }

  /// Syncs with a ``SyncServer`` at `host`:`port`, with the group's key and default settings.
  public static func tcp(host: String, port: Int, key: SyncKey) -> TCPTransport {
    TCPTransport(host: host, port: port, configuration: NetworkSyncConfiguration(key: key))
  }
}
