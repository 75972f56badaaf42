import Chronicle
import ChronicleRelay
import Foundation
import Synchronization
import Testing

import ChronicleTestSupport

@testable import ChronicleNetwork

/// Every hostile or careless input is refused with a message that names the
/// problem, stores nothing, and leaves the relay serving the others.
@Suite("Relay: hostile input")
struct RelayHostileInputTests {
  /// A group of two devices with some notes, and the relay's store path.
  struct Setup {
    let directory: TemporaryDirectory
    let phone: ChronicleDatabase
    let laptop: ChronicleDatabase
    var store: String { directory.path("relay.sqlite") }

    init() throws {
      directory = try TemporaryDirectory()
      phone = try makeDevice(directory, "phone")
      laptop = try makeDevice(directory, "laptop")
      try phone.createGroup()
      try enroll(laptop, with: phone, in: directory)
      try writeNotes(phone, 1...10)
    }

    /// The relay's stored events, membership events and groups, to check that nothing changed.
    func storeContents() throws -> String {
      let queue = try DatabaseQueue(path: store)
      return try queue.read { db in
        let events = try Row.fetchAll(db, sql: "SELECT group_id, origin, sequence, hex(sealed) FROM relay_events ORDER BY position")
        let members = try Int.fetchOne(db, sql: "SELECT count(*) FROM relay_memberships") ?? 0
        let groups = try Row.fetchAll(db, sql: "SELECT * FROM relay_groups")
        return "\(events) \(members) \(groups)"
      }
    }

    /// A normal sync still works: the laptop gets the phone's notes.
    func othersStillSync(_ url: String) async throws {
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      _ = try await transport.sync(phone)
      _ = try await transport.sync(laptop)
      #expect(try laptop.notesDigest() == phone.notesDigest())
    }
  }

  /// The failure message an exchange ended with.
  static func refusal(_ answer: RelayMessage?) -> String? {
    guard case .failure(let message, _) = answer else { return nil }
    return message
  }

  @Test func garbageAndOutOfTurnMessagesAreRefused() async throws {
    let setup = try Setup()
    try await withRelay(relayConfiguration(setup.store)) { url, _ in
      _ = try await RelayTransport(url: url, configuration: clientConfiguration()).sync(setup.phone)
      let before = try setup.storeContents()
      try await withRawConnection(url) { connection in
        _ = try await connection.receive()  // the challenge
        try await connection.sendRaw([0xFF, 0x00, 0x13, 0x37])
        let message = Self.refusal(try await connection.receive())
        #expect(message?.contains("malformed message: unknown message type 255") == true, "\(String(describing: message))")
      }
      try await withRawConnection(url) { connection in
        _ = try await connection.receive()
        try await connection.send(.pull(VersionVector(), live: false))
        let message = Self.refusal(try await connection.receive())
        #expect(message?.contains("must start with a hello, not a pull") == true, "\(String(describing: message))")
      }
      try await withRawConnection(url) { connection in
        _ = try await connection.receive()
        try await connection.sendRaw(Array(RelayMessage.caughtUp.encoded()) + [1, 2, 3])
        let message = Self.refusal(try await connection.receive())
        #expect(message?.contains("3 unexpected bytes at the end") == true, "\(String(describing: message))")
      }
      #expect(try setup.storeContents() == before)
      try await setup.othersStillSync(url)
      // Counted, by kind, beside the traffic; and the relay is healthy.
      #expect(try await httpGet(url, "/metrics").status == 401)
      #expect(try await httpGet(url, "/metrics", token: "test-metrics-token-012345678X").status == 401)
      let metrics = try await httpGet(url, "/metrics", token: testMetricsToken)
      #expect(metrics.status == 200)
      #expect(metrics.body.contains(#"chronicle_relay_refusals_total{reason="malformed"} 2"#), "\(metrics.body)")
      #expect(metrics.body.contains(#"chronicle_relay_refusals_total{reason="protocol"} 1"#))
      #expect(metrics.body.contains("chronicle_relay_events_in_total 7"), "\(metrics.body)")  // the phone's 5 (its first key epoch and its admission of the laptop among them), the laptop's 2
      #expect(metrics.body.contains("chronicle_relay_connections 0"))
      #expect(try await httpGet(url, "/health") == (200, "ok\n"))
    }
  }

  @Test func aReplayedHelloIsRefused() async throws {
    let setup = try Setup()
    let phone = setup.phone
    try await withRelay(relayConfiguration(setup.store)) { url, _ in
      let recorded = Mutex<RelayMessage?>(nil)
      try await withRawConnection(url) { connection in
        let welcome = try await connection.identify(as: phone)
        guard case .welcome = welcome else {
          Issue.record("expected a welcome, got \(String(describing: welcome))")
          return
        }
        recorded.withLock { $0 = connection.lastHello }
      }
      let hello = try #require(recorded.withLock { $0 })
      try await withRawConnection(url) { connection in
        _ = try await connection.receive()  // a new challenge, with a new nonce
        try await connection.send(hello)
        let message = Self.refusal(try await connection.receive())
        #expect(message == "the hello's signature does not verify with the key it carries")
      }
      try await setup.othersStillSync(url)
    }
  }

  /// A hello names the relay its device addressed, under its signature: a
  /// relay that passes a device's hello on to another (answering that
  /// relay's challenge with it) is refused there, by its Host header or by
  /// the names its operator gave it.
  @Test func aHelloSignedForAnotherRelayIsRefused() async throws {
    let setup = try Setup()
    let phone = setup.phone
    var named = relayConfiguration(setup.store)
    try await withRelay(named) { url, _ in
      _ = try await RelayTransport(url: url, configuration: clientConfiguration()).sync(phone)
      try await withRawConnection(url) { connection in
        let message = Self.refusal(try await connection.identify(as: phone, relay: "other-relay.example:7440"))
        #expect(message?.contains("the hello was signed for relay other-relay.example:7440, and this relay answers to \(connection.relayName)") == true, "\(String(describing: message))")
      }
      try await setup.othersStillSync(url)
    }
    // Given its names, a relay takes hellos for them alone (a proxy in front may rewrite Host).
    named.names = ["relay.example"]
    try await withRelay(named) { url, _ in
      try await withRawConnection(url) { connection in
        let message = Self.refusal(try await connection.identify(as: phone))
        #expect(message?.contains("this relay answers to relay.example") == true, "\(String(describing: message))")
      }
      try await withRawConnection(url) { connection in
        guard case .welcome = try await connection.identify(as: phone, relay: "relay.example:443") else {
          Issue.record("a hello for relay.example:443 (relay.example) is refused")
          return
        }
      }
    }
  }

  /// A member may forward another member's events, but only as their
  /// origin signed them: anything else under another device's id (made up,
  /// or signed by the forwarder) is left out, and nothing is stored; its own
  /// events out of order are refused.
  @Test func aMemberCannotPushEventsUnderAnotherDevicesIdOrOutOfOrder() async throws {
    let setup = try Setup()
    let phone = setup.phone
    try await withRelay(relayConfiguration(setup.store)) { url, _ in
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      _ = try await transport.sync(setup.phone)
      _ = try await transport.sync(setup.laptop)
      let before = try setup.storeContents()
      let laptop = setup.laptop.peerID
      let group = try #require(try phone.group)
      let phoneKey = try #require(phone.deviceKey)
      let madeUp = SealedEvent(origin: laptop, sequence: 1, sealed: [1] + Array(repeating: 7, count: 80))
      for forged in [madeUp, EventRoute.signed(madeUp, group: group, key: phoneKey)] {
        try await withRawConnection(url) { connection in
          _ = try await connection.identify(as: phone)
          try await connection.send(.push([forged]))
          let answer = try await connection.receive()
          guard case .stored(_, let new) = answer else {
            Issue.record("expected a stored report, got \(String(describing: answer))")
            return
          }
          #expect(new == 0)
        }
      }
      try await withRawConnection(url) { connection in
        _ = try await connection.identify(as: phone)
        let outOfOrder = EventRoute.signed(
          SealedEvent(origin: phone.peerID, sequence: 9, sealed: [1] + Array(repeating: 7, count: 80)), group: group, key: phoneKey)
        try await connection.send(.push([outOfOrder]))
        let message = Self.refusal(try await connection.receive())
        #expect(message?.contains("the relay holds them up to :5 and got :9") == true, "\(String(describing: message))")
      }
      #expect(try setup.storeContents() == before)
      try await setup.othersStillSync(url)
    }
  }

  @Test func groupsStartOnlyWithACreationTokenEachGoodForItsCountOfGroups() async throws {
    let setup = try Setup()
    var configuration = relayConfiguration(setup.store)
    configuration.openGroups = false
    try await withRelay(configuration) { url, _ in
      func refusal(_ device: ChronicleDatabase, token: String?) async -> String {
        var client = clientConfiguration()
        client.creationToken = token
        do {
          _ = try await RelayTransport(url: url, configuration: client).sync(device)
          return "synced"
        } catch {
          return "\(error)"
        }
      }
      let empty = try setup.storeContents()
      // No token, a made-up one, and a member's device that is not the founder: nothing is stored.
      #expect(await refusal(setup.phone, token: nil).contains("a group new here starts with its founder's device and a creation token"))
      #expect(await refusal(setup.phone, token: GroupCreationToken.generate().text).contains("is not one this relay's operator created"))
      #expect(await refusal(setup.laptop, token: nil).contains("a group new here starts with its founder's device and a creation token"))
      #expect(try setup.storeContents() == empty)

      let token = try await RelayServer.createGroupCreationToken(in: .sqlite(path: setup.store), groups: 2, logger: quietLogger)
      #expect(await refusal(setup.phone, token: token.text) == "synced")
      // The group is on the relay now: its members need no token.
      #expect(await refusal(setup.laptop, token: nil) == "synced")
      #expect(try setup.laptop.notesDigest() == setup.phone.notesDigest())
      // Good for two groups: a second one starts, a third does not.
      let second = try makeDevice(setup.directory, "second"), third = try makeDevice(setup.directory, "third")
      try second.createGroup()
      try third.createGroup()
      #expect(await refusal(second, token: token.text) == "synced")
      #expect(await refusal(third, token: token.text).contains("has started all the groups it was made for"))
      let metrics = try await httpGet(url, "/metrics", token: testMetricsToken).body
      #expect(metrics.contains(#"chronicle_relay_refusals_total{reason="creation_token"} 4"#), "\(metrics)")
    }
  }

  /// Whoever knows a group's id learns nothing from the relay of whether it
  /// holds the group: a device outside it hears the same words either way,
  /// with a token or without.
  @Test func aStrangerLearnsNothingOfWhetherTheRelayHoldsAGroup() async throws {
    let setup = try Setup()
    var configuration = relayConfiguration(setup.store)
    configuration.openGroups = false
    try await withRelay(configuration) { url, _ in
      var founding = clientConfiguration()
      founding.creationToken = try await RelayServer.createGroupCreationToken(in: .sqlite(path: setup.store), logger: quietLogger).text
      _ = try await RelayTransport(url: url, configuration: founding).sync(setup.phone)
      let held = try #require(try setup.phone.group), absent = UUID()
      let stranger = try makeDevice(setup.directory, "stranger")
      // Its own hello for the group, as a device that claims it would send
      // (with a damaged membership event, or under a member's id).
      let phone = setup.phone.peerID
      func refusal(_ group: UUID, token: String?, membership: [[UInt8]] = [], claiming: PeerID? = nil) async throws -> String {
        let heard = FailureLog()
        try await withRawConnection(url, creationToken: token) { connection in
          let answer = try await connection.identify(as: stranger, group: group, membership: membership, claiming: claiming)
          heard.add(Self.refusal(answer) ?? "no refusal: \(String(describing: answer))")
        }
        return (heard.all.first ?? "").replacingOccurrences(of: group.uuidString.lowercased(), with: "GROUP")
          .replacingOccurrences(of: phone.description, with: "DEVICE").replacingOccurrences(of: stranger.peerID.description, with: "DEVICE")
      }
      let madeUp = GroupCreationToken.generate().text
      let damaged = [Array(repeating: UInt8(7), count: 200)]
      for token in [nil, madeUp] {
        #expect(try await refusal(held, token: token) == refusal(absent, token: token))
        #expect(try await refusal(held, token: token, membership: damaged) == refusal(absent, token: token, membership: damaged))
        #expect(try await refusal(held, token: token, claiming: phone) == refusal(absent, token: token, claiming: phone))
      }
      #expect(try await refusal(held, token: nil).contains("is not a member of group GROUP on this relay"))
      #expect(try await refusal(absent, token: madeUp).contains("starts no group here"))
    }
  }

  @Test func aStrangersHelloStoresNothingNotEvenEventsWaitingForTheirHistory() async throws {
    let setup = try Setup()
    try await withRelay(relayConfiguration(setup.store)) { url, _ in
      _ = try await RelayTransport(url: url, configuration: clientConfiguration()).sync(setup.phone)
      // An admin the phone added where the relay did not see it rekeys: its
      // event builds on history the relay lacks, so the relay would keep it
      // waiting. A stranger who got hold of it sends it in its hello.
      let ghost = try makeDevice(setup.directory, "ghost")
      try enroll(ghost, with: setup.phone, in: setup.directory, as: .admin)
      let admission = setup.directory.url.appendingPathComponent("admission.chrb")
      try setup.phone.exportBundle(beyond: ghost.versionVector(), to: admission)
      _ = try ghost.applyRemote(bundle: Array(try Data(contentsOf: admission)), source: "phone")
      try ghost.rekey()
      let waiting = try #require(try ghost.membershipEvents().last { $0.origin == ghost.peerID })
      let stranger = try makeDevice(setup.directory, "stranger")
      let group = try #require(try setup.phone.group)
      let before = try setup.storeContents()
      try await withRawConnection(url) { connection in
        let answer = try await connection.identify(as: stranger, group: group, membership: [waiting.bytes])
        #expect(Self.refusal(answer)?.contains("is not a member") == true, "\(String(describing: answer))")
      }
      #expect(try setup.storeContents() == before, "a stranger's hello stored membership events")
      try await setup.othersStillSync(url)
    }
  }

  @Test func messagesOfMillionsOfTinyEntriesAreRefusedBeforeTheyAreDecoded() async throws {
    let setup = try Setup()
    let phone = setup.phone
    try await withRelay(relayConfiguration(setup.store)) { url, _ in
      _ = try await RelayTransport(url: url, configuration: clientConfiguration()).sync(phone)
      let before = try setup.storeContents()
      // Before anyone is identified: a 4 MB hello of 2 million one-byte "membership events".
      try await withRawConnection(url) { connection in
        _ = try await connection.receive()
        let empty = RelayMessage.hello(
          version: RelayMessage.protocolVersion, group: UUID(), device: phone.peerID, publicKey: [UInt8](repeating: 1, count: 32),
          signature: [UInt8](repeating: 1, count: 64), relay: connection.relayName, membership: []
        ).encoded()
        var writer = WireWriter()
        writer.raw(Array(empty.dropLast()))  // all but its count of membership events, 0
        writer.varint(2_000_000)
        for _ in 0..<2_000_000 { writer.data([7]) }
        try await connection.sendRaw(writer.bytes)
        let message = Self.refusal(try await connection.receive())
        #expect(message?.contains("hello claims 2000000 membership events") == true, "\(String(describing: message))")
      }
      // A member's push of 5,000 events: over the count any message may hold, whatever their size.
      try await withRawConnection(url) { connection in
        _ = try await connection.identify(as: phone)
        let events = (6...5_005).map { SealedEvent(origin: phone.peerID, sequence: UInt64($0), sealed: [UInt8](repeating: 7, count: 64)) }
        try await connection.send(.push(events))
        let message = Self.refusal(try await connection.receive())
        #expect(message?.contains("claims 5000 events in one message, over the limit of 4096") == true, "\(String(describing: message))")
      }
      // And one of events shorter than any sealed event.
      try await withRawConnection(url) { connection in
        _ = try await connection.identify(as: phone)
        try await connection.send(.push([
          SealedEvent(origin: phone.peerID, sequence: 6, sealed: [UInt8](repeating: 7, count: 200)),
          SealedEvent(origin: phone.peerID, sequence: 7, sealed: []),
        ]))
        let message = Self.refusal(try await connection.receive())
        #expect(message?.contains(":7 is 0 bytes, shorter than any sealed event") == true, "\(String(describing: message))")
      }
      #expect(try setup.storeContents() == before)
      try await setup.othersStillSync(url)
    }
  }

  @Test func anOversizedEventIsRefusedWithTheLimitAndNothingOfThePushIsStored() async throws {
    let setup = try Setup()
    let phone = setup.phone
    var configuration = relayConfiguration(setup.store)
    configuration.maxEventBytes = 64 << 10
    try await withRelay(configuration) { url, _ in
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      _ = try await transport.sync(setup.phone)
      let before = try setup.storeContents()
      try await setup.phone.write { db in
        try db.execute(sql: "INSERT INTO notes (id, body) VALUES (500, hex(randomblob(100000)))")
      }
      // The device knows the relay's limit (from its welcome) and says so before sending.
      do {
        _ = try await transport.sync(setup.phone)
        Issue.record("an event over the limit was pushed")
      } catch let error as RelayError {
        guard case .eventTooLarge(let event, let size, let limit) = error else { throw error }
        #expect(event == "\(setup.phone.peerID.shortDescription):6" && size > limit && limit == 65_536)
        #expect(error.description.contains("its --max-event-size"))
      }
      // A device that pushes one anyway is refused by the relay, by the limit's name.
      try await withRawConnection(url) { connection in
        _ = try await connection.identify(as: phone)
        try await connection.send(.push([SealedEvent(origin: phone.peerID, sequence: 5, sealed: Array(repeating: 1, count: 70_000))]))
        let message = Self.refusal(try await connection.receive())
        #expect(message?.contains("is 70000 bytes sealed, over this relay's limit of 65536 (chronicle relay --max-event-size)") == true, "\(String(describing: message))")
      }
      // And one whose message is larger than any push may be is cut off at the limit.
      try await withRawConnection(url) { connection in
        _ = try await connection.identify(as: phone)
        try await connection.send(.push([SealedEvent(origin: phone.peerID, sequence: 4, sealed: Array(repeating: 1, count: 1_200_000))]))
        let message = Self.refusal(try await connection.receive())
        #expect(message?.contains("a message of more than 1114112 bytes, over this relay's limit") == true, "\(String(describing: message))")
      }
      #expect(try setup.storeContents() == before)
    }
  }

  @Test func aGroupOverItsQuotaIsRefusedWholeAndKeepsWhatItHad() async throws {
    let setup = try Setup()
    var configuration = relayConfiguration(setup.store)
    configuration.groupQuotaBytes = 4_000
    try await withRelay(configuration) { url, _ in
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      _ = try await transport.sync(setup.phone)
      let before = try setup.storeContents()
      try await setup.phone.write { db in
        for id in 1_000..<1_200 { try db.execute(sql: "INSERT INTO notes (id, body) VALUES (?, hex(randomblob(40)))", arguments: [id]) }
      }
      do {
        _ = try await transport.sync(setup.phone)
        Issue.record("a push over the quota was accepted")
      } catch let error as RelayError {
        guard case .refused(_, let message, let retryable) = error else { throw error }
        #expect(message.contains("the group's storage quota is full"), "\(message)")
        #expect(message.contains("the quota is 4000"))
        #expect(retryable)
      }
      #expect(try setup.storeContents() == before)
    }
  }

  @Test func aConnectionPushingFasterThanTheRateLimitIsToldToRetryAndKeepsWhatWasStored() async throws {
    let setup = try Setup()
    var configuration = relayConfiguration(setup.store)
    configuration.maxEventBytes = 32 << 10
    configuration.maxPushBytesPerSecond = 1_000  // allowance: one largest event and a push page, then 1 kB/s
    try await withRelay(configuration) { url, _ in
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      _ = try await transport.sync(setup.phone)
      for id in 2_000..<2_200 {
        try await setup.phone.write { db in try db.execute(sql: "INSERT INTO notes (id, body) VALUES (?, hex(randomblob(6000)))", arguments: [id]) }
      }
      try writeNotes(setup.phone, 3_000..<3_001)
      let before = try setup.storeContents()
      do {
        _ = try await transport.sync(setup.phone)
        Issue.record("a push over the rate limit was accepted")
      } catch let error as RelayError {
        guard case .refused(_, let message, let retryable) = error else { throw error }
        #expect(message.contains("faster than the relay's limit of 1000 bytes/s"), "\(message)")
        #expect(message.contains("retry in"))
        #expect(retryable)
      }
      // Each push is whole or nothing: the events before the refused push stay, the rest waits.
      let stored = try await RelayServerStoreReader(path: setup.store).vector()[setup.phone.peerID]
      let written = try setup.phone.versionVector()[setup.phone.peerID]
      #expect(stored > 3 && stored < written, "stored up to :\(stored) of :\(written)")
      #expect(try setup.storeContents() != before)
    }
  }

  @Test func aRevokedDeviceIsRefused() async throws {
    let setup = try Setup()
    try await withRelay(relayConfiguration(setup.store)) { url, _ in
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      _ = try await transport.sync(setup.phone)
      _ = try await transport.sync(setup.laptop)
      _ = try await transport.sync(setup.phone)  // the phone learns of the laptop's join
      try setup.phone.revoke(setup.laptop.peerID)
      _ = try await transport.sync(setup.phone)
      try writeNotes(setup.laptop, 70...75)
      let before = try setup.storeContents()
      do {
        _ = try await transport.sync(setup.laptop)
        Issue.record("a revoked device synced")
      } catch let error as RelayError {
        guard case .refused(_, let message, _) = error else { throw error }
        #expect(message == "device \(setup.laptop.peerID) was revoked from this group by \(setup.phone.peerID.shortDescription)")
      }
      #expect(try setup.storeContents() == before)
    }
  }
}

/// Reads a relay's SQLite store directly, as a test checks what it holds.
struct RelayServerStoreReader {
  let path: String

  /// The last sequence stored of each device, over every group.
  func vector() async throws -> VersionVector {
    let queue = try DatabaseQueue(path: path)
    return try await queue.read { db in
      var sequences: [PeerID: UInt64] = [:]
      for row in try Row.fetchAll(db, sql: "SELECT origin, last_sequence FROM relay_origins") {
        if let origin = PeerID(bytes: row[0] as Data) { sequences[origin] = UInt64(row[1] as Int64) }
      }
      return VersionVector(sequences)
    }
  }
}
