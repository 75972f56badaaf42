import Chronicle
import ChronicleNetwork
import Foundation
import Testing

import ChronicleTestSupport

extension RelayHeavySuites {
@Suite("Relay: faults")
struct RelayFaultTests {
  /// Starts `chronicle relay` over `postgres` as its own process; returns it and its address.
  static func startRelay(_ postgres: TemporaryPostgres) throws -> (ChildProcess, String) {
    let process = try ChildProcess(
      "chronicle", ["relay", "--postgres", postgres.url, "--port", "0", "--log-level", "error", "--store-timeout", "2", "--open-groups"])
    let line = try process.waitForLine(containing: "relay listening on")
    return (process, String(line.split(separator: " ").last!))
  }

  /// A relay killed with SIGKILL in the middle of a push and of a pull,
  /// PostgreSQL stopped hard in the middle of a pull, and connections the
  /// device drops at random moments: every device resumes where it stopped,
  /// nothing is lost or applied twice, and every log verifies.
  @Test(arguments: [UInt64(5), 99])
  func devicesRecoverFromKilledRelaysARestartedPostgresAndDroppedConnections(seed: UInt64) async throws {
    var random = SeededGenerator(seed: seed)
    let postgres = try TemporaryPostgres()
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone"), laptop = try makeDevice(directory, "laptop"), tablet = try makeDevice(directory, "tablet")
    try phone.createGroup()
    try enroll(laptop, with: phone, in: directory)
    try enroll(tablet, with: phone, in: directory)
    try await offThePool {
      for start in stride(from: 0, to: 3_000, by: 1) { try writeNotes(phone, [start * 3, start * 3 + 1, start * 3 + 2]) }
    }
    func transport(_ url: String) throws -> RelayTransport {
      var configuration = clientConfiguration()
      configuration.pushBatchBytes = 4 << 10  // many round trips, so a kill lands between two
      configuration.applyBatchEvents = 200
      return try RelayTransport(url: url, configuration: configuration)
    }
    func storedEvents() throws -> Int { Int(try postgres.value("SELECT count(*) FROM relay_events")) ?? -1 }

    // 1. The relay dies (SIGKILL) while the phone pushes 3,000 events.
    var (relay, url) = try Self.startRelay(postgres)
    let push = Task { [url] in try await transport(url).sync(phone) }
    let stored = Int.random(in: 100...1_200, using: &random)
    #expect(try await eventually(within: .seconds(120)) { try storedEvents() >= stored }, "seed \(seed): the push never got going")
    relay.stop(with: SIGKILL)
    _ = try? await push.value
    let storedBeforeTheKill = try storedEvents()
    (relay, url) = try Self.startRelay(postgres)
    let resumed = try await transport(url).sync(phone)
    // The phone's events: its table, the group, its first key epoch, its admissions of the laptop and the tablet, 3,000 of notes.
    #expect(storedBeforeTheKill < 3_005 && resumed.sentEvents == 3_005 - storedBeforeTheKill, "seed \(seed): the push did not resume where it stopped")

    // 2. The relay dies while the laptop pulls; then PostgreSQL stops hard while it pulls again.
    let pull = Task { [url] in try await transport(url).sync(laptop) }
    try await Task.sleep(for: .milliseconds(Int.random(in: 20...300, using: &random)))
    relay.stop(with: SIGKILL)
    _ = try? await pull.value
    (relay, url) = try Self.startRelay(postgres)
    let secondPull = Task { [url] in try await transport(url).sync(laptop) }
    try await Task.sleep(for: .milliseconds(Int.random(in: 10...150, using: &random)))
    try postgres.stop(immediately: true)
    _ = try? await secondPull.value
    // While PostgreSQL is down, the relay says so and the device keeps what it has.
    let before = try laptop.fingerprintOfLog()
    await #expect(throws: RelayError.self) { try await transport(url).sync(laptop) }
    #expect(try laptop.fingerprintOfLog() == before)
    try postgres.start()

    // 3. The tablet drops its connection at random moments.
    for _ in 0..<6 {
      let attempt = Task { [url] in try await transport(url).sync(tablet) }
      try await Task.sleep(for: .milliseconds(Int.random(in: 1...80, using: &random)))
      attempt.cancel()
      _ = try? await attempt.value
    }

    // Everyone syncs to the end.
    for device in [phone, laptop, tablet, phone, laptop, tablet] {
      var synced = false
      var lastError: RelayError?
      // PostgreSQL may still be starting (the relay says so, retryable);
      // on a loaded machine that takes seconds.
      let deadline = ContinuousClock.now + .seconds(30)
      while !synced, ContinuousClock.now < deadline {
        do {
          _ = try await transport(url).sync(device)
          synced = true
        } catch let error as RelayError where error.isRetryable {
          lastError = error
          try await Task.sleep(for: .milliseconds(200))
        }
      }
      #expect(synced, "seed \(seed): \(device.peerID.shortDescription) never synced: \(String(describing: lastError))")
    }
    relay.stop()
    let expected = try phone.notesDigest()
    #expect(try phone.noteCount() == 9_000)
    for device in [laptop, tablet] {
      #expect(try device.notesDigest() == expected, "seed \(seed)")
      #expect(try device.versionVector() == phone.versionVector(), "seed \(seed)")
      #expect(try device.fingerprintOfLog() == phone.fingerprintOfLog(), "seed \(seed): a log holds an event twice or lacks one")
    }
    for device in [phone, laptop, tablet] {
      let report = try await offThePool { try device.verify() }
      #expect(report.isValid, "seed \(seed): \(report.problems.map(\.message))")
    }
  }
}
}
