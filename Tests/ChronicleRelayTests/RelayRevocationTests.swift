import Chronicle
import ChronicleNetwork
import ChronicleRelay
import Foundation
import Testing

import ChronicleTestSupport

@Suite("Relay: revocation")
struct RelayRevocationTests {
  /// The laptop is revoked while it watches, and writes once more before the
  /// relay hears of it. The relay ends its session, refuses it from then on,
  /// and never hands its post-revocation event to anyone: the tablet, offline
  /// meanwhile, syncs without stalling on an event every member refuses.
  @Test func aDeviceRevokedWhileWatchingIsCutOffAndItsLaterEventsReachNoOne() async throws {
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone"), laptop = try makeDevice(directory, "laptop"), tablet = try makeDevice(directory, "tablet")
    try phone.createGroup()
    try enroll(laptop, with: phone, in: directory)
    try enroll(tablet, with: phone, in: directory)
    let store = directory.path("relay.sqlite")
    try await withRelay(relayConfiguration(store)) { url, _ in
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      try writeNotes(phone, 1...3)
      for device in [phone, laptop, tablet, phone] { _ = try await transport.sync(device) }

      let watching = SyncEngine(for: laptop, transport: transport)
      let failures = FailureLog()
      let reports = Task { for await event in watching.events { if case .failed(let message) = event { failures.add(message) } } }
      defer {
        watching.stop()
        reports.cancel()
      }
      watching.start()
      try await Task.sleep(for: .milliseconds(300))

      try phone.revoke(laptop.peerID)  // not synced yet: the relay does not know
      try writeNotes(laptop, 90...90, tag: " after its revocation")
      let written = try laptop.versionVector()[laptop.peerID]
      let reader = RelayServerStoreReader(path: store)
      #expect(try await eventually { try await reader.vector()[laptop.peerID] == written }, "the laptop's last write never reached the relay")

      _ = try await transport.sync(phone)  // the relay learns of the revocation
      #expect(try await eventually { failures.all.contains { $0.contains("was revoked from this group") } }, "\(failures.all)")

      try writeNotes(phone, 4...4)
      _ = try await transport.sync(phone)
      let pulled = try await transport.sync(tablet)
      #expect(pulled.received.appliedEvents >= 2)
      #expect(try tablet.noteCount() == 4, "the tablet holds the laptop's post-revocation note or lacks the phone's")
      #expect(try tablet.members().first { $0.device == laptop.peerID }?.isActive == false)
      #expect(try tablet.verify().isValid)
    }
  }

  /// A revocation made on a watching device reaches the relay at once (a
  /// membership update on the open session), not at its next connection.
  @Test func aRevocationMadeWhileWatchingReachesTheRelayAtOnce() async throws {
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone"), laptop = try makeDevice(directory, "laptop")
    try phone.createGroup()
    try enroll(laptop, with: phone, in: directory)
    try await withRelay(relayConfiguration(directory.path("relay.sqlite"))) { url, _ in
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      for device in [phone, laptop, phone] { _ = try await transport.sync(device) }
      let phoneSync = SyncEngine(for: phone, transport: transport), laptopSync = SyncEngine(for: laptop, transport: transport)
      let failures = FailureLog()
      let reports = Task { for await event in laptopSync.events { if case .failed(let message) = event { failures.add(message) } } }
      defer {
        phoneSync.stop()
        laptopSync.stop()
        reports.cancel()
      }
      phoneSync.start()
      laptopSync.start()
      try await Task.sleep(for: .milliseconds(300))
      try phone.revoke(laptop.peerID)
      #expect(try await eventually { failures.all.contains { $0.contains("was revoked from this group") } }, "\(failures.all)")
    }
  }
}
