import Chronicle
@testable import ChronicleRelay
import Foundation
import NIOCore
import NIOEmbedded
import NIOPosix
import Testing

import ChronicleTestSupport

@testable import ChronicleNetwork

/// A relay on the open internet meets sockets that never send a request,
/// bytes that are no HTTP, and floods from a few addresses: none of them may
/// hold a slot for long, or keep a member's device out.
@Suite("Relay: connection limits")
struct RelayConnectionLimitsTests {
  /// Opens a TCP connection to the relay from `source` (a loopback address
  /// other than the members' 127.0.0.1) and sends `bytes`, then nothing.
  static func openSocket(to port: Int, from source: String, sending bytes: [UInt8] = []) async throws -> any Channel {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .bind(to: try SocketAddress(ipAddress: source, port: 0))
      .connect(host: "127.0.0.1", port: port).get()
    // (The relay may have closed it already: over a cap.)
    if !bytes.isEmpty { try? await channel.writeAndFlush(ByteBuffer(bytes: bytes)).get() }
    return channel
  }

  /// What a careless or hostile client sends instead of a request.
  static let notRequests: [(what: String, bytes: [UInt8])] = {
    var generator = SystemRandomNumberGenerator()
    return [
      ("random bytes", (0..<512).map { _ in UInt8.random(in: 0...255, using: &generator) }),
      ("a 1 MiB header", Array("GET /health HTTP/1.1\r\nHost: relay\r\nX-Padding: ".utf8) + [UInt8](repeating: 0x61, count: 1 << 20)),
      ("an HTTP/2 preface", Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)),
      ("a TLS client hello", [0x16, 0x03, 0x01, 0x00, 0x2F, 0x01, 0x00, 0x00, 0x2B, 0x03, 0x03] + [UInt8](repeating: 0x42, count: 40)),
      ("half a request", Array("GET /health HTTP/1.1\r\nHost: rel".utf8)),
      ("nothing", []),
    ]
  }()

  @Test func connectionsThatAreNoMembersSessionAreClosedAfterTheRequestTimeoutAndSessionsAreKept() async throws {
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone")
    try phone.createGroup()
    var configuration = relayConfiguration(directory.path("relay.sqlite"))
    configuration.requestTimeout = .seconds(1)
    try await withRelay(configuration) { url, relay in
      let port = try await relay.port
      var sockets: [(what: String, channel: any Channel)] = []
      for (what, bytes) in Self.notRequests {
        sockets.append((what, try await Self.openSocket(to: port, from: "127.0.0.2", sending: bytes)))
      }
      // An HTTP client keeping its connection after an answer.
      let health = try await Self.openSocket(to: port, from: "127.0.0.2", sending: Array("GET /health HTTP/1.1\r\nHost: relay\r\n\r\n".utf8))
      sockets.append(("a health check, then nothing", health))
      // A WebSocket that never proves a member is cut; a member's session
      // that then waits past the request timeout is kept.
      try await withRawConnection(url) { connection in
        _ = try await connection.receive()  // the challenge
        try await Task.sleep(for: .seconds(3))
        #expect(try await connection.receive() == nil, "a WebSocket without a hello outlived the request timeout")
      }
      try await withRawConnection(url) { connection in
        guard case .welcome = try await connection.identify(as: phone) else {
          Issue.record("the phone was not admitted")
          return
        }
        try await Task.sleep(for: .seconds(3))
        try await connection.send(.pull(VersionVector(), live: false))
        var caughtUp = false
        while let message = try await connection.receive() {
          if case .caughtUp = message { caughtUp = true; break }
        }
        #expect(caughtUp, "a member's session was cut by the request timeout")
      }
      for (what, channel) in sockets {
        let closed = try await eventually(within: .seconds(10)) { !channel.isActive }
        #expect(closed, "a socket that sent \(what) is still open")
      }
      let metrics = try await httpGet(url, "/metrics", token: testMetricsToken).body
      #expect(metrics.contains(#"chronicle_relay_refusals_total{reason="request_timeout"}"#), "\(metrics)")
    }
  }

  @Test func floodsOfSocketsNeverLockMembersOut() async throws {
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone")
    let laptop = try makeDevice(directory, "laptop")
    try phone.createGroup()
    try enroll(laptop, with: phone, in: directory)
    try writeNotes(phone, 1...10)
    var configuration = relayConfiguration(directory.path("relay.sqlite"))
    configuration.maxConnections = 40
    configuration.maxConnectionsPerAddress = 20
    // Long: what frees slots here is the caps, not the timeout.
    configuration.requestTimeout = .seconds(120)
    var sockets: [String: [any Channel]] = [:]
    try await withRelay(configuration) { url, relay in
      let port = try await relay.port
      for address in ["127.0.0.2", "127.0.0.3", "127.0.0.4"] {
        for index in 0..<25 {
          let bytes = Self.notRequests[index % Self.notRequests.count].bytes
          sockets[address, default: []].append(try await Self.openSocket(to: port, from: address, sending: bytes))
        }
      }
      // Past 20 from one address, a newcomer takes the slot of that address's oldest.
      for (address, channels) in sockets {
        #expect(try await eventually(within: .seconds(10)) { channels.filter(\.isActive).count <= 20 }, "\(address) holds more than its cap")
      }
      // Every slot is held by sockets that are no member's session: the
      // members' devices still sync, and the health check answers, each
      // taking the slot of the oldest such socket.
      #expect(try await httpGet(url, "/health") == (200, "ok\n"))
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      _ = try await transport.sync(phone)
      _ = try await transport.sync(laptop)
      #expect(try laptop.notesDigest() == phone.notesDigest())
      let all = sockets.values.flatMap { $0 }
      // (This side sees an eviction once it reads the close.)
      #expect(try await eventually(within: .seconds(10)) { all.filter(\.isActive).count < 40 }, "no socket was evicted for the members")
      let metrics = try await httpGet(url, "/metrics", token: testMetricsToken).body
      #expect(metrics.contains(#"chronicle_relay_refusals_total{reason="evicted_unadmitted"}"#), "\(metrics)")
    }
    // Stopping, the relay closed the sockets that were no session (it does
    // not wait out their 30 s timeout; beside a heavy suite, closing took over 10 s once).
    #expect(try await eventually(within: .seconds(20)) { sockets.values.flatMap { $0 }.allSatisfy { !$0.isActive } })
  }

  @Test func aFullAddressOrRelayRefusesNewcomersOnlyWhenEverySlotIsAMembersSession() throws {
    let metrics = RelayMetrics()
    let connections = ConnectionGuard(limits: .init(total: 3, perAddress: 2, requestTimeout: .seconds(10)), metrics: metrics)
    func connected() throws -> EmbeddedChannel {
      let channel = EmbeddedChannel()
      try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 7440)).wait()
      return channel
    }
    let channels = try (0..<6).map { _ in try connected() }
    #expect(channels.allSatisfy { $0.isActive })
    #expect(connections.admit(channels[0], address: "a") == nil)
    #expect(connections.admit(channels[1], address: "a") == nil)
    #expect(connections.admitted(channels[0]))
    // The address is full: its newcomer takes the slot of its session-less one.
    #expect(connections.admit(channels[2], address: "a") == nil)
    #expect(!channels[1].isActive, "the waiting connection of the full address was not evicted")
    #expect(!connections.admitted(channels[1]), "an evicted connection became a session")
    #expect(connections.admitted(channels[2]))
    // Both of the address's slots are sessions: refused.
    #expect(connections.admit(channels[3], address: "a") == .tooManyFromAddress("a"))
    // The relay is full once b arrives; the next newcomer evicts b, the only waiting one.
    #expect(connections.admit(channels[4], address: "b") == nil)
    #expect(connections.admit(channels[5], address: "c") == nil)
    #expect(!channels[4].isActive)
    #expect(connections.admitted(channels[5]))
    #expect(connections.admit(try connected(), address: "d") == .full)
    // Closing gives slots back, once each (an evicted one's was given back already).
    connections.closed(channels[1], address: "a")
    connections.closed(channels[4], address: "b")
    #expect(connections.openConnections == 3)
    connections.closed(channels[0], address: "a")
    #expect(connections.openConnections == 2)
    #expect(connections.admit(channels[3], address: "a") == nil)
  }

  @Test func metricsAreOffWithoutATokenAndTheHealthCheckTellsNoDetail() async throws {
    let directory = try TemporaryDirectory()
    var configuration = relayConfiguration(directory.path("relay.sqlite"))
    configuration.metricsToken = nil
    try await withRelay(configuration) { url, _ in
      let metrics = try await httpGet(url, "/metrics", token: "anything-at-all-0000")
      #expect(metrics.status == 404)
      #expect(metrics.body.contains("--metrics-token-file"))
      #expect(try await httpGet(url, "/health") == (200, "ok\n"))
    }
  }
}
