import Chronicle
import ChronicleNetwork
import ChronicleRelay
import Foundation
import HTTPTypes
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import NIOCore
import Synchronization
import Testing
import WSClient
import WSCore

import ChronicleTestSupport

@testable import ChronicleNetwork

/// A device with a `notes` table.
func makeDevice(_ directory: TemporaryDirectory, _ name: String) throws -> ChronicleDatabase {
  let database = try Chronicle.open(path: directory.path("\(name).sqlite"))
  try database.write { db in
    try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, stars INTEGER NOT NULL DEFAULT 0) STRICT")
  }
  return database
}

/// Writes notes `ids`, one transaction for all, each body naming the writer and `tag`.
func writeNotes(_ database: ChronicleDatabase, _ ids: some Sequence<Int>, tag: String = "") throws {
  try database.write { db in
    for id in ids {
      try db.execute(
        sql: "INSERT INTO notes (id, body) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body",
        arguments: [id, "note \(id) by \(database.peerID.shortDescription)\(tag)"])
    }
  }
}

extension ChronicleDatabase {
  func notesDigest() throws -> TableDigest? { try digests().first { $0.table == "notes" } }
  func noteCount() throws -> Int { try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM notes") ?? 0 } }
}

let quietLogger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

/// A relay configuration on a free loopback port, storing in `path`.
func relayConfiguration(_ path: String) -> RelayServerConfiguration {
  var configuration = RelayServerConfiguration(storage: .sqlite(path: path), logger: quietLogger)
  configuration.port = 0
  configuration.handshakeTimeout = .seconds(20)
  configuration.requestTimeout = .seconds(30)
  configuration.metricsToken = testMetricsToken
  configuration.openGroups = true
  return configuration
}

/// Runs a relay while `body` runs; stops it after.
func withRelay<T>(_ configuration: RelayServerConfiguration, _ body: (_ url: String, _ relay: RelayServer) async throws -> T) async throws -> T {
  let relay = try await RelayServer(configuration: configuration)
  let running = Task { try await relay.run() }
  let port = try await relay.port
  do {
    let result = try await body("ws://127.0.0.1:\(port)", relay)
    running.cancel()
    _ = try? await running.value
    return result
  } catch {
    running.cancel()
    _ = try? await running.value
    throw error
  }
}

/// A client configuration with short timeouts.
func clientConfiguration() -> RelayConfiguration {
  var configuration = RelayConfiguration(logger: quietLogger)
  configuration.handshakeTimeout = .seconds(20)
  configuration.responseTimeout = .seconds(20)
  configuration.reconnectDelay = .milliseconds(50)
  configuration.maxReconnectDelay = .milliseconds(500)
  configuration.localPollInterval = .milliseconds(200)
  return configuration
}

/// Talks the relay protocol by hand, to play a careless or hostile device.
final class RawRelayConnection {
  let link: RelayLink
  private let outbound: WebSocketOutboundWriter
  private var frames: WebSocketInboundStream.AsyncIterator
  /// The last hello sent, to replay it.
  private(set) var lastHello: RelayMessage?
  /// The relay connected to, as a hello names it.
  let relayName: String

  init(link: RelayLink, outbound: WebSocketOutboundWriter, frames: WebSocketInboundStream.AsyncIterator, relayName: String) {
    self.link = link
    self.outbound = outbound
    self.frames = frames
    self.relayName = relayName
  }

  func send(_ message: RelayMessage) async throws {
    if case .hello = message { lastHello = message }
    try await link.send(message)
  }

  /// Sends bytes that may not be a message at all.
  func sendRaw(_ bytes: [UInt8]) async throws { try await outbound.writeBinaryMessage(ByteBuffer(bytes: bytes)) }

  func receive() async throws -> RelayMessage? {
    link.expect("a message", within: .seconds(10))
    return try await link.receive(&frames, maxSize: 80 << 20)
  }

  /// Receives the challenge, then sends a hello signed as `database` for
  /// its group, for the relay named `relay` (by default the one connected to).
  /// (`claiming`: another device's id, signed with `database`'s key.)
  func identify(
    as database: ChronicleDatabase, group: UUID? = nil, membership: [[UInt8]]? = nil, relay: String? = nil, claiming: PeerID? = nil
  ) async throws -> RelayMessage? {
    guard case .challenge(_, let nonce) = try await receive() else { return nil }
    let key = try #require(database.deviceKey)
    let group = try group ?? #require(try database.group)
    let relay = relay ?? relayName
    let device = claiming ?? database.peerID
    let transcript = RelayMessage.helloTranscript(nonce: nonce, group: group, device: device, publicKey: key.publicKey, relay: relay)
    try await send(.hello(
      version: RelayMessage.protocolVersion, group: group, device: device, publicKey: key.publicKey,
      signature: key.signature(for: transcript), relay: relay, membership: try membership ?? database.membershipEvents().map(\.bytes)))
    return try await receive()
  }
}

/// Opens a raw connection to the relay (bringing a group creation `token`,
/// when given) and runs `body` on it.
func withRawConnection(
  _ url: String, creationToken token: String? = nil, _ body: @escaping @Sendable (RawRelayConnection) async throws -> Void
) async throws {
  let failure = Mutex<(any Error)?>(nil)
  var configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20)
  if let token, let header = HTTPField.Name(RelayConfiguration.creationTokenHeader) { configuration.additionalHeaders[header] = token }
  try await WebSocketClient.connect(url: url + "/v1/sync", configuration: configuration, logger: quietLogger) { inbound, outbound, _ in
    let link = RelayLink(peerName: "relay", outbound: outbound)
    do {
      try await body(
        RawRelayConnection(link: link, outbound: outbound, frames: inbound.makeAsyncIterator(), relayName: RelayMessage.relayName(ofURL: url)))
    } catch {
      failure.withLock { $0 = error }
    }
    await link.close()
  }
  if let error = failure.withLock({ $0 }) { throw error }
}

/// Waits until `condition` holds, checking every 50 ms, for at most `limit`.
func eventually(within limit: Duration = .seconds(60), _ condition: () throws -> Bool) async throws -> Bool {
  let deadline = ContinuousClock.now + limit
  while ContinuousClock.now < deadline {
    if try condition() { return true }
    try await Task.sleep(for: .milliseconds(50))
  }
  return try condition()
}

/// The body of an HTTP GET of `path` on the relay at `url` (a ws:// address),
/// with `token` as its bearer token.
func httpGet(_ url: String, _ path: String, token: String? = nil) async throws -> (status: Int, body: String) {
  let address = try #require(URL(string: url.replacingOccurrences(of: "ws://", with: "http://") + path))
  var request = URLRequest(url: address)
  if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
  let (data, response) = try await URLSession.shared.data(for: request)
  return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
}

/// The metrics token test relays are given.
let testMetricsToken = "test-metrics-token-0123456789"

/// ``eventually(within:_:)`` for a condition that awaits.
func eventually(within limit: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws -> Bool {
  let deadline = ContinuousClock.now + limit
  while ContinuousClock.now < deadline {
    if try await condition() { return true }
    try await Task.sleep(for: .milliseconds(50))
  }
  return try await condition()
}

/// Makes `device` a member of `admin`'s group as two devices that meet do:
/// it asks to join with an invitation, and the admin's device admits it
/// (here from a bundle, before either syncs with a relay).
func enroll(_ device: ChronicleDatabase, with admin: ChronicleDatabase, in directory: TemporaryDirectory, as role: MemberRole = .writer) throws {
  try device.join(try admin.invite(as: role))
  let bundle = directory.url.appendingPathComponent("join-\(UUID().uuidString).chrb")
  try device.exportBundle(beyond: admin.versionVector(), to: bundle)
  _ = try admin.applyRemote(bundle: Array(try Data(contentsOf: bundle)), source: "join")
}
