import Chronicle
import ChronicleNetwork
import ChronicleRelay
import Foundation
import Testing

import ChronicleTestSupport

@Suite("Sync through a relay")
struct RelaySyncTests {
  /// The laptop joins through the relay alone: its first sync leaves its
  /// request there and is told to wait; the phone, an admin, admits it at
  /// its next sync; the laptop's next sync takes the group's data.
  @Test func aDeviceJoinsAndSyncsThroughTheRelayWithoutMeetingAnAdmin() async throws {
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone"), laptop = try makeDevice(directory, "laptop")
    try phone.createGroup()
    let invitation = try phone.invite()
    try laptop.join(invitation)
    try writeNotes(phone, 1...20)
    try writeNotes(laptop, 100...104)

    try await withRelay(relayConfiguration(directory.path("relay.sqlite"))) { url, _ in
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      let first = try await transport.sync(phone)
      #expect(first.sentEvents == 4)  // the table, the group, its first key epoch, the notes
      await #expect {
        _ = try await transport.sync(laptop)
      } throws: { error in
        guard case RelayError.refused(_, let message, let retryable) = error else { return false }
        return message.contains("asked to join") && retryable
      }
      #expect(try phone.members().count == 1)
      let admitting = try await transport.sync(phone)
      #expect(admitting.sentEvents == 1)  // its admission of the laptop
      #expect(try phone.members().map(\.device) == [phone.peerID, laptop.peerID])
      let second = try await transport.sync(laptop)
      #expect(second.received.appliedEvents > 0)
      _ = try await transport.sync(phone)
      #expect(try phone.notesDigest() == laptop.notesDigest())
      #expect(try phone.noteCount() == 25)
      #expect(try phone.versionVector() == laptop.versionVector())
      let again = try await transport.sync(laptop)
      #expect(again.sentEvents == 0 && again.received.appliedEvents == 0)
      // The invitation admitted one device: a second one with it is refused, and no admin admits it.
      let tablet = try makeDevice(directory, "tablet")
      try tablet.join(invitation)
      await #expect {
        _ = try await transport.sync(tablet)
      } throws: { error in
        guard case RelayError.refused(_, let message, let retryable) = error else { return false }
        return message.contains("is not a member") && !retryable
      }
      #expect(try await transport.sync(phone).sentEvents == 0)
      #expect(try phone.members().count == 2)
    }
  }
}

extension RelaySyncTests {
  @Test func theRelayStoresNoPlaintextOfAnyWrittenValue() async throws {
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone"), laptop = try makeDevice(directory, "laptop")
    try phone.createGroup()
    try enroll(laptop, with: phone, in: directory)
    let secrets = (1...40).map { "secret-\($0)-\(UUID().uuidString)" }
    try await phone.write { db in
      for (index, secret) in secrets.enumerated() {
        try db.execute(sql: "INSERT INTO notes (id, body, stars) VALUES (?, ?, ?)", arguments: [index, secret, 987_654_321])
      }
    }
    let storePath = directory.path("relay.sqlite")
    try await withRelay(relayConfiguration(storePath)) { url, _ in
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      _ = try await transport.sync(phone)
      _ = try await transport.sync(laptop)
    }
    #expect(try laptop.notesDigest() == phone.notesDigest())
    // Every byte the relay wrote: the database, its WAL, anything beside it.
    var stored = Data()
    for name in try FileManager.default.contentsOfDirectory(atPath: directory.url.path) where name.hasPrefix("relay.sqlite") {
      stored.append(try Data(contentsOf: directory.url.appendingPathComponent(name)))
    }
    #expect(stored.count > 10_000)
    for secret in secrets { #expect(stored.range(of: Data(secret.utf8)) == nil, "\(secret) is in the relay's files") }
    #expect(stored.range(of: Data("secret-".utf8)) == nil)
    #expect(stored.range(of: Data("CREATE TABLE notes".utf8)) == nil)
    let relayStore = try DatabaseQueue(path: storePath)
    let sealed = try await relayStore.read { db in try Data.fetchAll(db, sql: "SELECT sealed FROM relay_events") }
    // The phone: its table, the group, its first key epoch, the laptop's
    // admission, the notes; the laptop: its table, its join request.
    #expect(sealed.count == 7)
    for blob in sealed {
      // Sealed (form 1), or a signed membership event in the clear (form 0), which carries no data.
      let isMembership = blob.first == 0 && (try? MembershipEvent(verifying: Array(blob.dropFirst()))) != nil
      #expect(blob.first == 1 || isMembership, "an event is stored in the clear")
      #expect(blob.dropFirst().prefix(4) != Data("CHRE".utf8) || isMembership, "an event is stored in the clear")
    }
  }

  @Test func devicesOutsideTheGroupAreRefusedAndNothingIsStored() async throws {
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone"), stranger = try makeDevice(directory, "stranger")
    let loner = try makeDevice(directory, "loner")
    let group = try phone.createGroup()
    try writeNotes(phone, 1...5)
    try writeNotes(stranger, 50...55)
    try await withRelay(relayConfiguration(directory.path("relay.sqlite"))) { url, _ in
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      _ = try await transport.sync(phone)
      // In no group: told to create or join one.
      await #expect(throws: RelayError.notInAGroup) { try await transport.sync(loner) }
      // Claiming the phone's group without being a member: refused by name.
      try await withRawConnection(url) { connection in
        let answer = try await connection.identify(as: stranger, group: group, membership: [])
        guard case .failure(let message, let retryable) = answer else {
          Issue.record("expected a refusal, got \(String(describing: answer))")
          return
        }
        #expect(message.contains("is not a member of group \(group.uuidString.lowercased())"))
        #expect(message.contains("chronicle join"))
        #expect(!retryable)
      }
      let laptop = try makeDevice(directory, "laptop")
      try enroll(laptop, with: phone, in: directory)
      _ = try await transport.sync(phone)  // the relay learns of the laptop's admission
      _ = try await transport.sync(laptop)
      #expect(try laptop.noteCount() == 5)
      #expect(try laptop.notesDigest() == phone.notesDigest())
    }
  }
}

extension RelaySyncTests {
  /// A reader syncs through the relay: it pulls the group's data, pushes
  /// nothing, and a push it sends anyway is refused by the relay, which
  /// stores nothing every member would refuse.
  @Test func aReaderPullsAndTheRelayStoresNoneOfItsWrites() async throws {
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone"), laptop = try makeDevice(directory, "laptop")
    try phone.createGroup()
    try enroll(laptop, with: phone, in: directory, as: .reader)
    try writeNotes(phone, 1...5)
    try await withRelay(relayConfiguration(directory.path("relay.sqlite"))) { url, _ in
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      _ = try await transport.sync(phone)
      let pulled = try await transport.sync(laptop)
      #expect(pulled.sentEvents == 0)
      #expect(try laptop.noteCount() == 5)
      #expect(throws: ChronicleError.self) { try writeNotes(laptop, 50...50) }  // refused before it commits
      try await withRawConnection(url) { connection in
        _ = try await connection.identify(as: laptop)
        try await connection.send(.push([SealedEvent(origin: laptop.peerID, sequence: 1, sealed: Array(repeating: 7, count: 64))]))
        guard case .failure(let message, _) = try await connection.receive() else {
          Issue.record("a reader's push was not refused")
          return
        }
        #expect(message.contains("is a reader of this group"), "\(message)")
      }
    }
  }
}

extension ChronicleDatabase {
  /// The log's size and the notes, to check that nothing changed.
  func fingerprintOfLog() throws -> String { "\(try log.count()) events, \(String(describing: try notesDigest()))" }
}
