import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

@Suite("Sync: merge rules, bad input, transports")
struct SyncTests {
  let directory: TemporaryDirectory
  let clock = ManualWallClock()
  let a: ChronicleDatabase
  let b: ChronicleDatabase

  init() throws {
    directory = try TemporaryDirectory()
    a = try openSyncPeer(directory, name: "a.sqlite", clock: clock)
    b = try openSyncPeer(directory, name: "b.sqlite", clock: clock)
  }

  func list(_ database: ChronicleDatabase, _ id: Int) throws -> Row? {
    try database.read { db in try Row.fetchOne(db, sql: "SELECT name, weight FROM lists WHERE id = ?", arguments: [id]) }
  }

  @Test func concurrentEditsOfDifferentColumnsAreBothKept() throws {
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name, weight) VALUES (1, 'Home', 1.0)") }
    try push(a, to: b)
    clock.advance(by: 5)
    try a.write { db in try db.execute(sql: "UPDATE lists SET name = 'House' WHERE id = 1") }
    try b.write { db in try db.execute(sql: "UPDATE lists SET weight = 2.5 WHERE id = 1") }
    try push(a, to: b)
    try push(b, to: a)
    for peer in [a, b] {
      let row = try #require(try list(peer, 1))
      #expect(row["name"] as String == "House")
      #expect(row["weight"] as Double == 2.5)
    }
  }

  @Test func theLaterWriteOfAColumnWinsAndEqualClocksAreDecidedByPeerID() throws {
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')") }
    try push(a, to: b)
    clock.advance(by: 5)
    // Same wall clock on both peers: equal HLC readings, the higher peer id wins.
    try a.write { db in try db.execute(sql: "UPDATE lists SET name = 'from a' WHERE id = 1") }
    try b.write { db in try db.execute(sql: "UPDATE lists SET name = 'from b' WHERE id = 1") }
    try push(a, to: b)
    try push(b, to: a)
    let winner = a.peerID > b.peerID ? "from a" : "from b"
    #expect(try list(a, 1)?["name"] as String? == winner)
    #expect(try list(b, 1)?["name"] as String? == winner)
    clock.advance(by: 5)
    try b.write { db in try db.execute(sql: "UPDATE lists SET name = 'latest' WHERE id = 1") }
    try push(b, to: a)
    #expect(try list(a, 1)?["name"] as String? == "latest")
  }

  @Test func aLaterWriteResurrectsADeletedRowWhole() throws {
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name, weight) VALUES (1, 'Home', 3.0)") }
    try push(a, to: b)
    clock.advance(by: 5)
    try a.write { db in try db.execute(sql: "DELETE FROM lists WHERE id = 1") }
    clock.advance(by: 5)
    try b.write { db in try db.execute(sql: "UPDATE lists SET weight = 4.0 WHERE id = 1") }
    try push(a, to: b)
    #expect(try list(b, 1)?["weight"] as Double? == 4.0, "the update is newer than the delete")
    try push(b, to: a)
    let row = try #require(try list(a, 1))
    #expect(row["name"] as String == "Home")
    #expect(row["weight"] as Double == 4.0)
    // An older write does not bring a row back.
    clock.advance(by: 5)
    try a.write { db in try db.execute(sql: "DELETE FROM lists WHERE id = 1") }
    try push(a, to: b)
    #expect(try list(b, 1) == nil)
  }

  @Test func remoteEventsJoinTheLogWithTheirOriginAndCreateNoLocalEvent() throws {
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')") }
    let before = try eventIDs(b)
    let report = try push(a, to: b)
    #expect(report.appliedEvents == 2)  // the schema event and the insert
    let added = try eventIDs(b).subtracting(before)
    #expect(added.allSatisfy { $0.origin == a.peerID })
    #expect(added.count == 2)
    // A third peer gets a's events relayed through b.
    let c = try openSyncPeer(directory, name: "c.sqlite", clock: clock)
    try push(b, to: c)
    #expect(try list(c, 1)?["name"] as String? == "Home")
    #expect(try eventIDs(c).isSuperset(of: added))
  }

  @Test func duplicateDeliveryIsANoOp() throws {
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')") }
    let bundle = EventBundle.encode(writer: a.peerID, events: try a.serializedEvents(beyond: VersionVector()))
    _ = try b.applyRemote(bundle: bundle, source: "first")
    let digests = try b.digests()
    let events = try b.log.count()
    let again = try b.applyRemote(bundle: bundle, source: "second")
    #expect(again.appliedEvents == 0)
    #expect(again.duplicateEvents == 2)
    #expect(try b.digests() == digests)
    #expect(try b.log.count() == events)
  }

  @Test func childBeforeParentIsParkedThenApplied() throws {
    try a.write { db in
      try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')")
    }
    try a.write { db in try db.execute(sql: "INSERT INTO items (id, listID, title) VALUES (10, 1, 'Milk')") }
    // Deliver only the child's event first (signed, as it would leave a).
    try a.sealOwnEvents()
    let all = try a.log.events()
    let child = try #require(all.last)
    let childBytes = try a.read { db in try Data.fetchOne(db, sql: "SELECT payload FROM chronicle_events WHERE id = ?", arguments: [child.id])! }
    _ = try b.applyRemote(bundle: EventBundle.encode(writer: a.peerID, events: [Array(childBytes)]), source: "child only")
    let parked = try b.parkedRows()
    #expect(parked.map(\.table) == ["items"])
    #expect(parked.first?.reason == "parent")
    #expect(parked.first?.values["title"] == .text("Milk"))
    #expect(try b.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM items") } == 0)
    try push(a, to: b)
    #expect(try b.parkedRows().isEmpty)
    #expect(try b.read { db in try String.fetchOne(db, sql: "SELECT title FROM items WHERE id = 10") } == "Milk")
    #expect(try b.digests() == a.digests())
  }

  @Test func corruptTruncatedAndForgedBundlesAreRejectedWholeNamingTheProblem() throws {
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')") }
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (2, 'Work')") }
    let bundle = EventBundle.encode(writer: a.peerID, events: try a.serializedEvents(beyond: VersionVector()))
    let digests = try b.digests()
    let events = try b.log.count()

    var corrupt = bundle
    corrupt[corrupt.count / 2] ^= 0xFF
    #expect { try b.applyRemote(bundle: corrupt, source: "corrupt.chrb") } throws: { error in
      guard case SyncError.badBundle(let source, let offset, let reason) = error else { return false }
      return source == "corrupt.chrb" && offset == corrupt.count - 4 && reason.contains("checksum")
    }
    #expect { try b.applyRemote(bundle: Array(bundle.dropLast(7)), source: "short.chrb") } throws: { error in
      guard case SyncError.badBundle(_, let offset, let reason) = error else { return false }
      return offset == bundle.count - 7 && reason.contains("truncated")
    }
    #expect(try b.digests() == digests)
    #expect(try b.log.count() == events)
    // Same origin and sequence as a held event, different content.
    try push(a, to: b)
    let held = try b.log.count()
    let forgedEvent = try a.log.events().last!.event
    var changed = forgedEvent
    changed.operations = [.insert(table: 0, values: [.integer(2), .text("Forged"), .null])]
    // Signed with a's own key: a device that equivocates is refused too.
    let aKey = try #require(try DeviceKey.read(from: a.identity.keyFile))
    let forged = EventBundle.encode(writer: a.peerID, events: [EventSignature.seal(try EventCodec.encode(changed).bytes, linkedTo: EventSignature.noLink, with: aKey)])
    expectRefused(a.peerID, "holds a different event with the same origin and sequence", by: b) {
      try b.applyRemote(bundle: forged, source: "forged.chrb")
    }
    #expect(try b.refusedEvents().first?.source == "forged.chrb")
    #expect(try b.log.count() == held)
    #expect(try list(b, 2)?["name"] as String? == "Work")
  }

  @Test func localOnlySchemaChangesKeepTheEpochAndTrackedShapeChangesRaiseIt() throws {
    func epoch(_ database: ChronicleDatabase) throws -> UInt64 {
      try #require(try database.log.events().last(where: { $0.event.origin == database.peerID })).event.schemaEpoch
    }
    let start = try epoch(b)
    try b.write { db in
      try db.execute(sql: "CREATE INDEX items_by_title ON items(title)")
      try db.execute(sql: "CREATE TABLE cache (key TEXT, value BLOB)")  // not STRICT: untracked
      try db.execute(sql: "CREATE VIEW named AS SELECT name FROM lists")
      try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')")
    }
    #expect(try epoch(b) == start)
    try push(b, to: a)  // same epoch on both sides: accepted
    #expect(try a.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM lists") } == 1)
    try b.write { db in try db.execute(sql: "ALTER TABLE lists ADD COLUMN color TEXT") }
    #expect(try epoch(b) == start + 1)
    // Refused alone, open: taken once a runs the same migration.
    expectRefused(b.peerID, "schema epoch \(start + 1), this database is at epoch \(start)", by: a) { try push(b, to: a) }
    #expect(try a.versionVector()[b.peerID] < b.versionVector()[b.peerID])
    try a.write { db in try db.execute(sql: "ALTER TABLE lists ADD COLUMN color TEXT") }
    let taken = try push(b, to: a)
    #expect(taken.refused.isEmpty && taken.appliedEvents == 1)
    #expect(try a.refusedEvents().isEmpty)
  }

  @Test func triggersCanTellRemoteMergesFromLocalWrites() throws {
    for peer in [a, b] {
      try peer.write { db in
        try db.execute(sql: """
          CREATE TABLE audit (id INTEGER PRIMARY KEY, listID INTEGER, syncing INTEGER);
          CREATE TRIGGER lists_audit AFTER INSERT ON lists BEGIN
            INSERT INTO audit (listID, syncing) VALUES (new.id, chronicle_is_syncing());
          END;
          CREATE TRIGGER lists_touch AFTER INSERT ON lists WHEN NOT chronicle_is_syncing() BEGIN
            UPDATE lists SET weight = 1.0 WHERE id = new.id;
          END;
          """)
      }
    }
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')") }
    try push(a, to: b)
    let audit = { (database: ChronicleDatabase) in
      try database.read { db in try Row.fetchAll(db, sql: "SELECT listID, syncing FROM audit").map { [$0[0] as Int, $0[1] as Int] } }
    }
    #expect(try audit(a) == [[1, 0]])
    #expect(try audit(b) == [[1, 1]])
    // The derived column came with the merge, not from b's trigger.
    #expect(try list(b, 1)?["weight"] as Double? == 1.0)
    #expect(try a.digests().filter { $0.table == "lists" } == b.digests().filter { $0.table == "lists" })
  }

  /// An event written at a newer schema epoch is refused alone: the good
  /// event beside it applies (before, the whole batch was rejected).
  @Test func anEventFromANewerSchemaIsRefusedAloneAndTheRestApplies() throws {
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')") }
    var events = try a.serializedEvents(beyond: VersionVector())
    // An event from a peer at a newer schema epoch, after a good one.
    let other = PeerID.generate()
    let ahead = ChangeEvent(
      origin: other, sequence: 1, timestamp: a.clock.now(), schemaEpoch: 99,
      tables: [TableDescriptor(name: "lists", columns: ["id", "name", "weight"], primaryKey: [0])],
      operations: [.insert(table: 0, values: [.integer(7), .text("x"), .null])])
    events.append(try EventCodec.encode(ahead).bytes)
    let count = try b.log.count()
    expectRefused(other, "schema epoch 99, this database is at epoch 1", by: b) {
      try b.applyRemote(bundle: EventBundle.encode(writer: other, events: events), source: "mixed")
    }
    #expect(try list(b, 1)?["name"] as String? == "Home")
    #expect(try b.log.count() == count + events.count - 1)
    #expect(try b.refusedEvents().allSatisfy { !$0.settled })
  }

  @Test func peersConvergeThroughASharedFolderDespiteHalfWrittenAndCorruptFiles() async throws {
    let folder = directory.url.appendingPathComponent("shared")
    let c = try openSyncPeer(directory, name: "c.sqlite", clock: clock)
    let engines = [a, b, c].map { SyncEngine(for: $0, tables: ["lists", "items"], transport: .directory(folder)) }
    try await a.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')") }
    try await b.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (2, 'Work')") }
    clock.advance(by: 3)
    try await c.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Maison')") }
    for engine in engines { try await engine.sendChanges() }
    // A half-copied segment and a corrupt one from unknown peers.
    let stranger = PeerID.generate(), vandal = PeerID.generate()
    for peer in [stranger, vandal] {
      try FileManager.default.createDirectory(at: folder.appendingPathComponent(peer.description), withIntermediateDirectories: true)
    }
    let full = EventBundle.encode(writer: stranger, events: [])
    try Data(full.prefix(20)).write(to: folder.appendingPathComponent("\(stranger)/00000000000000000001-00000000000000000001.chrb"))
    var broken = EventBundle.encode(writer: vandal, events: [])
    broken[broken.count - 1] ^= 1
    try Data(broken).write(to: folder.appendingPathComponent("\(vandal)/00000000000000000001-00000000000000000001.chrb"))

    for engine in engines {
      let report = try await engine.fetchChanges()
      #expect(report.incompleteSources.count == 1)
      #expect(report.rejected.count == 1)
      #expect(report.appliedSources.count == 2)
      #expect(!engine.isSynchronizing)
    }
    let (digestsA, digestsB, digestsC) = (try a.digests(), try b.digests(), try c.digests())
    #expect(digestsA == digestsB)
    #expect(digestsB == digestsC)
    let name = try list(a, 1)?["name"] as String?
    #expect(name == "Maison")
    // Nothing new: a second round sends nothing and fetches nothing new.
    for engine in engines {
      let sent = try await engine.sendChanges()
      let fetched = try await engine.fetchChanges()
      #expect(sent == 0)
      #expect(fetched.merged.appliedEvents == 0)
    }
  }
}

@Suite("Folding local history in bounded memory")
struct FoldChunkingTests {
  /// Folding a long local history in chunks (saving the merge state every N
  /// rows) leaves exactly the merge state of folding it in one pass.
  @Test(arguments: [31, 32, 33] as [UInt64])
  func foldingInChunksEqualsFoldingInOnePass(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let database = try openSyncPeer(directory, name: "peer", clock: clock)
    var random = SeededGenerator(seed: seed)
    for _ in 0..<300 {
      try ConvergenceTests().randomWrite(database, &random)
      clock.advance(by: 1)
    }
    // The merge state a fold leaves, rolled back so the next fold starts from the same place.
    func mergeState(foldingEvery rows: Int) throws -> [NamedMergeState] {
      try database.writer.writeWithoutTransaction { db in
        var state: [NamedMergeState] = []
        try db.inTransaction {
          let applier = MergeApplier(db, local: database.peerID, localEpoch: 1)
          applier.foldFlushRows = rows
          try applier.foldLocalEvents()
          state = try MergeStore(db: db).allStates().sorted { ($0.table, Array($0.key).description) < ($1.table, Array($1.key).description) }
          return .rollback
        }
        return state
      }
    }
    let onePass = try mergeState(foldingEvery: Int.max)
    #expect(!onePass.isEmpty)
    for rows in [1, 2, 7] {
      #expect(try mergeState(foldingEvery: rows) == onePass, "seed \(seed): folding every \(rows) rows differs from one pass")
    }
  }
}

@Suite("Merge state is built when a row change is first merged")
struct LazyFoldTests {
  func mergeStateRows(_ database: ChronicleDatabase) throws -> Int {
    try database.read { db in try mergeStateCount(db) }
  }

  func foldMark(_ database: ChronicleDatabase) throws -> Int64? {
    try database.read { db in try Int64.fetchOne(db, sql: "SELECT value FROM chronicle_meta WHERE key = 'merge_folded_through'") }
  }

  /// A peer with a long history that receives only schema changes, or events
  /// it holds already, pays nothing for merge state; received row changes
  /// newer than all of it merge ahead of it (merge state for the rows they
  /// touch only); an older one folds the history from its clock on, and
  /// merges as if it had been folded all along.
  @Test func batchesWithoutRowChangesFoldNothing() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let server = try openSyncPeer(directory, name: "server.sqlite", clock: clock)
    for id in 1...50 {
      try server.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (?, ?)", arguments: [id, "list \(id)"]) }
      clock.advance(by: 1)
    }
    let client = try openSyncPeer(directory, name: "client.sqlite", clock: clock)  // its schema event only

    let schemaOnly = try push(client, to: server)
    #expect(schemaOnly.appliedEvents == 1 && schemaOnly.rowChanges == 0)
    let again = try server.applyRemote(
      bundle: EventBundle.encode(writer: client.peerID, events: try client.serializedEvents(beyond: VersionVector())), source: "again")
    #expect(again.duplicateEvents == 1)
    try server.write { db in try db.execute(sql: "UPDATE lists SET name = 'renamed here' WHERE id = 2") }
    #expect(try mergeStateRows(server) == 0)
    #expect(try foldMark(server) == nil)

    // Row changes newer than everything the server wrote merge ahead of it.
    clock.advance(by: 1)
    try client.write { db in
      try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'later edit elsewhere')")
      try db.execute(sql: "INSERT INTO lists (id, name) VALUES (51, 'new')")
    }
    let merged = try push(client, to: server)
    #expect(merged.rowChanges == 2)
    #expect(try mergeStateRows(server) == 2)
    #expect(try foldMark(server) == nil)
    // Row 1: the client's insert is later than the server's, so it wins; row 2 keeps the local rename.
    let names = try server.read { db in try String.fetchAll(db, sql: "SELECT name FROM lists WHERE id IN (1, 2, 51) ORDER BY id") }
    #expect(names == ["later edit elsewhere", "renamed here", "new"])

    // A row change older than the server's latest write folds the server's
    // history first, the rename included: row 2's older edit loses to it.
    let late = try openSyncPeer(directory, name: "late.sqlite", clock: clock, skew: -10)
    try late.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (2, 'older edit elsewhere')") }
    #expect(try push(late, to: server).rowChanges == 1)
    #expect(try server.read { db in try String.fetchOne(db, sql: "SELECT name FROM lists WHERE id = 2") } == "renamed here")
    // Only the server's events as new as that write were folded (the last
    // inserts and the rename), not its whole history; the mark stays.
    let foldedAhead = try mergeStateRows(server)
    #expect(foldedAhead > 3 && foldedAhead < 20, "\(foldedAhead) rows of merge state")
    #expect(try foldMark(server) == nil)
    try server.prepareMergeState()
    #expect(try mergeStateRows(server) == 51)
    #expect(try foldMark(server) != nil)
    try push(server, to: client)
    try push(server, to: late)
    #expect(try server.digests(tables: ["lists"]) == client.digests(tables: ["lists"]))
    #expect(try server.digests(tables: ["lists"]) == late.digests(tables: ["lists"]))
  }
}
