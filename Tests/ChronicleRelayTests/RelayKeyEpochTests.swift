import Chronicle
import ChronicleNetwork
import ChronicleRelay
import ChronicleTestSupport
import Foundation
import Testing

/// The relay's promise against a revoked device: each revocation starts a
/// new key epoch that the revoked device is not granted, so whatever it
/// keeps (a copy of the relay's store, its own database and device key), it
/// opens nothing sealed after its revocation.
@Suite struct RelayKeyEpochTests {
  @Test func aRevokedDeviceWithACopyOfTheRelaysStoreReadsNothingWrittenAfterItsRevocation() async throws {
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone"), laptop = try makeDevice(directory, "laptop"), tablet = try makeDevice(directory, "tablet")
    try phone.createGroup()
    try enroll(laptop, with: phone, in: directory)
    try enroll(tablet, with: phone, in: directory)
    try writeNotes(phone, 1...3)
    let storePath = directory.path("relay.sqlite")
    let group = try #require(try phone.group)
    var heldAtRevocation = VersionVector()
    try await withRelay(relayConfiguration(storePath)) { url, _ in
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      for device in [phone, laptop, tablet] { _ = try await transport.sync(device) }
      #expect(try laptop.noteCount() == 3)
      try writeNotes(laptop, 10...11)
      _ = try await transport.sync(laptop)
      _ = try await transport.sync(phone)  // the revocation's cut-off keeps what the phone holds of the laptop
      heldAtRevocation = try phone.versionVector()
      try phone.revoke(laptop.peerID)
      try writeNotes(phone, 4...6)
      _ = try await transport.sync(phone)
      _ = try await transport.sync(tablet)
      #expect(try tablet.noteCount() == 8)
      try writeNotes(tablet, 7...9)
      _ = try await transport.sync(tablet)
      _ = try await transport.sync(phone)
      #expect(try phone.noteCount() == 11)
      // The relay turns the revoked device away...
      await #expect(throws: RelayError.self) { _ = try await transport.sync(laptop) }
    }
    // ...so it reads the relay's store file directly, with every key its
    // database, its device key and the group's whole history give it.
    let store = try SQLiteRelayStore(path: storePath)
    let history = try await store.membershipEvents(of: group).compactMap { try? MembershipEvent(verifying: $0) }
    let keyring = try #require(try laptop.groupKeyring(adding: history))
    #expect(keyring.currentEpoch != nil && keyring.sealingEpoch == nil, "the group's current key is not the revoked device's")
    let cipher = RelayEventCipher(keyring: keyring)
    let positioned: [PositionedEvent] = try await store.events(of: group, after: 0, through: nil, limit: 100_000, maxBytes: Int.max)
    let stored = positioned.map(\.event)
    try await store.close()
    var opened: [EventID] = [], notOpened: [EventID] = []
    for event in stored {
      let id = EventID(origin: event.origin, sequence: event.sequence)
      if (try? cipher.open(event)) != nil { opened.append(id) } else { notOpened.append(id) }
    }
    // What it held before its revocation it could open (the test can read)...
    #expect(opened.contains { $0.origin == phone.peerID && $0.sequence <= heldAtRevocation[phone.peerID] })
    // ...and every data event written after it stays closed: the phone's
    // notes 4 to 6 and the tablet's 7 to 9.
    let phoneAfter = stored.filter { $0.origin == phone.peerID && $0.sequence > heldAtRevocation[phone.peerID] }
    let tabletAfter = stored.filter { $0.origin == tablet.peerID && $0.sequence > heldAtRevocation[tablet.peerID] }
    #expect(!phoneAfter.isEmpty && !tabletAfter.isEmpty)
    for event in phoneAfter + tabletAfter {
      let id = EventID(origin: event.origin, sequence: event.sequence)
      // Membership events travel in the clear (the relay reads them too);
      // nothing else it wrote after the revocation opens.
      guard (try? MembershipEvent(verifying: Array(event.sealed.dropFirst()))) == nil else { continue }
      #expect(notOpened.contains(id), "\(id), written after the revocation, opens with the revoked device's keys")
    }
  }

  /// A device added while another admin started a new epoch is not granted
  /// that epoch's key by it: its events wait, are refused for now (asked for
  /// again), and are taken once an admin's device that holds the key shares
  /// it, which it does at its next sync.
  @Test func aMemberAddedConcurrentlyWithANewEpochIsGrantedItByTheNextAdminThatSyncs() async throws {
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone"), tablet = try makeDevice(directory, "tablet"), laptop = try makeDevice(directory, "laptop")
    try phone.createGroup()
    try enroll(tablet, with: phone, in: directory, as: .admin)
    try await withRelay(relayConfiguration(directory.path("relay.sqlite"))) { url, _ in
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      _ = try await transport.sync(phone)
      _ = try await transport.sync(tablet)
      // The tablet admits the laptop while the phone starts a new epoch, neither seeing the other.
      try enroll(laptop, with: tablet, in: directory)
      _ = try await transport.sync(tablet)
      try phone.rekey()
      try writeNotes(phone, 1...4)
      _ = try await transport.send(from: phone)  // a push alone: the phone does not hear of the laptop yet
      let first = try await transport.sync(laptop)
      #expect(try laptop.noteCount() == 0)
      #expect(first.received.refused.contains { $0.origin == phone.peerID && $0.reason.contains("not granted") && !$0.settled }, "\(first.received.refused)")
      // The tablet receives the new epoch, sees the laptop lacks it, and shares it.
      _ = try await transport.sync(tablet)
      _ = try await transport.sync(laptop)
      #expect(try laptop.noteCount() == 4)
      #expect(try laptop.refusedEvents().isEmpty)
      // And the laptop's own writes reach the phone, sealed with the new key.
      try writeNotes(laptop, 5...6)
      let sent = try await transport.sync(laptop)
      #expect(sent.unpushed == nil)
      _ = try await transport.sync(phone)
      #expect(try phone.noteCount() == 6)
    }
  }
}
