import Chronicle
import ChronicleNetwork
import ChronicleRelay
import Foundation
import Synchronization
import Testing

import ChronicleTestSupport

@Suite("Relay: staying connected")
struct RelayWatchTests {
  @Test func watchingDevicesGetEachOthersWritesAsTheyHappenAndReconnectAfterTheRelayRestarts() async throws {
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone"), laptop = try makeDevice(directory, "laptop")
    try phone.createGroup()
    try enroll(laptop, with: phone, in: directory)
    var configuration = relayConfiguration(directory.path("relay.sqlite"))

    let (first, firstRun) = try await startRelayOnAReservedPort(&configuration)
    // The first relay object lives to the end, as it did before 2026-11-25.
    // Dropped at once, the restart found the port taken for over 10 s in
    // two full runs of four under load (the cause is not found yet).
    defer { withExtendedLifetime(first) {} }
    let url = "ws://127.0.0.1:\(configuration.port)"
    let transport = try RelayTransport(url: url, configuration: clientConfiguration())
    let phoneSync = SyncEngine(for: phone, transport: transport), laptopSync = SyncEngine(for: laptop, transport: transport)
    let failures = FailureLog()
    let watch = Task {
      for await event in laptopSync.events { if case .failed(let message) = event { failures.add("laptop: " + message) } }
    }
    let phoneWatch = Task {
      for await event in phoneSync.events { if case .failed(let message) = event { failures.add("phone: " + message) } }
    }
    phoneSync.start()
    laptopSync.start()
    defer {
      phoneSync.stop()
      laptopSync.stop()
      watch.cancel()
      phoneWatch.cancel()
    }

    try writeNotes(phone, 1...3)
    #expect(try await eventually { try laptop.noteCount() == 3 }, "the laptop never got the phone's writes")
    try writeNotes(laptop, 10...12)
    #expect(try await eventually { try phone.noteCount() == 6 }, "the phone never got the laptop's writes")

    // The relay goes away; the phone writes meanwhile; a relay comes back on the same store.
    firstRun.cancel()
    _ = try? await firstRun.value
    try writeNotes(phone, 20...21, tag: " while the relay was down")
    try await Task.sleep(for: .milliseconds(300))
    #expect(try laptop.noteCount() == 6)
    let secondRun = try await restartRelay(configuration)
    #expect(try await eventually { try laptop.noteCount() == 8 }, "the laptop did not catch up after the relay came back")
    try writeNotes(laptop, 30...30)
    #expect(try await eventually { try phone.noteCount() == 9 }, "failures: \(failures.all)")
    #expect(try phone.notesDigest() == laptop.notesDigest())
    #expect(failures.all.contains { $0.hasPrefix("laptop") }, "the outage was not reported")
    phoneSync.stop()
    laptopSync.stop()
    secondRun.cancel()
    _ = try? await secondRun.value
  }

  /// A task waiting for the relay's port learns why it will not come
  /// (the port is taken; the relay was stopped first) instead of waiting
  /// forever, and a cancelled wait ends.
  @Test func waitingForThePortEndsWhenTheRelayCannotListenOrStopsFirst() async throws {
    let directory = try TemporaryDirectory()
    try await withRelay(relayConfiguration(directory.path("first.sqlite"))) { url, first in
      var taken = relayConfiguration(directory.path("second.sqlite"))
      taken.host = "127.0.0.1"
      taken.port = try await first.port
      let second = try await RelayServer(configuration: taken)
      let running = Task { try await second.run() }
      let waited = await #expect(throws: RelayServerError.self) { try await second.port }
      #expect("\(String(describing: waited))".contains("could not listen on 127.0.0.1:\(taken.port)"))
      #expect("\(String(describing: waited))".contains("in use"))
      await #expect(throws: RelayServerError.self) { try await running.value }
    }

    let idle = try await RelayServer(configuration: relayConfiguration(directory.path("idle.sqlite")))
    let waiting = Task { try await idle.port }
    try await Task.sleep(for: .milliseconds(50))
    waiting.cancel()
    await #expect(throws: CancellationError.self) { try await waiting.value }

    // Once run() has ended, asking for the port answers at once: the port
    // if it listened before it saw the cancellation, or why it did not.
    let stopped = Task { try await idle.run() }
    stopped.cancel()
    _ = try? await stopped.value
    do {
      #expect(try await idle.port > 0)
    } catch {
      #expect(error is RelayServerError)
    }
  }
}

/// Starts a relay on a ``ReservedPort`` and sets it in `configuration`:
/// while the relay is down, nothing else can take its port.
func startRelayOnAReservedPort(
  _ configuration: inout RelayServerConfiguration
) async throws -> (RelayServer, Task<Void, any Error>) {
  configuration.port = try ReservedPort.next()
  let relay = try await RelayServer(configuration: configuration)
  let running = Task { [relay] in try await relay.run() }
  _ = try await relay.port
  return (relay, running)
}

/// Starts a relay on the port the devices know. A restarted server may
/// find the port held for a moment (a connection of its own closing): it
/// retries then, for up to thirty seconds (under a full run's load, ten
/// were not always enough).
func restartRelay(_ configuration: RelayServerConfiguration) async throws -> Task<Void, any Error> {
  let deadline = ContinuousClock.now + .seconds(30)
  while true {
    let relay = try await RelayServer(configuration: configuration)
    let running = Task { try await relay.run() }
    do {
      _ = try await relay.port
      return running
    } catch RelayServerError.cannotListen(_, let reason) where ContinuousClock.now < deadline {
      _ = try? await running.value
      print("port \(configuration.port) not free yet (\(reason)); retrying")
      try await Task.sleep(for: .milliseconds(200))
    }
  }
}

/// Failures an engine reported, in order.
final class FailureLog: Sendable {
  private let entries = Mutex<[String]>([])
  func add(_ entry: String) { entries.withLock { $0.append(entry) } }
  var all: [String] { entries.withLock { $0 } }
}
