import Chronicle
@testable import ChronicleRelay
import Foundation
import Testing

import ChronicleTestSupport

/// `chronicle relay` and `chronicle sync --relay`, as separate processes.
@Suite("chronicle relay, chronicle sync --relay")
struct RelayCommandsTests {
  func chronicle(_ arguments: String...) throws -> (status: Int32, output: String, errors: String) {
    try ChildProcess.run("chronicle", arguments)
  }

  @Test func twoDevicesSyncThroughARelayProcessAndItStopsOnSigterm() async throws {
    try await offThePool { try flow() }
  }

  @Test func metricsAskForTheTokenInTheTokenFile() async throws {
    let directory = try TemporaryDirectory()
    let short = directory.path("short.token")
    try "abc\n".write(toFile: short, atomically: true, encoding: .utf8)
    let refused = try chronicle("relay", "--data", directory.path("relay.sqlite"), "--port", "0", "--metrics-token-file", short)
    #expect(refused.status != 0 && refused.errors.contains("is 3 characters: use at least 16"), "\(refused.errors)")
    let tokenFile = directory.path("metrics.token")
    try "0123456789abcdef0123\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
    let relay = try ChildProcess(
      "chronicle", ["relay", "--data", directory.path("relay.sqlite"), "--port", "0", "--metrics-token-file", tokenFile, "--request-timeout", "2"])
    let url = String(try relay.waitForLine(containing: "relay listening on").split(separator: " ").last!)
    #expect(try await httpGet(url, "/metrics").status == 401)
    let metrics = try await httpGet(url, "/metrics", token: "0123456789abcdef0123")
    #expect(metrics.status == 200 && metrics.body.contains("chronicle_relay_connections"), "\(metrics)")
    #expect(relay.stop() == 0)
  }

  func flow() throws {
    let directory = try TemporaryDirectory()
    let (phone, laptop) = (directory.path("phone.sqlite"), directory.path("laptop.sqlite"))
    for path in [phone, laptop] {
      #expect(try chronicle("init", path).status == 0)
      #expect(try chronicle("sql", path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL) STRICT").status == 0)
    }
    #expect(try chronicle("sql", phone, "INSERT INTO notes VALUES (1, 'from the phone')").status == 0)
    #expect(try chronicle("group", phone, "--create").status == 0)
    let invitation = try chronicle("invite", phone).output.split(separator: "\n").first { $0.hasPrefix("chronicle-invitation-v2:") }
    #expect(try chronicle("join", laptop, String(try #require(invitation))).status == 0)
    let key = directory.path("group.key")
    #expect(try chronicle("keygen", key).status == 0)  // not needed by a relay: said, and ignored

    let relay = try ChildProcess("chronicle", ["relay", "--data", directory.path("relay.sqlite"), "--port", "0"])
    let url = String(try relay.waitForLine(containing: "relay listening on").split(separator: " ").last!)
    #expect(url.hasPrefix("ws://127.0.0.1:"))

    // The relay starts the group for the holder of a token its operator created.
    let tokenless = try chronicle("sync", phone, "--relay", url)
    #expect(tokenless.status != 0 && tokenless.errors.contains("chronicle relay token create"), "\(tokenless.errors)")
    let created = try chronicle("relay", "token", "create", "--data", directory.path("relay.sqlite"))
    let token = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(created.status == 0 && token.hasPrefix("chronicle-group-token-"), "\(created.errors)")
    let pushed = try chronicle("sync", phone, "--relay", url, "--key", key, "--creation-token", token)
    #expect(pushed.status == 0, "\(pushed.errors)")
    #expect(pushed.errors.contains("--key is not used with --relay"), "\(pushed.errors)")
    // The table, its row, the group's creation and its first key epoch.
    #expect(pushed.output.contains("sent 4 events"), "\(pushed.output)")
    // The laptop's request waits at the relay for an admin; the phone's next sync admits it.
    let waiting = try chronicle("sync", laptop, "--relay", url)
    #expect(waiting.status != 0 && waiting.errors.contains("asked to join"), "\(waiting.errors)")
    let admitting = try chronicle("sync", phone, "--relay", url)
    #expect(admitting.status == 0 && admitting.output.contains("sent 1 events"), "\(admitting.output) \(admitting.errors)")
    let watcher = try ChildProcess("chronicle", ["sync", laptop, "--relay", url, "--watch"])
    _ = try watcher.waitForLine(containing: "merged 5 events")
    // A new key epoch: the watching laptop is granted it, and opens what is sealed with it.
    let rekeyed = try chronicle("rekey", phone)
    #expect(rekeyed.status == 0 && rekeyed.output.contains("sealed to 2 active members"), "\(rekeyed.output) \(rekeyed.errors)")
    #expect(try chronicle("sql", phone, "INSERT INTO notes VALUES (2, 'while the laptop watches')").status == 0)
    #expect(try chronicle("sync", phone, "--relay", url).status == 0)
    _ = try watcher.waitForLine(containing: "(1 row changes)")
    #expect(watcher.stop() == 0)
    #expect(watcher.standardOutput.contains("stopped"))
    let rows = try chronicle("sql", laptop, "SELECT id, body FROM notes ORDER BY id")
    #expect(rows.output.contains("1|'from the phone'") && rows.output.contains("2|'while the laptop watches'"), "\(rows.output)")

    // A device outside the group is told why, and the exit status says so.
    let stranger = directory.path("stranger.sqlite")
    #expect(try chronicle("init", stranger).status == 0)
    let refused = try chronicle("sync", stranger, "--relay", url)
    #expect(refused.status == 2 && refused.errors.contains("this database is in no group"), "\(refused.errors)")
    let unusable = try chronicle("sync", phone, "--relay", "http://example.com")
    #expect(unusable.status == 2 && unusable.errors.contains("is not a relay address"), "\(unusable.errors)")

    let start = ContinuousClock.now
    #expect(relay.stop() == 0, "\(relay.standardError)")
    #expect(ContinuousClock.now - start < .seconds(10))
  }

  @Test func theRelayStoreSchemasAreTheVersionedFiles() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    for (name, embedded) in [
      ("sqlite-001.sql", RelaySchema.sqlite001), ("postgres-001.sql", RelaySchema.postgres001),
      ("sqlite-002.sql", RelaySchema.sqlite002), ("postgres-002.sql", RelaySchema.postgres002),
      ("sqlite-003.sql", RelaySchema.sqlite003), ("postgres-003.sql", RelaySchema.postgres003),
    ] {
      let text = try String(contentsOf: root.appendingPathComponent("Schemas/relay/\(name)"), encoding: .utf8)
      #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == embedded.trimmingCharacters(in: .whitespacesAndNewlines), "\(name)")
    }
  }
}
