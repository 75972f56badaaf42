import Chronicle
import ChronicleTestSupport
import Foundation
import Testing

@testable import ChronicleNetwork

/// An event larger than a frame used to stop TCP sync for that peer for
/// good (every later write queued behind it). It now travels in parts.
@Suite("TCP sync: events larger than a frame travel in parts")
struct LargeEventTests {
  /// Random bytes (they do not compress), from a fixed seed.
  static func noise(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
      state = state &* 6364136223846793005 &+ 1442695040888963407
      return UInt8(truncatingIfNeeded: state >> 33)
    }
  }

  @Test func eventsOverTheFrameLimitArriveWholeBothWaysAndLaterWritesFollow() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server"), client = try makePeer(directory, "client")
    for database in [server, client] {
      try await database.write { db in try db.execute(sql: "CREATE TABLE files (id INTEGER PRIMARY KEY, body BLOB NOT NULL) STRICT") }
    }
    var configuration = testConfiguration(key: .generate())
    configuration.maxFrameSize = 256 << 10
    // One event of 1.1 MB (over four frames) from each side, beside small ones.
    let clientBlob = Self.noise(1_100_000, seed: 1), serverBlob = Self.noise(700_000, seed: 2)
    try await client.write { db in try db.execute(sql: "INSERT INTO files VALUES (1, ?)", arguments: [Data(clientBlob)]) }
    try writeItems(client, from: 1, count: 3)
    try await server.write { db in try db.execute(sql: "INSERT INTO files VALUES (2, ?)", arguments: [Data(serverBlob)]) }
    try writeItems(server, from: 100, count: 2)

    try await withServer(server, configuration: configuration) { running in
      let transport = TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration)
      let first = try await transport.sync(client)
      #expect(first.remoteApplied == first.sentEvents && first.sentEvents >= 5)
      #expect(first.received.appliedEvents >= 4)
      try writeItems(client, from: 10, count: 2)
      let second = try await transport.sync(client)
      #expect(second.remoteApplied == 2)
    }
    for database in [server, client] {
      let blobs = try await database.read { db in try Row.fetchAll(db, sql: "SELECT id, body FROM files ORDER BY id").map { [UInt8]($0["body"] as Data) } }
      #expect(blobs == [clientBlob, serverBlob])
    }
    #expect(try server.itemDigest() == client.itemDigest())
    #expect(try server.digests() == client.digests())
  }

  @Test func aPageIsSplitIntoFramesAndLargeEventsAndAnEventOverTheLimitIsRefusedBeforeSending() throws {
    let frameLimit = 100
    let events = [[UInt8](repeating: 1, count: 30), [UInt8](repeating: 2, count: 250), [UInt8](repeating: 3, count: 40)]
    let pieces = try EventStreams.pieces(events, frameLimit: frameLimit, maxEventSize: 1_000)
    #expect(pieces.map(\.eventCount) == [1, 1, 1])
    guard case .large(let large) = pieces[1] else {
      Issue.record("the 250-byte event should be sent in parts")
      return
    }
    #expect(large.count == 250)
    #expect {
      try EventStreams.pieces(events, frameLimit: frameLimit, maxEventSize: 200)
    } throws: { error in
      "\(error)".contains("an event of 250 bytes")
    }
    let part = WireMessage.eventPart(total: 250, bytes: [1, 2, 3])
    #expect(try WireMessage(decoding: part.encoded()) == part)
  }
}
