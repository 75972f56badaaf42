import Chronicle
import ChronicleTestSupport
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import ChronicleNetwork

#if canImport(Glibc)
  import Glibc
#endif

/// What a server spends on connections that have not proved anything, and
/// on peers that stop reading: bounded, so members keep getting through.
@Suite("TCP server: floods of idle sockets, peers that stop reading")
struct ServerLimitsTests {
  /// A plain socket connected to `port` that never sends a byte; `-1` when
  /// the connection failed. It connects from 127.0.0.2 (all of 127/8 is
  /// loopback on Linux), an address of its own as a flood's would be.
  static func idleSocket(port: Int) -> Int32 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var source = sockaddr_in()
    source.sin_family = sa_family_t(AF_INET)
    source.sin_addr.s_addr = inet_addr("127.0.0.2")
    let bound = withUnsafePointer(to: &source) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else {
      close(descriptor)
      return -1
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
      close(descriptor)
      return -1
    }
    return descriptor
  }

  @Test func membersSyncWhileAFloodOfIdleSocketsHoldsTheServer() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server")
    try writeItems(server, from: 1, count: 5)
    var configuration = testConfiguration(key: .generate())
    configuration.handshakeTimeout = .seconds(10)
    configuration.helloTimeout = .seconds(10)  // idle sockets would stay for 10 s each
    // Small budgets, so that a few hundred sockets overflow them: the test
    // process shares its descriptors with the tests running beside it. The
    // flood fills its address's budget and evicts its own oldest sockets;
    // members, from another address, are never the ones dropped, however
    // slowly a loaded machine lets them say hello. (With members on the
    // flood's address, one that took over 80 ms was evicted: a CI failure.)
    configuration.maxPendingHandshakes = 32
    configuration.maxPendingHandshakesPerAddress = 16
    try await withServer(server, configuration: configuration, maxConnections: 4) { running in
      // 100 idle sockets first (three times the budget), then ~200 more a
      // second while members sync, 250 at most in all.
      let opened = Mutex<[Int32]>([])
      for _ in 0..<100 { opened.withLock { $0.append(Self.idleSocket(port: running.port)) } }
      let flooding = Atomic<Bool>(true)
      let flood = Thread {
        while flooding.load(ordering: .relaxed), opened.withLock({ $0.count }) < 250 {
          opened.withLock { $0.append(Self.idleSocket(port: running.port)) }
          usleep(5_000)
        }
      }
      flood.start()
      defer {
        flooding.store(false, ordering: .relaxed)
        usleep(20_000)
        for descriptor in opened.withLock({ $0 }) where descriptor >= 0 { close(descriptor) }
      }
      var synced = 0
      for index in 0..<3 {
        let member = try makePeer(directory, "member\(index)")
        _ = try await TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration).sync(member)
        #expect(try member.itemDigest() == server.itemDigest())
        synced += 1
      }
      #expect(synced == 3)
      #expect(opened.withLock { $0.count { $0 >= 0 } } > 100)
    }
  }

  /// Connects to `port` from `source` (an address of 127/8) and runs `body`
  /// on the connection, before any handshake.
  static func open(port: Int, from source: String, _ body: @escaping @Sendable (inout FramedConnection) async throws -> Void) async throws {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .bind(to: try SocketAddress(ipAddress: source, port: 0))
      .connect(host: "127.0.0.1", port: port) { channel in SyncChannel.wrap(channel, address: "server") }
    try await channel.run(writeTimeout: .seconds(5)) { connection in try await body(&connection) }
  }

  /// The server waits a request for longer than a test fills its limits:
  /// a session held while the others are made is not dropped as idle
  /// (with 10 s, a loaded machine freed the first before the last came).
  func sessionHoldingConfiguration() -> NetworkSyncConfiguration {
    var configuration = testConfiguration(key: .generate())
    configuration.frameTimeout = .seconds(300)
    return configuration
  }

  /// Opens a session as `peer` and holds it (until the server closes it), counted in
  /// `held` once the handshake is done. A handshake that fails (on a loaded
  /// machine one can outlast its timeout) is tried again, so the count
  /// reaches what the server allows rather than what the machine managed.
  static func holdSession(port: Int, as peer: ChronicleDatabase, configuration: NetworkSyncConfiguration, held: Tally) async {
    while !Task.isCancelled {
      let admitted = Tally()
      try? await open(port: port, from: "127.0.0.1") { connection in
        _ = try await Handshake.client(&connection, database: peer, configuration: configuration)
        admitted.add()
        held.add()
        try await Task.sleep(for: .seconds(300))
      }
      if admitted.count > 0 { return }
      try? await Task.sleep(for: .milliseconds(200))
    }
  }

  /// Hellos cost nothing to send (no key is needed before the challenge).
  /// Connections from two addresses that each say hello and then wait fill
  /// every handshake slot; a member at a third address still syncs, in the
  /// slot of the oldest from the address holding the most.
  @Test func hellosFromAFewAddressesCannotKeepAMemberOut() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server")
    try writeItems(server, from: 1, count: 5)
    var configuration = testConfiguration(key: .generate())
    configuration.handshakeTimeout = .seconds(30)
    configuration.helloTimeout = .seconds(30)
    configuration.maxPendingHandshakes = 16
    configuration.maxPendingHandshakesPerAddress = 8
    try await withServer(server, configuration: configuration, maxConnections: 4) { running in
      let spoke = Tally()
      // On the sessions' threads: a loaded machine's shared pool (CI's first
      // minutes, every suite starting) left 24 connections unmade for a minute.
      let flood = Task(executorPreference: SessionExecutor.shared) {
        await withTaskGroup(of: Void.self) { group in
          for index in 0..<24 {
            group.addTask {
              // Counted once it said hello, or was cut before (its address's newer ones evict it).
              let ran = Tally()
              try? await Self.open(port: running.port, from: index % 2 == 0 ? "127.0.0.2" : "127.0.0.3") { connection in
                ran.add()
                let nonce = (0..<32).map { _ in UInt8.random(in: 1...255) }
                do {
                  try await connection.send(.hello(version: WireMessage.protocolVersion, peer: PeerID(UUID()), nonce: nonce))
                } catch {
                  spoke.add()
                  return
                }
                spoke.add()
                try await Task.sleep(for: .seconds(60))
              }
              if ran.count == 0 { spoke.add() }
            }
          }
        }
      }
      defer { flood.cancel() }
      #expect(try await eventually(timeout: .seconds(120)) { spoke.count == 24 })
      try await Task.sleep(for: .milliseconds(500))  // the server has read every hello
      let member = try makePeer(directory, "member")
      _ = try await TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration).sync(member)
      #expect(try member.itemDigest() == server.itemDigest())
    }
  }

  /// A device holding sessions open (a request now and then keeps each
  /// alive) gets at most ``NetworkSyncConfiguration/maxSessionsPerPeer``;
  /// the other members still find sessions free.
  @Test func oneDeviceCannotTakeEverySession() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server")
    try writeItems(server, from: 1, count: 5)
    let configuration = sessionHoldingConfiguration()
    let hog = try makePeer(directory, "hog")
    try await withServer(server, configuration: configuration, maxConnections: 6) { running in
      let held = Tally()
      let holding = Task(executorPreference: SessionExecutor.shared) {
        await withTaskGroup(of: Void.self) { group in
          for _ in 0..<configuration.maxSessionsPerPeer {
            group.addTask {
              await Self.holdSession(port: running.port, as: hog, configuration: configuration, held: held)
            }
          }
        }
      }
      defer { holding.cancel() }
      #expect(try await eventually(timeout: .seconds(90)) { held.count == configuration.maxSessionsPerPeer })
      try await Task.sleep(for: .milliseconds(300))
      do {
        _ = try await TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration).sync(hog)
        Issue.record("a device got a session beyond its limit")
      } catch {
        #expect("\(error)".contains("has \(configuration.maxSessionsPerPeer) sessions on this server already"), "\(error)")
      }
      let member = try makePeer(directory, "member")
      _ = try await TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration).sync(member)
      #expect(try member.itemDigest() == server.itemDigest())
    }
  }

  /// Any holder of the group key can make up device ids: devices outside
  /// the server's group share a few sessions, and a member still finds one.
  @Test func devicesOutsideTheGroupShareAFewSessions() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server")
    try server.createGroup()
    let configuration = sessionHoldingConfiguration()
    try await withServer(server, configuration: configuration, maxConnections: 16) { running in
      let held = Tally()
      let strangers = try (0..<configuration.maxNonMemberSessions).map { try makePeer(directory, "stranger\($0)") }
      let holding = Task(executorPreference: SessionExecutor.shared) {
        await withTaskGroup(of: Void.self) { group in
          for stranger in strangers {
            group.addTask {
              await Self.holdSession(port: running.port, as: stranger, configuration: configuration, held: held)
            }
          }
        }
      }
      defer { holding.cancel() }
      #expect(try await eventually(timeout: .seconds(90)) { held.count == configuration.maxNonMemberSessions })
      try await Task.sleep(for: .milliseconds(300))
      let another = try makePeer(directory, "another stranger")
      do {
        _ = try await TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration).send(from: another)
        Issue.record("a device outside the group got a session beyond the limit")
      } catch {
        #expect("\(error)".contains("sessions of devices outside its group already (maxNonMemberSessions)"), "\(error)")
      }
    }
  }

  /// The handshake budgets count an IPv6 address by its /64, which one
  /// machine commonly holds whole; IPv4 addresses, and IPv4 mapped into IPv6, by the address.
  @Test func handshakeBudgetsGroupIPv6AddressesByTheirSlash64() throws {
    func group(_ text: String) throws -> String? { SyncServer.addressGroup(try SocketAddress(ipAddress: text, port: 9)) }
    #expect(try group("2001:db8:1:2::5") == group("2001:db8:1:2:ffff:ee:dd:9"))
    #expect(try group("2001:db8:1:2::5") != group("2001:db8:1:3::5"))
    #expect(try group("10.0.0.1") == "10.0.0.1")
    #expect(try group("10.0.0.1") != group("10.0.0.2"))
    #expect(try group("::ffff:10.0.0.1") != group("::ffff:10.0.0.2"))
  }

  @Test func aPeerThatStopsReadingIsCutAfterTheFrameTimeout() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server")
    // About 40 MB that does not compress: far more than the buffers on the way
    // hold (the server's send buffer, at most tcp_wmem's 4 MB, and the reader's).
    try await server.write { db in try db.execute(sql: "CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL) STRICT") }
    for id in 0..<40 {
      try await server.write { db in try db.execute(sql: "INSERT INTO blobs VALUES (?, randomblob(1000000))", arguments: [id]) }
    }
    let logs = LogRecorder()
    var configuration = testConfiguration(key: .generate(), logs: logs)
    configuration.frameTimeout = .seconds(1)
    try await withServer(server, configuration: configuration) { running in
      try await withTaskExecutorPreference(SessionExecutor.shared) {
        let reader = try makePeer(directory, "reader")
        // A small receive buffer: Linux grows a loopback socket's buffer up
        // to tcp_rmem's maximum (32 MB on Debian), enough to swallow what the
        // server sends, and then the server would wait on a report instead.
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
          .channelOption(.socketOption(.so_rcvbuf), value: 64 << 10)
          .connect(host: "127.0.0.1", port: running.port) { channel in SyncChannel.wrap(channel, address: "server") }
        try await channel.run(writeTimeout: .seconds(5)) { connection in
          _ = try await Handshake.client(&connection, database: reader, configuration: configuration)
          // Ask for everything, say it is ready for the stream, then read
          // nothing (this side never sees the server close: it does not
          // read). The server must give up on it.
          try await connection.send(.vector(VersionVector([:])))
          // (Signing 40 MB of events first takes seconds on a loaded machine.)
          let offer = try await connection.receive("an offer", within: .seconds(60))
          guard case .offer = offer else { throw connection.unexpected(offer, waitingFor: "an offer") }
          try await connection.send(.ready)
          // Without the frame timeout the server would wait on this reader
          // for good. The bound is loose: with the heavy suites beside it on
          // two cores, filling the buffers takes seconds.
          let cut = try await eventually(timeout: .seconds(30)) {
            logs.messages(atLeast: .warning).contains { $0.contains("stopped reading") }
          }
          #expect(cut, "\(logs.messages(atLeast: .notice))")
        }
      }
    }
  }
}


/// A count several tasks add to.
final class Tally: Sendable {
  private let value = Atomic<Int>(0)
  func add() { value.add(1, ordering: .relaxed) }
  var count: Int { value.load(ordering: .relaxed) }
}
