import Chronicle
import ChronicleNetwork
import ChronicleRelay
import Foundation
import Synchronization
import Testing

import ChronicleTestSupport

@Suite("Relay: PostgreSQL store, several relay processes")
struct RelayPostgresTests {
  @Test func twoRelaysOverOnePostgresAreInterchangeableAndPushToEachOthersDevices() async throws {
    let postgres = try TemporaryPostgres()
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone"), laptop = try makeDevice(directory, "laptop")
    try phone.createGroup()
    try enroll(laptop, with: phone, in: directory)
    var configuration = RelayServerConfiguration(storage: .postgres(url: postgres.url), logger: quietLogger)
    configuration.port = 0
    let east = try await RelayServer(configuration: configuration), west = try await RelayServer(configuration: configuration)
    let eastRun = Task { try await east.run() }, westRun = Task { try await west.run() }
    defer {
      eastRun.cancel()
      westRun.cancel()
    }
    let eastURL = "ws://127.0.0.1:\(try await east.port)", westURL = "ws://127.0.0.1:\(try await west.port)"

    try writeNotes(phone, 1...10)
    // Neither relay starts a group for anyone: the founder brings a token the operator created.
    let refusal = await #expect(throws: RelayError.self) {
      try await RelayTransport(url: eastURL, configuration: clientConfiguration()).sync(phone)
    }
    #expect("\(refusal.map { "\($0)" } ?? "")".contains("a group new here starts with its founder's device and a creation token"), "\(String(describing: refusal))")
    let token = try await RelayServer.createGroupCreationToken(in: .postgres(url: postgres.url), logger: quietLogger)
    var founding = clientConfiguration()
    founding.creationToken = token.text
    _ = try await RelayTransport(url: eastURL, configuration: founding).sync(phone)
    // It started one group: through the other relay, it starts no second one.
    let stranger = try makeDevice(directory, "stranger")
    try stranger.createGroup()
    let spent = await #expect(throws: RelayError.self) { try await RelayTransport(url: westURL, configuration: founding).sync(stranger) }
    #expect("\(spent.map { "\($0)" } ?? "")".contains("has started all the groups it was made for"), "\(String(describing: spent))")
    // What was stored through one relay is served by the other.
    let pulled = try await RelayTransport(url: westURL, configuration: clientConfiguration()).sync(laptop)
    #expect(pulled.received.appliedEvents == 5)  // the table, the group, its first key epoch, the laptop's admission, the notes
    #expect(try laptop.notesDigest() == phone.notesDigest())

    // A device watching through one relay gets what another device pushes through the other, without polling.
    let watching = SyncEngine(for: laptop, transport: try RelayTransport(url: westURL, configuration: clientConfiguration()))
    watching.start()
    defer { watching.stop() }
    try await Task.sleep(for: .milliseconds(300))
    try writeNotes(phone, 11...12)
    _ = try await RelayTransport(url: eastURL, configuration: clientConfiguration()).sync(phone)
    #expect(try await eventually { try laptop.noteCount() == 12 }, "the relay the laptop watches through never pushed the phone's news")
    #expect(try laptop.notesDigest() == phone.notesDigest())
  }
}
