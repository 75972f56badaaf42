import Chronicle
import ChronicleRelay
import Foundation
import NIOCore
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

  @Test func socketsThatSendNoRequestAreClosedAfterTheRequestTimeoutAndAnsweredOnesAreKept() async throws {
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
      // A WebSocket the relay answered (its challenge) and that then waits
      // past the request timeout is a device being slow, not a stray socket.
      try await withRawConnection(url) { connection in
        try await Task.sleep(for: .seconds(3))
        guard case .welcome = try await connection.identify(as: phone) else {
          Issue.record("an answered connection was cut by the request timeout")
          return
        }
      }
      for (what, channel) in sockets {
        let closed = try await eventually(within: .seconds(10)) { !channel.isActive }
        #expect(closed, "a socket that sent \(what) is still open")
      }
      let metrics = try await httpGet(url, "/metrics", token: testMetricsToken).body
      #expect(metrics.contains(#"chronicle_relay_refusals_total{reason="request_timeout"}"#), "\(metrics)")
    }
  }

  @Test func floodsOfUnansweredSocketsNeverLockMembersOut() async throws {
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone")
    let laptop = try makeDevice(directory, "laptop")
    try phone.createGroup()
    try enroll(laptop, with: phone, in: directory)
    try writeNotes(phone, 1...10)
    var configuration = relayConfiguration(directory.path("relay.sqlite"))
    configuration.maxConnections = 40
    configuration.maxConnectionsPerAddress = 20
    // Long: what frees slots here is the cap, not the timeout.
    configuration.requestTimeout = .seconds(120)
    var kept: [any Channel] = []
    try await withRelay(configuration) { url, relay in
      let port = try await relay.port
      var overTheCap: [any Channel] = []
      for address in ["127.0.0.2", "127.0.0.3", "127.0.0.4"] {
        for index in 0..<25 {
          let bytes = Self.notRequests[index % Self.notRequests.count].bytes
          let channel = try await Self.openSocket(to: port, from: address, sending: bytes)
          if index < 20 { kept.append(channel) } else { overTheCap.append(channel) }
        }
      }
      // Past 20 from one address, a connection is closed at once.
      for channel in overTheCap {
        #expect(try await eventually(within: .seconds(10)) { !channel.isActive }, "a connection over the per-address cap is open")
      }
      // Every slot but a few is held by sockets that sent no request: the
      // members' devices still sync, and the health check answers, each
      // taking the slot of the oldest unanswered socket.
      #expect(try await httpGet(url, "/health") == (200, "ok\n"))
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      _ = try await transport.sync(phone)
      _ = try await transport.sync(laptop)
      #expect(try laptop.notesDigest() == phone.notesDigest())
      // (This side sees an eviction once it reads the close.)
      let evictedForMembers = try await eventually(within: .seconds(10)) { kept.filter(\.isActive).count < 40 }
      #expect(evictedForMembers, "no unanswered socket was evicted for the members")
      let metrics = try await httpGet(url, "/metrics", token: testMetricsToken).body
      #expect(metrics.contains(#"chronicle_relay_refusals_total{reason="connections_per_address"} 15"#), "\(metrics)")
      #expect(metrics.contains(#"chronicle_relay_refusals_total{reason="evicted_unanswered"}"#), "\(metrics)")
    }
    // Stopping, the relay closed the sockets it never answered (it does not wait out their timeout).
    #expect(try await eventually(within: .seconds(10)) { kept.allSatisfy { !$0.isActive } })
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
