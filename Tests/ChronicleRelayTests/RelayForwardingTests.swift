import Chronicle
import ChronicleNetwork
import ChronicleRelay
import ChronicleTestSupport
import Foundation
import GRDB
import Testing

/// Every member's events reach every member by any path: a device forwards
/// to a relay the other members' events it holds and the relay lacks, as
/// their origins sealed and signed them, and the relay checks each origin's
/// signature before it stores one.
@Suite struct RelayForwardingTests {
  /// Three devices, two relays: the laptop syncs only with the first, the
  /// tablet only with the second, the phone with both.
  @Test func eventsPulledFromOneRelayAreForwardedToAnother() async throws {
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone"), laptop = try makeDevice(directory, "laptop"), tablet = try makeDevice(directory, "tablet")
    try phone.createGroup()
    try enroll(laptop, with: phone, in: directory)
    try enroll(tablet, with: phone, in: directory)
    try writeNotes(phone, 1...3)
    try writeNotes(laptop, 10...12)
    try writeNotes(tablet, 20...21)
    let first = directory.path("first.sqlite"), second = directory.path("second.sqlite")
    try await withRelay(relayConfiguration(first)) { firstURL, _ in
      try await withRelay(relayConfiguration(second)) { secondURL, _ in
        let one = try RelayTransport(url: firstURL, configuration: clientConfiguration())
        let two = try RelayTransport(url: secondURL, configuration: clientConfiguration())
        // The founder starts the group on both relays.
        _ = try await one.sync(phone)
        _ = try await two.sync(phone)
        _ = try await one.sync(laptop)
        _ = try await two.sync(tablet)
        _ = try await one.sync(phone)
        let forwarded = try await two.sync(phone)
        #expect(forwarded.sentEvents >= 2, "the laptop's events, forwarded to the second relay: \(forwarded)")
        _ = try await two.sync(tablet)
        #expect(try tablet.noteCount() == 8)
        _ = try await one.sync(phone)
        _ = try await one.sync(laptop)
        #expect(try laptop.noteCount() == 8)
        try writeNotes(laptop, 13...14)
        _ = try await one.sync(laptop)
        _ = try await one.sync(phone)
        _ = try await two.sync(phone)
        _ = try await two.sync(tablet)
        #expect(try tablet.notesDigest() == laptop.notesDigest())
        #expect(try phone.notesDigest() == laptop.notesDigest())
      }
    }
    // The second relay stores the laptop's events with its signatures: the
    // laptop never connected to it.
    let stored = try DatabaseQueue(path: second).read { db in
      try Row.fetchAll(db, sql: "SELECT sealed, route FROM relay_events WHERE origin = ?", arguments: [Data(laptop.peerID.bytes)])
    }
    #expect(stored.count >= 3)
    for row in stored where (row[0] as Data).first == 1 {
      #expect((row[1] as Data?)?.count == 64)
    }
  }

  /// A route a peer handed over that does not verify stops forwarding of
  /// that origin at that event, is dropped (with the origin's routes after
  /// it), and fails nothing: the sync goes on, the forwarder asks for them
  /// again, and forwards a good copy.
  @Test func aRouteThatDoesNotVerifyIsDroppedAndStallsNothing() async throws {
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone"), laptop = try makeDevice(directory, "laptop"), tablet = try makeDevice(directory, "tablet")
    try phone.createGroup()
    try enroll(laptop, with: phone, in: directory)
    try enroll(tablet, with: phone, in: directory)
    try writeNotes(laptop, 10...12)
    try await withRelay(relayConfiguration(directory.path("first.sqlite"))) { firstURL, _ in
      try await withRelay(relayConfiguration(directory.path("second.sqlite"))) { secondURL, _ in
        let one = try RelayTransport(url: firstURL, configuration: clientConfiguration())
        let two = try RelayTransport(url: secondURL, configuration: clientConfiguration())
        _ = try await two.sync(phone)
        _ = try await one.sync(phone)
        _ = try await one.sync(laptop)
        _ = try await one.sync(phone)
        #expect(try phone.noteCount() == 3)
        // Every route the phone holds of the laptop's events, damaged.
        try await phone.write { db in
          try db.execute(
            sql: "UPDATE chronicle_event_routes SET signature = zeroblob(64) WHERE origin = ?", arguments: [Data(laptop.peerID.bytes)])
        }
        func routes() async throws -> Int {
          try await phone.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM chronicle_event_routes WHERE origin = ?", arguments: [Data(laptop.peerID.bytes)]) ?? 0
          }
        }
        let damaged = try await routes()
        #expect(damaged > 0)
        _ = try await two.sync(phone)
        _ = try await two.sync(tablet)
        #expect(try tablet.noteCount() == 0, "nothing of the laptop's was forwarded with a damaged route")
        #expect(try await routes() == 0, "the routes that did not verify were dropped")
        // The phone asks the first relay for the routes it lacks, gets a
        // good copy, and forwards at its next sync.
        _ = try await one.sync(phone)
        #expect(try await routes() == damaged)
        _ = try await two.sync(phone)
        _ = try await two.sync(tablet)
        #expect(try tablet.notesDigest() == laptop.notesDigest())
      }
    }
  }

  /// The laptop syncs only over TCP with the phone, the tablet only through
  /// a relay: the phone forwards the laptop's events to the relay. The
  /// laptop's first events reached the phone before it held a group key
  /// (with its enrollment), so without their routes: the phone asks the
  /// laptop for them in its next TCP sync, and forwards from then on.
  @Test func aDeviceThatSyncsOnlyOverTCPReachesDevicesThatSyncOnlyThroughARelay() async throws {
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone"), laptop = try makeDevice(directory, "laptop"), tablet = try makeDevice(directory, "tablet")
    try phone.createGroup()
    try enroll(laptop, with: phone, in: directory)
    try enroll(tablet, with: phone, in: directory)
    try writeNotes(phone, 1...2)
    try writeNotes(laptop, 10...12)
    var tcp = NetworkSyncConfiguration(key: .generate(), logger: quietLogger)
    tcp.handshakeTimeout = .seconds(10)
    tcp.frameTimeout = .seconds(20)
    let server = try await SyncServer.bind(phone, host: "127.0.0.1", port: 0, configuration: tcp)
    let serving = Task { try await server.run() }
    defer { server.shutdown(gracePeriod: .seconds(1)) }
    let overTCP = TCPTransport(host: "127.0.0.1", port: server.port, configuration: tcp)
    try await withRelay(relayConfiguration(directory.path("relay.sqlite"))) { url, _ in
      let relay = try RelayTransport(url: url, configuration: clientConfiguration())
      _ = try await relay.sync(phone)
      _ = try await relay.sync(tablet)
      _ = try await overTCP.sync(laptop)  // the laptop learns its admission and gets the group's key
      try writeNotes(laptop, 13...14)
      _ = try await overTCP.sync(laptop)
      _ = try await relay.sync(phone)  // forwards what it can, and wants the routes of the laptop's first events
      _ = try await overTCP.sync(laptop)  // the laptop answers with them
      _ = try await relay.sync(phone)
      _ = try await relay.sync(tablet)
      #expect(try tablet.noteCount() == 7)
      #expect(try tablet.notesDigest() == laptop.notesDigest())
      // And back: the tablet's writes reach the laptop through the relay and the phone.
      try writeNotes(tablet, 20...21)
      _ = try await relay.sync(tablet)
      _ = try await relay.sync(phone)
      _ = try await overTCP.sync(laptop)
      #expect(try laptop.notesDigest() == tablet.notesDigest())
    }
    server.shutdown(gracePeriod: .seconds(1))
    _ = try? await serving.value
  }

  /// The laptop writes notes and hands them to the phone in a bundle; the
  /// phone makes it a reader and forwards them to the relay, which takes
  /// them (written before the demotion's cut-off, while the laptop could
  /// write), and the tablet gets them. A note the laptop writes after it,
  /// not knowing yet, reaches no one: the laptop learns it is a reader
  /// from the relay, and pushes nothing.
  @Test func aReadersWritesFromBeforeItsDemotionAreForwardedThroughTheRelay() async throws {
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone"), laptop = try makeDevice(directory, "laptop"), tablet = try makeDevice(directory, "tablet")
    try phone.createGroup()
    try enroll(laptop, with: phone, in: directory)
    try enroll(tablet, with: phone, in: directory)
    try writeNotes(phone, 1...2)
    // The two meet (a bundle each way): the laptop learns of its admission
    // and gets the group's key, then writes and hands its notes over.
    let fromPhone = directory.url.appendingPathComponent("phone.chrb"), fromLaptop = directory.url.appendingPathComponent("laptop.chrb")
    try phone.exportBundle(beyond: laptop.versionVector(), to: fromPhone)
    _ = try laptop.applyRemote(bundle: Array(try Data(contentsOf: fromPhone)), source: "phone")
    try writeNotes(laptop, 10...12)
    // (Its whole log: the routes of its events from before it held the
    // group's key, which the phone holds without, come with it.)
    try laptop.exportBundle(beyond: VersionVector(), to: fromLaptop)
    _ = try phone.applyRemote(bundle: Array(try Data(contentsOf: fromLaptop)), source: "laptop")
    try phone.changeRole(of: laptop.peerID, to: .reader)
    try writeNotes(laptop, 13...13)
    try await withRelay(relayConfiguration(directory.path("relay.sqlite"))) { url, _ in
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      let forwarded = try await transport.sync(phone)
      #expect(forwarded.sentEvents >= 5, "the phone's events and the laptop's, forwarded: \(forwarded)")
      _ = try await transport.sync(tablet)
      #expect(try tablet.noteCount() == 5)
      #expect(try tablet.notesDigest() == phone.notesDigest())
      // The laptop learns it is a reader from the relay, before it pushes:
      // it sends nothing, and pulls.
      let laptopSync = try await transport.sync(laptop)
      #expect(laptopSync.sentEvents == 0)
      #expect(try laptop.noteCount() == 6)
      _ = try await transport.sync(tablet)
      _ = try await transport.sync(phone)
      #expect(try tablet.noteCount() == 5)
      #expect(try phone.noteCount() == 5)
      #expect(try laptop.members().first { $0.device == laptop.peerID }?.role == .reader)
    }
  }
}
