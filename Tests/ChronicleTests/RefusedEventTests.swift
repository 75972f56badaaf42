import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

/// No single event stops a sync: a refused event is recorded with its
/// reason, the rest of its batch applies, and a settled refusal is never
/// asked for again (issue 59, items 1 and 2).
@Suite("Sync: refusal per event")
struct RefusedEventTests: ThreePeers {
  let directory: TemporaryDirectory
  let clock = ManualWallClock()
  let a: ChronicleDatabase
  let b: ChronicleDatabase
  let c: ChronicleDatabase

  init() throws {
    directory = try TemporaryDirectory()
    a = try openSyncPeer(directory, name: "a.sqlite", clock: clock)
    b = try openSyncPeer(directory, name: "b.sqlite", clock: clock)
    c = try openSyncPeer(directory, name: "c.sqlite", clock: clock)
  }

  /// c took b's late writes before it heard that a revoked b, and passes
  /// them on with its own: a refuses b's, takes c's, and on every later
  /// sync is sent none of b's again. Before, a refused c's batch whole, on
  /// every sync, forever.
  @Test func aRevokedDevicesLateEventsPassedOnByAMemberStopNothing() throws {
    try makeGroup()
    try insert(b, 1, "Before")
    try push(b, to: a)
    try push(b, to: c)
    try a.revoke(b.peerID)
    try insert(b, 2, "Late")
    try insert(b, 3, "Later")
    try push(b, to: c)  // c has not heard of the revocation
    #expect(try names(c) == ["Before", "Late", "Later"])
    try insert(c, 4, "From c")

    let report = try push(c, to: a)
    #expect(report.refused.count == 2)
    #expect(report.refused.allSatisfy { $0.origin == b.peerID && $0.settled && $0.reason.contains("revoked") }, "\(report.refused)")
    #expect(try names(a) == ["Before", "From c"])
    // Settled: counted as held, so c sends them no more, and c's next writes flow.
    #expect(try a.versionVector()[b.peerID] == c.versionVector()[b.peerID])
    try insert(c, 5, "Also from c")
    let next = try push(c, to: a)
    #expect(next.refused.isEmpty && next.appliedEvents == 1)
    #expect(try names(a) == ["Before", "From c", "Also from c"])
    let recorded = try a.refusedEvents()
    #expect(recorded.map(\.sequence).sorted() == report.refused.map(\.sequence).sorted())
    #expect(recorded.allSatisfy { $0.times == 1 && $0.source == "memory:\(c.peerID.shortDescription)" })
    #expect(try a.replayMatchesLive(directory))
  }

  /// A device's events refused because its admission had not arrived are
  /// not counted as held: once the admission comes, the same events are
  /// taken.
  @Test func eventsOfADeviceNotYetAdmittedAreTakenOnceItIs() throws {
    try a.createGroup()
    try push(a, to: b)
    try push(a, to: c)
    try c.join(try a.invite())
    try push(c, to: a)  // a admits c
    try push(a, to: c)
    try insert(c, 1, "From c")
    // b has the group's creation, not yet c's admission.
    let early = try c.serializedEvents(beyond: b.versionVector(), origin: c.peerID)
    let report = try b.applyRemote(serializedEvents: early.filter { try! EventCodec.decode($0).operations.allSatisfy { !$0.isMembership } }, source: "c")
    #expect(report.refused.contains { $0.origin == c.peerID && !$0.settled && $0.reason.contains("not a member") }, "\(report.refused)")
    #expect(try names(b).isEmpty)
    try push(a, to: b)  // the admission
    try push(c, to: b)
    #expect(try names(b) == ["From c"])
    #expect(try b.refusedEvents().isEmpty)
  }

  /// An event whose clock is far ahead is refused alone; the events
  /// beside it apply.
  @Test func anEventFromTheFarFutureIsRefusedAlone() throws {
    try insert(a, 1, "Now")
    let now = try a.serializedEvents(beyond: VersionVector())
    var future = try EventCodec.decode(try #require(now.last))
    future.sequence += 1
    future.timestamp = HLCTimestamp(milliseconds: future.timestamp.milliseconds + 10 * 24 * 3_600_000, counter: 0)
    future.operations = [.insert(table: 0, values: [.integer(2), .text("Future"), .null])]
    let key = try #require(try DeviceKey.read(from: a.identity.keyFile))
    let signed = EventSignature.seal(try EventCodec.encode(future).bytes, linkedTo: EventSignature.noLink, with: key)
    let report = try b.applyRemote(serializedEvents: now + [signed], source: "a")
    #expect(report.refused.count == 1 && report.refused[0].reason.contains("fix the clock"), "\(report.refused)")
    #expect(try names(b) == ["Now"])
  }

  /// A device outside the group signs events of its own: refused, and open
  /// (it may be admitted later): nothing counts them as held. Only a
  /// member's signed event refused by the group's rules is settled.
  @Test func aNonMembersEventsAreRefusedOpenAndNotCountedAsHeld() throws {
    try a.createGroup()
    try c.createGroup()  // another group's creation, signed by c
    try insert(c, 1, "From outside")
    let report = try push(c, to: a)
    #expect(report.refused.contains { $0.reason.contains("another group") }, "\(report.refused)")
    #expect(!report.refused.isEmpty && report.refused.allSatisfy { $0.origin == c.peerID && !$0.settled }, "\(report.refused)")
    #expect(try a.versionVector()[c.peerID] == 0)
    #expect(try a.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM chronicle_refused_events WHERE event IS NOT NULL") } == 0)
  }

  /// A revocation's cut-off is what the revoking admin's log holds of the
  /// device, not what it refused: a reader's refused writes are not let in
  /// by a revocation that follows them.
  @Test func aRevocationsCutOffCountsNoRefusedEvent() throws {
    try a.createGroup()
    try b.join(try a.invite(as: .reader))
    try push(b, to: a)
    try push(a, to: b)
    let held = try a.versionVector()[b.peerID]
    // A hostile build writes anyway; a refuses and settles it.
    try b.writer.write { db in
      try db.execute(sql: "UPDATE chronicle_members SET role = 'writer' WHERE peer_id = ?", arguments: [Data(b.peerID.bytes)])
    }
    try insert(b, 1, "From a reader")
    #expect(try push(b, to: a).refused.first?.settled == true)
    #expect(try a.versionVector()[b.peerID] > held)
    try a.revoke(b.peerID)
    #expect(try a.members().first { $0.device == b.peerID }?.revokedAfterSequence == held)
  }

  /// Deleting local data (a lost or revoked device's way out) removes what
  /// it refused too: other devices' kept events leave with the rest.
  @Test func deletingLocalDataRemovesTheRefusedEvents() throws {
    try makeGroup()
    try a.revoke(b.peerID)
    try insert(b, 1, "Late")
    #expect(try push(b, to: a).refused.count == 1)
    try a.deleteLocalData()
    #expect(try a.refusedEvents().isEmpty)
  }

  /// A device passes on what it refused for good: the receiver checks each
  /// event itself, settles it too, and its vector moves past it, instead of
  /// asking for it (and everything after it of that device) at every sync.
  @Test func aSettledRefusalIsPassedOnAndSettledByTheNextPeer() throws {
    try makeGroup()
    try a.revoke(b.peerID)
    try push(a, to: c)  // c hears of the revocation
    try insert(b, 1, "Late")
    #expect(try push(b, to: a).refused.first?.settled == true)
    #expect(try c.versionVector()[b.peerID] < a.versionVector()[b.peerID])
    let passed = try push(a, to: c)
    #expect(passed.refused.count == 1 && passed.refused[0].settled && passed.refused[0].origin == b.peerID, "\(passed.refused)")
    #expect(try c.versionVector()[b.peerID] == a.versionVector()[b.peerID])
    #expect(try push(a, to: c).refused.isEmpty)  // nothing sent again
    #expect(try names(c).isEmpty)
  }

  /// Compaction passes a settled refusal as the version vector does: a
  /// reader's refused write, followed by an event of its that is taken, no
  /// longer stops the baseline there.
  @Test func compactionPassesASettledRefusal() throws {
    try a.createGroup()
    try b.join(try a.invite(as: .reader))
    try push(b, to: a)
    try push(a, to: b)
    try b.writer.write { db in
      try db.execute(sql: "UPDATE chronicle_members SET role = 'writer' WHERE peer_id = ?", arguments: [Data(b.peerID.bytes)])
    }
    try insert(b, 1, "From a reader")  // refused for good at a
    try b.write { db in try db.execute(sql: "CREATE INDEX lists_by_name ON lists(name)") }  // no row change: taken
    #expect(try push(b, to: a).refused.count == 1)
    let vector = try a.versionVector()
    #expect(try vector[b.peerID] == b.versionVector()[b.peerID])
    let report = try a.compact(before: vector)
    #expect(try a.baseline()?.vector[b.peerID] == vector[b.peerID], "\(report)")
    #expect(try a.log.count() == 0)
  }

  /// A peer's own events that a compaction folded into its baseline, sent
  /// back to it in a bundle, are held: not refused as forged.
  @Test func ownCompactedEventsComingBackAreHeld() throws {
    try insert(a, 1, "Home")
    try push(a, to: b)
    try a.compact(before: try a.versionVector())
    let bundle = EventBundle.encode(writer: b.peerID, events: try b.serializedEvents(beyond: VersionVector()))
    let report = try a.applyRemote(bundle: bundle, source: "b")
    #expect(report.refused.isEmpty, "\(report.refused)")
  }

  /// A copy of a settled refusal's id with another clock far ahead (in a
  /// bundle of several batches) is refused, never merged: the clock check
  /// is skipped only for the very copy refused before.
  @Test func anotherCopyOfASettledRefusalFromTheFarFutureIsRefused() throws {
    try makeGroup()
    // d merges bundles four events at a time.
    let d = try openSyncPeer(directory, name: "d.sqlite", clock: clock, bundleBatchEvents: 4)
    try d.join(try a.invite())
    try push(d, to: a)
    try a.revoke(b.peerID)
    try push(a, to: d)
    try insert(b, 1, "Late")
    let late = try #require(try b.serializedEvents(beyond: VersionVector(), origin: b.peerID).last)
    #expect(try push(b, to: d).refused.first?.settled == true)
    var future = try EventCodec.decode(late)
    future.timestamp = HLCTimestamp(milliseconds: future.timestamp.milliseconds + 100 * 24 * 3_600_000, counter: 0)
    future.operations = []
    let key = try #require(try DeviceKey.read(from: b.identity.keyFile))
    let copy = EventSignature.seal(try EventCodec.encode(future).bytes, linkedTo: EventSignature.noLink, with: key)
    for id in 100..<112 { try insert(c, id, "filler \(id)") }
    let fillers = try c.serializedEvents(beyond: d.versionVector(), origin: c.peerID)
    let report = try d.applyRemote(bundle: EventBundle.encode(writer: c.peerID, events: fillers + [copy]), source: "bundle")
    #expect(report.refused.contains { $0.origin == b.peerID && $0.reason.contains("clock") }, "\(report.refused)")
    #expect(report.appliedEvents == fillers.count)
    let latest = try d.read { db in try Int64.fetchOne(db, sql: "SELECT max(hlc) FROM chronicle_events") }
    let latestClock = HLCTimestamp(rawValue: UInt64(try #require(latest)))
    #expect(latestClock.milliseconds < future.timestamp.milliseconds)
  }

  /// Two devices write the same value of a UNIQUE column: the event that
  /// brings the second is refused alone (open), the rest of the batch
  /// merges, and once one side changes its value the event is taken.
  /// Before, the batch failed with SQLite's constraint error at every sync.
  @Test func aRowBreakingAUniqueConstraintIsRefusedAloneUntilTheConflictIsResolved() throws {
    for peer in [a, b] {
      try peer.write { db in try db.execute(sql: "CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE) STRICT") }
    }
    clock.advance(by: 1)
    try a.write { db in try db.execute(sql: "INSERT INTO tags VALUES (1, 'urgent')") }
    clock.advance(by: 1)
    try b.write { db in try db.execute(sql: "INSERT INTO tags VALUES (2, 'urgent')") }
    try insert(b, 1, "Home")
    try insert(b, 2, "Work")
    let report = try push(b, to: a)
    #expect(report.refused.count == 1 && report.refused[0].reason.contains("UNIQUE"), "\(report.refused)")
    #expect(try names(a) == ["Home", "Work"])
    #expect(try a.read { db in try String.fetchAll(db, sql: "SELECT name FROM tags ORDER BY id") } == ["urgent"])
    // b renames its tag: the refused insert and the rename are taken together.
    clock.advance(by: 1)
    try b.write { db in try db.execute(sql: "UPDATE tags SET name = 'soon' WHERE id = 2") }
    let resolved = try push(b, to: a)
    #expect(resolved.refused.isEmpty, "\(resolved.refused)")
    #expect(try a.read { db in try String.fetchAll(db, sql: "SELECT name FROM tags ORDER BY id") } == ["urgent", "soon"])
    #expect(try a.refusedEvents().isEmpty)
  }

  /// The same in a bundle of several batches (`chronicle import`, folder
  /// segments), which merges in one transaction: the constraint failure
  /// used to fail the whole bundle at every import.
  @Test func aRowBreakingAUniqueConstraintInAMultiBatchBundleIsRefusedAlone() throws {
    let d = try openSyncPeer(directory, name: "d.sqlite", clock: clock, bundleBatchEvents: 2)
    for peer in [d, b] {
      try peer.write { db in try db.execute(sql: "CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE) STRICT") }
    }
    clock.advance(by: 1)
    try d.write { db in try db.execute(sql: "INSERT INTO tags VALUES (1, 'urgent')") }
    for id in 1...3 { try insert(b, id, "before \(id)") }
    clock.advance(by: 1)
    try b.write { db in try db.execute(sql: "INSERT INTO tags VALUES (2, 'urgent')") }
    for id in 4...6 { try insert(b, id, "after \(id)") }
    let report = try push(b, to: d)  // 8 events: 4 batches of 2
    #expect(report.refused.count == 1 && report.refused[0].reason.contains("UNIQUE"), "\(report.refused)")
    #expect(try names(d).count == 6)
    #expect(try d.refusedEvents().count == 1)
    clock.advance(by: 1)
    try b.write { db in try db.execute(sql: "UPDATE tags SET name = 'soon' WHERE id = 2") }
    let resolved = try push(b, to: d)
    #expect(resolved.refused.isEmpty, "\(resolved.refused)")
    #expect(try d.read { db in try String.fetchAll(db, sql: "SELECT name FROM tags ORDER BY id") } == ["urgent", "soon"])
    #expect(try d.refusedEvents().isEmpty)
  }
}
