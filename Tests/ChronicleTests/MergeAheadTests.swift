import ChronicleTestSupport
import Foundation
import Testing

@testable import Chronicle

/// Received writes newer than every local event not folded into merge state
/// yet are merged without folding that history first (a first sync no
/// longer reads a peer's whole history while the other side waits). The
/// history is folded later, when an older write arrives or a preparation
/// runs; by then, the merge state must be the one a rebuild derives from the
/// log in one pass, and the peers must converge.
@Suite("Merging ahead of local history not folded yet")
struct MergeAheadTests {
  func isMergedAhead(_ database: ChronicleDatabase) throws -> Bool {
    try database.read { db in try ChronicleMeta(db: db).value(.receivedMergedPastFoldMark) != nil }
  }

  func foldMark(_ database: ChronicleDatabase) throws -> Int64? {
    try database.read { db in try ChronicleMeta(db: db).value(.mergeFoldedThrough) }
  }

  func foldMarks(_ database: ChronicleDatabase) throws -> FoldMarks {
    try database.read { db in try FoldMarks.read(db) }
  }

  /// What a push of `source`'s events to `target` needs of the target's local history.
  func localHistory(of source: ChronicleDatabase, for target: ChronicleDatabase) throws -> ChronicleDatabase.LocalHistoryForMerge {
    let events = try incomingEvents(of: source, for: target)
    return try target.read { db in try ChronicleDatabase.localHistory(for: events, local: target.peerID, db) }
  }

  /// Forgets which rows the own events changed, as in a file written
  /// before capture kept that index: a merge then folds them whole.
  func forgetRowTouches(_ database: ChronicleDatabase) throws {
    try database.writer.write { db in try db.execute(sql: "UPDATE chronicle_event_tables SET row_hashes = NULL") }
  }

  @Test(arguments: [UInt64(0x5EED_0501), 0x5EED_0502, 0x5EED_0503, 0x5EED_0504, 0x5EED_0505, 0x5EED_0506])
  func randomHistoriesMergedAheadFoldToTheOnePassState(seed: UInt64) async throws {
    try await offThePool { try run(seed: seed) }
  }

  func run(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    // Skewed clocks: some pushes bring writes older than the receiver's
    // latest (it folds first), most bring newer ones (it merges ahead).
    // Two of them fold their short histories by the rows they receive.
    let peers = try [0, 2, -2].enumerated().map { index, skew in
      try openSyncPeer(
        directory, name: "peer\(index).sqlite", clock: clock, skew: Int64(skew),
        rowFoldMinimumEvents: index == 2 ? TouchedRowFold.minimumEvents : 1)
    }
    var mergedAhead = 0, folded = 0
    for _ in 0..<Int.random(in: 200...250, using: &random) {
      clock.advance(by: UInt64.random(in: 0...3, using: &random))
      let source = peers.randomElement(using: &random)!
      let target = peers.filter { $0 !== source }.randomElement(using: &random)!
      func pushCounted() throws {
        if case .mustFold = try localHistory(of: source, for: target) { folded += 1 }
        try push(source, to: target)
        if try isMergedAhead(target) { mergedAhead += 1 }
      }
      switch Int.random(in: 0..<12, using: &random) {
      case 0, 1:
        try pushCounted()
      case 2:
        // The target writes, then the source, later than any clock skew:
        // the source's writes are newer than the target's unfolded ones.
        try push(source, to: target)
        for _ in 0..<Int.random(in: 1...4, using: &random) { try ConvergenceTests().randomWrite(target, &random) }
        clock.advance(by: 10)
        for _ in 0..<Int.random(in: 1...4, using: &random) { try ConvergenceTests().randomWrite(source, &random) }
        try pushCounted()
      default:
        try ConvergenceTests().randomWrite(source, &random)
      }
    }
    #expect(mergedAhead > 5, "seed \(seed): only \(mergedAhead) pushes merged ahead of local history")
    #expect(folded > 5, "seed \(seed): only \(folded) pushes folded local history first")

    for (index, peer) in peers.enumerated() {
      try peer.prepareMergeState()
      #expect(try !peer.hasUnfoldedEvents() && !isMergedAhead(peer), "seed \(seed): peer \(index) did not catch up")
      try expectMergeStateIsTheOnePassState(peer, "seed \(seed), peer \(index)")
    }
    for _ in 0..<2 {
      for source in peers { for target in peers where target !== source { try push(source, to: target) } }
    }
    let digests = try peers.map { try $0.digests() }
    #expect(digests.allSatisfy { $0 == digests[0] }, "seed \(seed): the peers differ after syncing")
  }

  /// What local history did to a row, not folded yet, decides a newer
  /// received write as a fold would have: a row deleted here comes back
  /// whole, a row inserted here takes the newer columns, a row deleted and
  /// inserted again is updated in place, and a row parked here for its
  /// parent stays parked for its parent.
  @Test func localHistoryNotFoldedDecidesAsAFoldWould() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let server = try openSyncPeer(directory, name: "server.sqlite", clock: clock)
    let client = try openSyncPeer(directory, name: "client.sqlite", clock: clock)
    try server.write { db in
      try db.execute(sql: "INSERT INTO lists (id, name, weight) VALUES (1, 'one', 1), (2, 'two', 2), (3, 'three', 3), (4, 'four', 4)")
    }
    try push(server, to: client)
    try push(client, to: server)  // the client's schema event: no rows, no fold
    #expect(try foldMark(server) == nil)
    clock.advance(by: 1)
    try server.write { db in
      try db.execute(sql: "DELETE FROM lists WHERE id = 1")
      try db.execute(sql: "DELETE FROM lists WHERE id = 3")
      try db.execute(sql: "INSERT INTO lists (id, name, weight) VALUES (3, 'three again', 30), (5, 'five', 5)")
    }
    clock.advance(by: 1)
    try client.write { db in
      try db.execute(sql: "UPDATE lists SET name = 'one, edited later' WHERE id = 1")
      try db.execute(sql: "UPDATE lists SET weight = 33 WHERE id = 3")
      try db.execute(sql: "UPDATE lists SET name = 'two, edited later' WHERE id = 2")
      try db.execute(sql: "DELETE FROM lists WHERE id = 4")
    }
    let report = try push(client, to: server)
    #expect(report.rowChanges == 4)
    #expect(try isMergedAhead(server) && foldMark(server) == nil, "the newer writes merged without folding")
    let rows = try server.read { db in
      try Row.fetchAll(db, sql: "SELECT id, name, weight FROM lists ORDER BY id").map { "\($0[0] as Int64) \($0[1] as String) \($0[2] as Double)" }
    }
    #expect(rows == ["1 one, edited later 1.0", "2 two, edited later 2.0", "3 three again 33.0", "5 five 5.0"])
    #expect(try server.parkedRows().isEmpty)

    // Folding later gives the state one pass gives, and the peers converge.
    try server.prepareMergeState()
    try expectMergeStateIsTheOnePassState(server, "server")
    try push(server, to: client)
    #expect(try server.digests() == client.digests())
  }

  /// A received write older than some of the local history folds only
  /// the local events as new as it (this peer's clock only moves forward:
  /// they end its sequence), merges ahead of the rest, and leaves the fold
  /// mark where it is; older writes later fold further back, the ranges
  /// folded join up, and a full fold ends where a fold in one pass would.
  @Test func anOlderWriteFoldsOnlyTheLocalHistoryAsNewAsIt() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let server = try openSyncPeerWithLists(directory, name: "server.sqlite", clock: clock, count: 200)
    let sequences = try server.read { db in try EventLog.lastSequence(db, origin: server.peerID) }
    func stateRows() throws -> Int { try server.read { db in try mergeStateCount(db) } }
    // Without the index of rows each event changed (a file from before it).
    try forgetRowTouches(server)

    // 20 ms behind: the server's last 20 or so inserts are as new.
    let recent = try openSyncPeer(directory, name: "recent.sqlite", clock: clock, skew: -20)
    try recent.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (195, 'elsewhere')") }
    try push(recent, to: server)
    let afterRecent = try stateRows()
    #expect(afterRecent >= 18 && afterRecent <= 23, "\(afterRecent) rows of merge state")
    var marks = try foldMarks(server)
    #expect(marks.through == 0)
    #expect(marks.ownSequences.count == 1 && marks.ownSequences[0].upperBound == sequences)
    // The server's insert of row 195 is newer than the received one: it stays.
    #expect(try server.read { db in try String.fetchOne(db, sql: "SELECT name FROM lists WHERE id = 195") } == "list 195")

    // A local write, then a write 100 ms behind: the new local event and
    // the older ones down to that clock are folded; one range still.
    try server.write { db in try db.execute(sql: "UPDATE lists SET name = 'edited' WHERE id = 10") }
    clock.advance(by: 1)
    let older = try openSyncPeer(directory, name: "older.sqlite", clock: clock, skew: -100)
    try older.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (150, 'older')") }
    try push(older, to: server)
    let afterOlder = try stateRows()
    #expect(afterOlder >= 97 && afterOlder <= 105, "\(afterOlder) rows of merge state")
    marks = try foldMarks(server)
    #expect(marks.through == 0)
    #expect(marks.ownSequences.count == 1 && marks.ownSequences[0].upperBound == sequences + 1)
    #expect(try server.read { db in try String.fetchOne(db, sql: "SELECT name FROM lists WHERE id = 150") } == "list 150")

    // A full fold reads the rest and clears the ranges.
    try server.prepareMergeState()
    marks = try foldMarks(server)
    #expect(marks.through > 0 && marks.ownSequences.isEmpty)
    #expect(try stateRows() == 200)
    try expectMergeStateIsTheOnePassState(server, "server")
    for source in [server, recent, older] { for target in [server, recent, older] where target !== source { try push(source, to: target) } }
    #expect(try server.digests() == recent.digests() && server.digests() == older.digests())
  }

  /// A received write older than the whole local history folds only the
  /// own events that changed the rows it writes, and of those only those
  /// rows: the marks stay, the rest is folded later. Writes touching too
  /// many of the own events fold them whole instead.
  @Test func aWriteOlderThanAllLocalHistoryFoldsOnlyTheEventsOfItsRows() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let server = try openSyncPeerWithLists(directory, name: "server.sqlite", clock: clock, count: 300)
    for round in 1...3 {
      try server.write { db in try db.execute(sql: "UPDATE lists SET weight = ? WHERE id = 50", arguments: [round]) }
      clock.advance(by: 1)
    }
    func stateRows() throws -> Int { try server.read { db in try mergeStateCount(db) } }
    func list(_ id: Int) throws -> String? {
      try server.read { db in
        try Row.fetchOne(db, sql: "SELECT name, weight FROM lists WHERE id = ?", arguments: [id]).map { row in
          "\(row[0] as String) \((row[1] as Double?).map { "\($0)" } ?? "null")"
        }
      }
    }

    // Written a second before the server's first write: older than all of it.
    let away = try openSyncPeer(directory, name: "away.sqlite", clock: clock, skew: -1_000)
    try away.write { db in
      try db.execute(sql: "INSERT INTO lists (id, name, weight) VALUES (50, 'away', 9), (1000, 'new here', 3)")
      try db.execute(sql: "INSERT INTO items (id, listID, title) VALUES (1, 1000, 'kept')")
    }
    guard case .mustFold = try localHistory(of: away, for: server) else {
      Issue.record("the push should need local history")
      return
    }
    let received = try incomingEvents(of: away, for: server)
    let fold = try server.read { db in
      try TouchedRowFold.plan(db, events: received, since: .init(rawValue: 0), applier: MergeApplier.forMerging(db, local: server.peerID))
    }
    // 4 events read, 304 index entries read (7 events' worth), 3 rows hashed.
    #expect(fold?.eventsToRead == 4 && fold?.eventsInRange == 304 && fold?.cost == 11, "\(String(describing: fold))")
    try push(away, to: server)
    // Row 50's own four events, and the three rows received.
    #expect(try stateRows() == 3)
    #expect(try foldMarks(server) == FoldMarks())
    #expect(try rowFoldCost(server) == 11)
    #expect(try list(50) == "list 50 3.0")
    #expect(try list(1000) == "new here 3.0")

    // Older writes to half the lists: the own events are folded whole.
    try away.write { db in
      for id in 1...100 where id != 50 {
        try db.execute(sql: "INSERT INTO lists (id, name) VALUES (?, 'away')", arguments: [id])
      }
    }
    try push(away, to: server)
    let marks = try foldMarks(server)
    #expect(marks.ownSequences.count == 1, "\(marks)")
    #expect(try rowFoldCost(server) == nil)
    #expect(try list(10) == "list 10 null" && list(1000) == "new here 3.0")

    try expectAWholeFoldAgreesAndConverges(server, with: away)
  }

  /// Many merges of older writes, each needing few own events, fold by rows
  /// until what they cost (the events they read, and the index entries they
  /// read to find them) comes to a quarter of what a whole fold would; the
  /// next folds whole.
  @Test func foldsByRowsCostAQuarterOfAWholeFoldAtMostBeforeOne() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let server = try openSyncPeerWithLists(directory, name: "server.sqlite", clock: clock, count: 399)
    let away = try openSyncPeer(directory, name: "away.sqlite", clock: clock, skew: -1_000)
    // 400 own events (the schema's and 399 lists): folds by rows may cost
    // 100 events' worth; each costs 11 (the list's event, and 400 index
    // entries for 10).
    var foldsByRows = 0
    for id in 1...20 {
      try away.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (?, 'away')", arguments: [id]) }
      try push(away, to: server)
      guard try foldMarks(server).ownSequences.isEmpty else { break }
      foldsByRows += 1
      #expect(try rowFoldCost(server) == Int64(11 * id))
    }
    #expect(foldsByRows == 9)
    #expect(try rowFoldCost(server) == nil)
    try expectAWholeFoldAgreesAndConverges(server, with: away)
  }

  /// Folds the rest of `server`'s history: the state one pass gives; then
  /// `server` and `peer` converge.
  func expectAWholeFoldAgreesAndConverges(_ server: ChronicleDatabase, with peer: ChronicleDatabase) throws {
    try server.prepareMergeState()
    try expectMergeStateIsTheOnePassState(server, "server")
    try push(server, to: peer)
    #expect(try server.digests() == peer.digests())
  }

  func rowFoldCost(_ database: ChronicleDatabase) throws -> Int64? {
    try database.read { db in try ChronicleMeta(db: db).value(.rowFoldCost) }
  }

  func incomingEvents(of source: ChronicleDatabase, for target: ChronicleDatabase) throws -> [IncomingEvent] {
    let bundle = EventBundle.encode(writer: source.peerID, events: try source.serializedEvents(beyond: target.versionVector()))
    guard case .complete(_, let events, _) = try EventBundle.decode(bundle, source: "test") else { return [] }
    return events
  }

  /// A row parked here for its parent, then inserted here again (parent
  /// and all) and not folded yet, is no longer parked when a newer write
  /// merges ahead: bringing it back would insert it twice.
  @Test func aParkedRowInsertedHereAgainIsNotBroughtBackTwice() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let alice = try openSyncPeer(directory, name: "alice.sqlite", clock: clock)
    let bob = try openSyncPeer(directory, name: "bob.sqlite", clock: clock)
    let carol = try openSyncPeer(directory, name: "carol.sqlite", clock: clock)
    // Carol's list reaches Alice, whose item in it reaches Bob alone: parked.
    try carol.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (7, 'Work')") }
    try push(carol, to: alice)
    clock.advance(by: 10)
    try alice.write { db in try db.execute(sql: "INSERT INTO items (id, listID, title) VALUES (3, 7, 'Report')") }
    let alicesOwn = try alice.serializedEvents(beyond: bob.versionVector(), origin: alice.peerID)
    #expect(try bob.applyRemote(bundle: EventBundle.encode(writer: alice.peerID, events: alicesOwn), source: "test").parkedRows == 1)
    clock.advance(by: 10)
    try bob.write { db in
      try db.execute(sql: "INSERT INTO lists (id, name) VALUES (7, 'Mine')")
      try db.execute(sql: "INSERT INTO items (id, listID, title) VALUES (3, 7, 'Mine too')")
    }
    clock.advance(by: 10)
    // A newer item in the same list, not the parked row, merges ahead.
    try alice.write { db in try db.execute(sql: "INSERT INTO items (id, listID, title) VALUES (4, 7, 'Later')") }
    let later = try alice.serializedEvents(beyond: bob.versionVector(), origin: alice.peerID)
    #expect(try bob.applyRemote(bundle: EventBundle.encode(writer: alice.peerID, events: later), source: "test").rowChanges == 1)
    #expect(try isMergedAhead(bob))
    #expect(try bob.parkedRows().isEmpty)
    let titles = try bob.read { db in try String.fetchAll(db, sql: "SELECT title FROM items ORDER BY id") }
    #expect(titles == ["Mine too", "Later"])

    try bob.prepareMergeState()
    try expectMergeStateIsTheOnePassState(bob, "bob")
    for _ in 0..<2 {
      for source in [alice, bob, carol] { for target in [alice, bob, carol] where target !== source { try push(source, to: target) } }
    }
    #expect(try bob.digests() == alice.digests() && bob.digests() == carol.digests())
  }
  /// Received events past the fold mark and none of this peer's own (a
  /// schema-only batch arrived after a fold): a later batch of row changes
  /// merges ahead with nothing local to read back. (A review commit once
  /// crashed here, unwrapping the unread list of local events.)
  @Test func mergingAheadWithNoLocalEventsPastTheFoldMark() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let server = try openSyncPeer(directory, name: "server.sqlite", clock: clock)
    try server.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'one'), (2, 'two')") }
    try server.prepareMergeState()
    clock.advance(by: 1)
    let client = try openSyncPeer(directory, name: "client.sqlite", clock: clock)
    #expect(try push(client, to: server).rowChanges == 0)  // its schema event, past the fold mark
    #expect(try server.hasUnfoldedEvents())
    clock.advance(by: 1)
    try client.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (3, 'three')") }
    #expect(try push(client, to: server).rowChanges == 1)
    #expect(try isMergedAhead(server))
    try server.prepareMergeState()
    try expectMergeStateIsTheOnePassState(server, "server")
    try push(server, to: client)
    #expect(try server.digests() == client.digests())
  }
}
