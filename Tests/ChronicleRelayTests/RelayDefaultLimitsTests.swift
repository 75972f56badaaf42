import Foundation
import Synchronization
import Testing

import ChronicleTestSupport

@testable import Chronicle
@testable import ChronicleNetwork
@testable import ChronicleRelay

/// A relay on the open internet limits what each group stores and what
/// each device pushes without being told to, and a revoked device loses its
/// connections whatever they are doing.
@Suite("Relay: limits on by default")
struct RelayDefaultLimitsTests {
  typealias Setup = RelayHostileInputTests.Setup

  @Test func aRelayLimitsEveryGroupAndDeviceByDefault() {
    let configuration = RelayServerConfiguration(storage: .sqlite(path: "relay.sqlite"))
    #expect(configuration.groupQuotaBytes == 1 << 30)
    #expect(configuration.groupQuotaEvents == 1_000_000)
    #expect(configuration.maxMembershipEvents == 10_000)
    #expect(configuration.maxPushBytesPerSecond == 16 << 20)
    #expect(configuration.maxPushDelay == .seconds(10))
    #expect(!configuration.openGroups)
  }

  /// Each stored event costs a row whatever its size: a group over its
  /// event quota is refused whole, retryable, and keeps what it had.
  @Test func aGroupOverItsEventQuotaIsRefusedWholeAndKeepsWhatItHad() async throws {
    let setup = try Setup()
    let transport = { (url: String) in try RelayTransport(url: url, configuration: clientConfiguration()) }
    try await withRelay(relayConfiguration(setup.store)) { url, _ in _ = try await transport(url).sync(setup.phone) }
    let stored = try Self.storedEvents(setup.store)
    var configuration = relayConfiguration(setup.store)
    configuration.groupQuotaEvents = stored + 5
    try await withRelay(configuration) { url, _ in
      for id in 100..<110 { try writeNotes(setup.phone, id...id) }
      let before = try setup.storeContents()
      do {
        _ = try await transport(url).sync(setup.phone)
        Issue.record("a push over the event quota was accepted")
      } catch let error as RelayError {
        guard case .refused(_, let message, let retryable) = error else { throw error }
        #expect(message.contains("the group's event quota is full: it stores \(stored) events, this push adds 10"), "\(message)")
        #expect(message.contains("--group-event-quota"))
        #expect(retryable)
      }
      #expect(try setup.storeContents() == before)
    }
  }

  /// The push allowance belongs to the device, not the connection: a
  /// second connection of a device that used its allowance on a first one
  /// is refused, told to retry, though it pushed nothing itself.
  @Test func aDeviceGetsNoMorePushAllowanceFromASecondConnection() async throws {
    let setup = try Setup()
    var configuration = relayConfiguration(setup.store)
    configuration.maxEventBytes = 32 << 10
    // Allowance: 1 MiB + 32 KiB, then 100 B/s. The first connection uses all
    // but about 55 kB of it; the second pushes 90 kB, 350 s of refill short:
    // far past the 10 s a push may wait, however slowly the machine runs.
    configuration.maxPushBytesPerSecond = 100
    try await withRelay(configuration) { url, _ in
      _ = try await RelayTransport(url: url, configuration: clientConfiguration()).sync(setup.phone)
      let next = try setup.phone.versionVector()[setup.phone.peerID] + 1
      let phone = setup.phone
      // Unsigned filler: the relay counts it against the allowance, then refuses it as forged.
      try await withRawConnection(url) { connection in
        _ = try await connection.identify(as: phone)
        let filler = (0..<32).map { SealedEvent(origin: phone.peerID, sequence: next + UInt64($0), sealed: [0x01] + Array(repeating: 7, count: 32_000)) }
        try await connection.send(.push(filler))
        let message = RelayHostileInputTests.refusal(try await connection.receive())
        #expect(message?.contains("is not signed by its key") == true, "\(String(describing: message))")
      }
      try await withRawConnection(url) { connection in
        _ = try await connection.identify(as: phone)
        let late = (0..<3).map { SealedEvent(origin: phone.peerID, sequence: next + UInt64($0), sealed: [0x01] + Array(repeating: 7, count: 30_000)) }
        try await connection.send(.push(late))
        let message = RelayHostileInputTests.refusal(try await connection.receive())
        #expect(message?.contains("pushes faster than the relay's limit of 100 bytes/s (over all its connections)") == true, "\(String(describing: message))")
        #expect(message?.contains("retry in") == true)
      }
    }
  }

  /// A device pushing faster than the rate for a few seconds is slowed, not
  /// refused: its sync takes longer and completes, and nothing is lost.
  @Test func aDevicePushingOverTheRateIsSlowedNotRefused() async throws {
    let setup = try Setup()
    var configuration = relayConfiguration(setup.store)
    configuration.maxEventBytes = 32 << 10
    configuration.maxPushBytesPerSecond = 200_000  // allowance: 1.1 MB, then 200 kB/s
    try await withRelay(configuration) { url, _ in
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      _ = try await transport.sync(setup.phone)
      // About 2.6 MB sealed: 1.5 MB over the allowance, 7.5 s at the rate
      // (a push slower than that, on a loaded machine, would never wait).
      for id in 5_000..<5_160 {
        try await setup.phone.write { db in try db.execute(sql: "INSERT INTO notes (id, body) VALUES (?, hex(randomblob(16000)))", arguments: [id]) }
      }
      let started = ContinuousClock.now
      let report = try await transport.sync(setup.phone)
      let took = ContinuousClock.now - started
      #expect(report.sentEvents >= 160)
      #expect(took > .seconds(1), "the push was not slowed (took \(took))")
      let metrics = try await httpGet(url, "/metrics", token: testMetricsToken).body
      #expect(Self.counter("chronicle_relay_pushes_delayed_total", in: metrics) >= 1, "\(metrics)")
      _ = try await transport.sync(setup.laptop)
      #expect(try setup.laptop.notesDigest() == setup.phone.notesDigest())
    }
  }

  /// A revoked device's connection is cut though it only waits (it neither
  /// pushes nor pulls): it hears why at once.
  @Test func aRevokedDevicesIdleConnectionIsCut() async throws {
    let setup = try Setup()
    try await withRelay(relayConfiguration(setup.store)) { url, _ in
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      for device in [setup.phone, setup.laptop, setup.phone] { _ = try await transport.sync(device) }
      let laptop = setup.laptop, phone = setup.phone
      let heard = FailureLog()
      let idle = Task {
        try await withRawConnection(url) { connection in
          guard case .welcome = try await connection.identify(as: laptop) else { return }
          heard.add("admitted")
          // Sends nothing, and waits (at most 10 s) for the relay's word.
          heard.add(RelayHostileInputTests.refusal(try await connection.receive()) ?? "no refusal")
        }
      }
      #expect(try await eventually(within: .seconds(20)) { heard.all.contains("admitted") })
      try phone.revoke(laptop.peerID)
      _ = try await transport.sync(phone)
      let started = ContinuousClock.now
      try await idle.value
      let message = heard.all.last
      #expect(message?.contains("was revoked from this group") == true, "\(String(describing: message))")
      #expect(ContinuousClock.now - started < .seconds(10))
    }
  }

  /// A member filling the member list's history (membership events of its
  /// own, signed, none of which any device applies) is stopped at the
  /// group's limit, and no member is locked out by it; an admin's device
  /// still gets its revocation through.
  @Test func aMemberFloodingMembershipEventsIsStoppedAndAnAdminCanStillRevokeIt() async throws {
    let setup = try Setup()
    let transport = { (url: String) in try RelayTransport(url: url, configuration: clientConfiguration()) }
    try await withRelay(relayConfiguration(setup.store)) { url, _ in
      for device in [setup.phone, setup.laptop, setup.phone] { _ = try await transport(url).sync(device) }
    }
    let held = try Self.storedMembershipEvents(setup.store)
    var configuration = relayConfiguration(setup.store)
    configuration.maxMembershipEvents = held + 3
    try await withRelay(configuration) { url, _ in
      let had = try setup.laptop.versionVector()
      try Self.forgeWithdrawals(setup.laptop, count: 8)
      let flood = try setup.laptop.serializedEvents(beyond: had).compactMap { try? MembershipEvent(verifying: $0) }
      #expect(flood.count == 8)
      // Its device refuses to send what it signed: a hostile client puts it in its hello.
      let laptop = setup.laptop
      try await withRawConnection(url) { connection in
        let answer = try await connection.identify(as: laptop, membership: try laptop.membershipEvents().map(\.bytes) + flood.prefix(3).map(\.bytes))
        guard case .welcome = answer else { throw RelayError.connectionClosed(relay: url, waitingFor: "a welcome to three more membership events") }
      }
      #expect(try Self.storedMembershipEvents(setup.store) == held + 3)  // the limit, reached
      let before = try setup.storeContents()
      // A hello carries whatever history its device holds: past the limit,
      // the others' new events are left out, and the device still syncs.
      try await withRawConnection(url) { connection in
        let answer = try await connection.identify(as: laptop, membership: try laptop.membershipEvents().map(\.bytes) + flood.map(\.bytes))
        guard case .welcome = answer else { throw RelayError.connectionClosed(relay: url, waitingFor: "a welcome, its flood left out") }
        // Its own new changes sent on the session are refused.
        try await connection.send(.membership(flood.suffix(5).map(\.bytes)))
        let message = RelayHostileInputTests.refusal(try await connection.receive())
        #expect(message?.contains("over this relay's limit of \(held + 3) (chronicle relay --max-membership-events)") == true, "\(String(describing: message))")
      }
      #expect(try setup.storeContents() == before)
      try setup.phone.revoke(setup.laptop.peerID)
      _ = try await transport(url).sync(setup.phone)  // over the limit: an admin's change is taken
      #expect(try Self.storedMembershipEvents(setup.store) > held + 3)
      do {
        _ = try await transport(url).sync(setup.laptop)
        Issue.record("the revoked laptop synced")
      } catch let error as RelayError {
        guard case .refused(_, let message, _) = error else { throw error }
        #expect(message.contains("was revoked from this group"), "\(message)")
      }
    }
  }

  /// Membership events withdrawing invitations `database` may not withdraw
  /// (it is no admin): signed by it, kept by every device, applied by none.
  static func forgeWithdrawals(_ database: ChronicleDatabase, count: Int) throws {
    for _ in 0..<count {
      database.session.pendingMembership = [.withdrawInvitation(UUID())]
      try database.write { _ in }
    }
  }

  static func storedEvents(_ store: String) throws -> Int {
    try DatabaseQueue(path: store).read { db in try Int.fetchOne(db, sql: "SELECT sum(events) FROM relay_groups") ?? 0 }
  }

  static func storedMembershipEvents(_ store: String) throws -> Int {
    try DatabaseQueue(path: store).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM relay_memberships") ?? 0 }
  }

  /// A counter's value in Prometheus's text format (0 when absent).
  static func counter(_ name: String, in metrics: String) -> Double {
    metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
  }
}
