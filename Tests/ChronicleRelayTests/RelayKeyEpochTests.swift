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
  /// that epoch's key by it. The relay's welcome tells that admin's device
  /// of the addition (the group's history comes before its events): it
  /// grants its new key at once, in the same sync, so the new device reads
  /// everything at its first sync, and writes with the new key.
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
      _ = try await transport.send(from: phone)  // a push alone: the welcome is all the phone hears
      let current = try #require(try phone.groupKeyring()?.sealingEpoch)
      let granted = try phone.membershipEvents().contains { event in
        event.origin == phone.peerID && event.changes.contains { change in
          guard case .shareKeys(_, let grants) = change else { return false }
          return grants.contains { $0.device == laptop.peerID && $0.epoch == current }
        }
      }
      #expect(granted, "the phone granted its new key to the laptop it learned of")
      let first = try await transport.sync(laptop)
      #expect(first.received.refused.isEmpty, "\(first.received.refused)")
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

  /// An event sealed with an epoch the receiver was not granted is told
  /// apart from a damaged one (it waits for a grant, then is refused open),
  /// and the clear form carries membership events only.
  @Test func anEventSealedWithAKeyNotHeldIsToldApartAndTheClearFormCarriesOnlyMembership() throws {
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone"), laptop = try makeDevice(directory, "laptop")
    try phone.createGroup()
    try enroll(laptop, with: phone, in: directory)
    try phone.revoke(laptop.peerID)
    try writeNotes(phone, 1...1)
    let phoneCipher = RelayEventCipher(keyring: try #require(try phone.groupKeyring()))
    let laptopCipher = RelayEventCipher(keyring: try #require(try laptop.groupKeyring(adding: phone.membershipEvents())))
    let event = try #require(try phone.ownEvents(after: 0, maxEvents: 1_000, maxBytes: .max).last)
    let sealed = try phoneCipher.seal(event.bytes, origin: phone.peerID, sequence: event.sequence, isMembership: false)
    #expect(try phoneCipher.open(sealed) == event.bytes)
    do {
      _ = try laptopCipher.open(sealed)
      Issue.record("the revoked laptop opened an event sealed after its revocation")
    } catch {
      guard case .keyNotHeld = error else { Issue.record("\(error)"); return }
    }
    // A data event presented in the clear form is not taken, even by a member.
    do {
      _ = try phoneCipher.open(SealedEvent(origin: phone.peerID, sequence: event.sequence, sealed: [0] + event.bytes))
      Issue.record("a data event was taken in the clear")
    } catch {
      guard case .unreadable(let reason) = error, reason.contains("not a signed membership event") else { Issue.record("\(error)"); return }
    }
    // One altered byte: unreadable, not waiting for a key.
    var altered = sealed
    altered.sealed[altered.sealed.count - 1] ^= 1
    do {
      _ = try phoneCipher.open(altered)
      Issue.record("an altered event opened")
    } catch {
      guard case .unreadable = error else { Issue.record("\(error)"); return }
    }
  }
}
