import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

@Suite("Compaction: a baseline, then the later events")
struct CompactionTests {
  @Test func aCompactedLogStillReplaysVerifiesRebuildsAndGrows() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let database = try openSyncPeer(directory, name: "app.sqlite", clock: clock)
    var random = SeededGenerator(seed: 17)
    for _ in 0..<60 {
      clock.advance(by: 1)
      try ConvergenceTests().randomWrite(database, &random)
    }
    let before = try database.digests()
    let events = try database.log.count()
    var vector = try database.versionVector()
    vector[database.peerID] = UInt64(events - 10)  // acknowledged by every peer up to there
    let report = try database.compact(before: vector)
    #expect(report.prunedEvents == events - 10 && report.remainingEvents == 10)
    #expect(report.throughPosition == Int64(events - 10))
    #expect(try database.log.count() == 10)
    #expect(try database.digests() == before)
    #expect(try database.versionVector()[database.peerID] == UInt64(events))
    #expect(try database.replayMatchesLive(directory))
    let verified = try database.verify()
    #expect(verified.isValid, "\(verified.problems)")
    #expect(try database.rebuild().differences == nil)

    // Before the baseline is gone, after it works.
    #expect(throws: ChronicleError.historyCompacted(point: "#3", baseline: Int64(events - 10))) {
      try database.replay(into: directory.path("early.sqlite"), options: ReplayOptions(until: .position(3)))
    }
    let stepper = try EventStepper(source: database, from: Int64(events - 5))
    #expect(try stepper.next()?.stored.id == Int64(events - 5))

    // The log goes on from there: sequences and positions continue.
    try database.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (99, 'after')") }
    let last = try #require(try database.log.events().last)
    #expect(last.event.sequence == UInt64(events + 1) && last.id == Int64(events + 1))
    // Compacting everything, twice, keeps positions going up.
    try database.compact(before: try database.versionVector())
    #expect(try database.log.count() == 0)
    try database.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (100, 'later')") }
    #expect(try database.log.events().last?.id == Int64(events + 2))
    #expect(try database.replayMatchesLive(directory))
    #expect(try database.verify().isValid)
  }

  @Test func peersKeepSyncingAcrossACompactionAndANewPeerStartsFromAClone() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let a = try openSyncPeer(directory, name: "a.sqlite", clock: clock)
    let b = try openSyncPeer(directory, name: "b.sqlite", clock: clock, skew: 2)
    var random = SeededGenerator(seed: 4)
    for step in 0..<60 {
      clock.advance(by: 1)
      try ConvergenceTests().randomWrite(step % 3 == 0 ? b : a, &random)
      if step % 12 == 11 { try push(a, to: b); try push(b, to: a) }
    }
    try push(a, to: b)
    try push(b, to: a)
    // What both have acknowledged: the smaller of their vectors.
    let (va, vb) = (try a.versionVector(), try b.versionVector())
    var acknowledged = VersionVector()
    for peer in Set(va.sequences.keys).union(vb.sequences.keys) { acknowledged[peer] = min(va[peer], vb[peer]) }
    let report = try a.compact(before: acknowledged)
    #expect(report.prunedEvents > 0)

    // A peer that lacks pruned events gets a clear error, not a partial log.
    #expect(throws: SyncError.self) { try a.serializedEvents(beyond: VersionVector()) }

    for _ in 0..<20 {
      clock.advance(by: 1)
      try ConvergenceTests().randomWrite(a, &random)
      try ConvergenceTests().randomWrite(b, &random)
    }
    try push(a, to: b)
    try push(b, to: a)
    #expect(try a.digests() == b.digests())
    #expect(try a.replayMatchesLive(directory))

    // A new peer from a clone of the compacted database.
    let peerC = try a.clone(into: directory.path("c.sqlite"))
    var configuration = ChronicleConfiguration()
    configuration.wallClock = clock.reader(skew: 0)
    let c = try Chronicle.open(path: directory.path("c.sqlite"), configuration: configuration)
    #expect(c.peerID == peerC && peerC != a.peerID)
    #expect(try c.digests() == a.digests())
    #expect(try c.log.count() == 0)
    clock.advance(by: 1)
    try c.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (500, 'from the clone')") }
    try ConvergenceTests().randomWrite(b, &random)
    for _ in 0..<2 {
      for (source, target) in [(c, a), (a, c), (b, c), (c, b), (a, b), (b, a)] { try push(source, to: target) }
    }
    #expect(try a.digests() == c.digests() && b.digests() == c.digests())
    let own = try c.log.events(EventFilter(origin: c.peerID))
    #expect(own.map(\.event.sequence) == [1], "the clone's own log starts at 1")
    #expect(try b.read { db in try String.fetchOne(db, sql: "SELECT name FROM lists WHERE id = 500") } == "from the clone")
    #expect(try c.replayMatchesLive(directory))
    #expect(try c.verify().isValid)
  }

  @Test func aMigrationCompactedIntoTheBaselineStillUpcastsAPeerThatHasNotRunIt() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let alice = try openSyncPeer(directory, name: "alice.sqlite", clock: clock)
    let bob = try openSyncPeer(directory, name: "bob.sqlite", clock: clock)
    try alice.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')") }
    try push(alice, to: bob)
    // Alice renames a column and compacts: the migration now lives in her
    // baseline alone. Bob has not run it, and writes the old column.
    clock.advance(by: 1)
    try alice.migrate("titles") { migration in try migration.renameColumn("name", to: "title", in: "lists") }
    _ = try alice.compact(before: alice.versionVector())
    #expect(try alice.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM chronicle_events") } == 0)
    clock.advance(by: 1)
    try bob.write { db in try db.execute(sql: "UPDATE lists SET name = 'Bob''s home' WHERE id = 1") }
    try push(bob, to: alice)
    #expect(try alice.read { db in try String.fetchOne(db, sql: "SELECT title FROM lists WHERE id = 1") } == "Bob's home")
  }
}
