import Chronicle
import ChronicleTestSupport
import Foundation
import Testing

/// `chronicle keygen`, `serve` and `sync --peer` as real processes on loopback.
@Suite("chronicle keygen, serve, sync --peer")
struct NetworkCommandsTests {
  let tool = ReplayCommandsTests()

  /// A database with an `items` table and `count` rows written by its own peer, one event each.
  func makePeer(_ path: String, rows: Range<Int>) throws {
    let database = try Chronicle.open(path: path)
    try database.write { db in try db.execute(sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, title TEXT NOT NULL) STRICT") }
    for id in rows {
      try database.write { db in try db.execute(sql: "INSERT INTO items VALUES (?, ?)", arguments: [id, "item \(id) of \(database.peerID.shortDescription)"]) }
    }
  }

  func digest(_ path: String) throws -> TableDigest? {
    try Chronicle.open(path: path).digests().first { $0.table == "items" }
  }

  func eventCount(_ path: String) throws -> Int { try Chronicle.open(path: path).log.count() }

  /// Starts `chronicle serve` on a free port; returns it and its port.
  func serve(_ database: String, key: String, _ extra: String...) throws -> (ChildProcess, Int) {
    let server = try ChildProcess("chronicle", ["serve", database, "--port", "0", "--key", key] + extra)
    let line = try server.waitForLine(containing: "listening on")
    let port = try #require(line.split(separator: ":").last.flatMap { Int($0) })
    return (server, port)
  }

  func folder() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-net-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }

  @Test func threeProcessesConverge() throws {
    let directory = try folder()
    defer { try? FileManager.default.removeItem(at: directory) }
    let key = directory.appendingPathComponent("group.key").path
    #expect(try tool.chronicle("keygen", key).status == 0)
    let (a, b, c) = (directory.appendingPathComponent("a.sqlite").path, directory.appendingPathComponent("b.sqlite").path, directory.appendingPathComponent("c.sqlite").path)
    try makePeer(a, rows: 1..<20)
    try makePeer(b, rows: 100..<110)
    try makePeer(c, rows: 200..<205)

    let (server, port) = try serve(a, key: key)
    let first = try tool.chronicle("sync", b, "--peer", "127.0.0.1:\(port)", "--key", key)
    #expect(first.status == 0, "\(first.errors)")
    #expect(first.output.contains("sent 11 events (11 applied there)"), "\(first.output)")
    #expect(first.output.contains("merged 20 "), "\(first.output)")
    #expect(try tool.chronicle("sync", c, "--peer", "127.0.0.1:\(port)", "--key", key).status == 0)
    let scripted = try tool.chronicle("sync", b, "--peer", "127.0.0.1:\(port)", "--key", key, "--json")
    #expect(scripted.status == 0, "\(scripted.errors)")
    let summary = try #require(try JSONSerialization.jsonObject(with: Data(scripted.output.utf8)) as? [String: Any], "\(scripted.output)")
    #expect(summary["transport"] as? String == "peer" && summary["address"] as? String == "127.0.0.1:\(port)")
    #expect(summary["appliedEvents"] as? Int == 6 && summary["sentEvents"] as? Int == 0, "\(summary)")  // c's table and rows, through a
    #expect((summary["refused"] as? [Any])?.isEmpty == true && summary["remotePeer"] is String, "\(summary)")
    #expect(server.stop(with: SIGINT) == 0)  // graceful shutdown
    #expect(server.standardError.contains("stopped"))

    let expected = try digest(a)
    #expect(expected?.rowCount == 19 + 10 + 5)
    #expect(try digest(b) == expected)
    #expect(try digest(c) == expected)
  }

  @Test func aWrongKeyIsRefusedAndNothingMoves() throws {
    let directory = try folder()
    defer { try? FileManager.default.removeItem(at: directory) }
    let key = directory.appendingPathComponent("group.key").path, other = directory.appendingPathComponent("other.key").path
    _ = try tool.chronicle("keygen", key)
    _ = try tool.chronicle("keygen", other)
    let (a, b) = (directory.appendingPathComponent("a.sqlite").path, directory.appendingPathComponent("b.sqlite").path)
    try makePeer(a, rows: 1..<5)
    try makePeer(b, rows: 10..<15)
    let before = (try eventCount(a), try eventCount(b))

    let (server, port) = try serve(a, key: key)
    let refused = try tool.chronicle("sync", b, "--peer", "127.0.0.1:\(port)", "--key", other)
    #expect(refused.status == 2)
    #expect(refused.errors.contains("authentication failed"), "\(refused.errors)")
    server.stop()
    #expect(server.standardError.contains("did not prove it holds the group's key"), "\(server.standardError)")
    #expect(try eventCount(a) == before.0 && eventCount(b) == before.1)

    // Key files: never overwritten, never readable by others, never on the command line.
    #expect(try tool.chronicle("keygen", key).status == 2)
    chmod(key, 0o644)
    let exposed = try tool.chronicle("serve", a, "--port", "0", "--key", key)
    #expect(exposed.status == 2 && exposed.errors.contains("chmod 600"), "\(exposed.errors)")
    // Without --key, a database in no group is told to take a key file (or a group).
    let keyless = try tool.chronicle("sync", b, "--peer", "127.0.0.1:1")
    #expect(keyless.status != 0 && keyless.errors.contains("is in no group") && keyless.errors.contains("--key FILE"), "\(keyless.errors)")
    let keylessServer = try tool.chronicle("serve", a, "--port", "0")
    #expect(keylessServer.status != 0 && keylessServer.errors.contains("is in no group"), "\(keylessServer.errors)")
  }

  /// Devices in a group need no key file: an invited device pushes its join
  /// to the admin's server and then syncs, each side proven by its device
  /// key; a server given a key file refuses a client without one, and a
  /// device outside the group is refused by name.
  @Test func groupMembersSyncWithoutAKeyFile() throws {
    let directory = try folder()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (a, b, c) = (directory.appendingPathComponent("a.sqlite").path, directory.appendingPathComponent("b.sqlite").path, directory.appendingPathComponent("c.sqlite").path)
    try makePeer(a, rows: 1..<6)
    try makePeer(b, rows: 0..<0)
    try makePeer(c, rows: 0..<0)
    #expect(try tool.chronicle("group", a, "--create").status == 0)
    let invitation = try tool.chronicle("invite", a, "--hours", "1").output.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(try tool.chronicle("join", b, invitation).status == 0)

    let server = try ChildProcess("chronicle", ["serve", a, "--port", "0"])
    let line = try server.waitForLine(containing: "listening on")
    let port = try #require(line.split(separator: ":").last.flatMap { Int($0) })
    let joined = try tool.chronicle("sync", b, "--peer", "127.0.0.1:\(port)")
    #expect(joined.status == 0, "\(joined.errors)")
    let synced = try tool.chronicle("sync", b, "--peer", "127.0.0.1:\(port)")
    #expect(synced.status == 0, "\(synced.errors)")
    #expect(try digest(b) == digest(a))
    #expect(try digest(b)?.rowCount == 5)

    // c was never invited: in no group, it is told to take a key file; in
    // a group of its own, a's server is no member of it.
    let stranger = try tool.chronicle("sync", c, "--peer", "127.0.0.1:\(port)")
    #expect(stranger.status != 0 && stranger.errors.contains("is in no group"), "\(stranger.errors)")
    #expect(try tool.chronicle("group", c, "--create").status == 0)
    let outsider = try tool.chronicle("sync", c, "--peer", "127.0.0.1:\(port)")
    #expect(outsider.status != 0 && outsider.errors.contains("not a member"), "\(outsider.errors)")
    server.stop()

    // A server with a key file takes only clients that hold it.
    let key = directory.appendingPathComponent("group.key").path
    _ = try tool.chronicle("keygen", key)
    let (keyed, keyedPort) = try serve(a, key: key)
    let refused = try tool.chronicle("sync", b, "--peer", "127.0.0.1:\(keyedPort)")
    #expect(refused.status != 0, "\(refused.output)")
    keyed.stop()
    #expect(keyed.standardError.contains("did not prove it holds the group's key"), "\(keyed.standardError)")
  }

  @Test func aSyncKilledMidTransferResumesWhereItStopped() throws {
    let directory = try folder()
    defer { try? FileManager.default.removeItem(at: directory) }
    let key = directory.appendingPathComponent("group.key").path
    _ = try tool.chronicle("keygen", key)
    let (a, b) = (directory.appendingPathComponent("a.sqlite").path, directory.appendingPathComponent("b.sqlite").path)
    try makePeer(a, rows: 0..<12_000)
    try makePeer(b, rows: 0..<0)
    let total = try eventCount(a)

    // The server sends at 300 KiB/s: about 4 s for this log, applied in batches of 5,000 events.
    let (server, port) = try serve(a, key: key, "--rate-limit", "300k")
    let client = try ChildProcess("chronicle", ["sync", b, "--peer", "127.0.0.1:\(port)", "--key", key, "--progress"])
    let line = try client.waitForLine(containing: "receiving ")  // printed after each applied batch
    client.stop(with: SIGKILL)
    let reported = try #require(Int(line.dropFirst("receiving ".count).prefix { $0 != "/" }))
    let kept = try eventCount(b) - 1  // its own schema event
    #expect(kept >= reported && kept < total, "kept \(kept) of \(total), \(reported) reported applied")

    let resumed = try tool.chronicle("sync", b, "--peer", "127.0.0.1:\(port)", "--key", key)
    #expect(resumed.status == 0, "\(resumed.errors)")
    #expect(resumed.output.contains("received \(total - kept) events: merged \(total - kept) "), "\(resumed.output)")
    server.stop()
    #expect(try digest(b) == digest(a))
  }
}
