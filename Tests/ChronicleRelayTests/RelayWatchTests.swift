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
    try laptop.join(try phone.invite())
    let key = SyncKey.generate()
    var configuration = relayConfiguration(directory.path("relay.sqlite"))

    let first = try await RelayServer(configuration: configuration)
    let firstRun = Task { try await first.run() }
    configuration.port = await first.port
    let url = "ws://127.0.0.1:\(configuration.port)"
    let transport = try RelayTransport(url: url, configuration: clientConfiguration(key))
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
    let second = try await RelayServer(configuration: configuration)
    let secondRun = Task { try await second.run() }
    _ = await second.port
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
}

/// Failures an engine reported, in order.
final class FailureLog: Sendable {
  private let entries = Mutex<[String]>([])
  func add(_ entry: String) { entries.withLock { $0.append(entry) } }
  var all: [String] { entries.withLock { $0 } }
}
