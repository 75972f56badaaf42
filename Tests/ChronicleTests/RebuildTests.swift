import Foundation
import Synchronization
import ChronicleTestSupport
import Testing

@testable import Chronicle

@Suite("Rebuild: the whole history through the upcasters, into shadow tables, swapped in")
struct RebuildTests {
  /// One logical write, in either schema version.
  enum Write {
    case upsertList(id: Int, name: String, weight: Double)
    case renameList(id: Int, name: String)
    case deleteList(id: Int)
    case addItem(id: Int, list: Int, title: String)
    case setCount(id: Int, count: Int)
    case deleteItem(id: Int)
    case setPriority(id: Int, priority: Int)

    static func random(_ random: inout SeededGenerator, withPriority: Bool) -> Write {
      let list = Int.random(in: 1...5, using: &random), item = Int.random(in: 1...12, using: &random)
      switch Int.random(in: 0..<(withPriority ? 7 : 6), using: &random) {
      case 0: return .upsertList(id: list, name: "list \(Int.random(in: 0...9, using: &random))", weight: Double(list) / 4)
      case 1: return .renameList(id: list, name: "renamed \(Int.random(in: 0...9, using: &random))")
      case 2: return .deleteList(id: list)
      case 3: return .addItem(id: item, list: list, title: "item \(item)")
      case 4: return .setCount(id: item, count: Int.random(in: 0...50, using: &random))
      case 5: return .deleteItem(id: item)
      default: return .setPriority(id: list, priority: Int.random(in: 1...3, using: &random))
      }
    }

    /// Runs the write; `nameColumn` is the list name column of the schema version.
    func run(_ db: Database, nameColumn: String) throws {
      switch self {
      case .upsertList(let id, let name, let weight):
        try db.execute(sql: "INSERT INTO lists (id, \(nameColumn), weight) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET \(nameColumn) = excluded.\(nameColumn)",
                       arguments: [id, name, weight])
      case .renameList(let id, let name): try db.execute(sql: "UPDATE lists SET \(nameColumn) = ? WHERE id = ?", arguments: [name, id])
      case .deleteList(let id): try db.execute(sql: "DELETE FROM lists WHERE id = ?", arguments: [id])
      case .addItem(let id, let list, let title):
        try db.execute(sql: "INSERT OR IGNORE INTO items (id, listID, title) SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM lists WHERE id = ?)",
                       arguments: [id, list, title, list])
      case .setCount(let id, let count): try db.execute(sql: "UPDATE items SET count = ? WHERE id = ?", arguments: [count, id])
      case .deleteItem(let id): try db.execute(sql: "DELETE FROM items WHERE id = ?", arguments: [id])
      case .setPriority(let id, let priority): try db.execute(sql: "UPDATE lists SET priority = ? WHERE id = ?", arguments: [priority, id])
      }
    }
  }

  static let itemsTable = """
    CREATE TABLE items (
      id INTEGER PRIMARY KEY,
      listID INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
      title TEXT NOT NULL,
      count INTEGER
    ) STRICT
    """

  @Test func aRebuildAfterAColumnRenamedWithPlainSQLReplaysTheRowsWrittenBeforeIt() throws {
    // The rename is a schema change in the log (the table's rows travel whole
    // with it); rows written before it have no value for the new NOT NULL
    // name, and used to stop the rebuild ("NOT NULL constraint failed").
    let directory = try TemporaryDirectory()
    let database = try Chronicle.open(path: directory.path("app.sqlite"))
    try database.write { db in try db.execute(sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, title TEXT NOT NULL) STRICT") }
    try database.write { db in try db.execute(sql: "INSERT INTO items VALUES (1, 'one'), (2, 'two')") }
    try database.write { db in try db.execute(sql: "ALTER TABLE items RENAME COLUMN title TO name") }
    try database.write { db in try db.execute(sql: "INSERT INTO items VALUES (3, 'three'); UPDATE items SET name = 'ONE' WHERE id = 1") }
    let dryRun = try database.rebuild(options: RebuildOptions(isDryRun: true))
    #expect(dryRun.tables.allSatisfy { $0.matches })
    let report = try database.rebuild()
    #expect(report.swapped && report.tables.allSatisfy { $0.matches })
    #expect(try database.read { db in try String.fetchAll(db, sql: "SELECT name FROM items ORDER BY id") } == ["ONE", "two", "three"])
  }

  @Test(arguments: [1, 2, 3] as [UInt64])
  func aRebuildAfterRenamePlusAddColumnEqualsAFreshDatabase(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let directory = try TemporaryDirectory()
    let migrated = try Chronicle.open(path: directory.path("migrated.sqlite"))
    let fresh = try Chronicle.open(path: directory.path("fresh.sqlite"))
    try migrated.write { db in
      try db.execute(sql: "CREATE TABLE lists (id INTEGER PRIMARY KEY, name TEXT NOT NULL, weight REAL) STRICT")
      try db.execute(sql: Self.itemsTable)
    }
    try fresh.write { db in
      try db.execute(sql: "CREATE TABLE lists (id INTEGER PRIMARY KEY, title TEXT NOT NULL, weight REAL, priority INTEGER NOT NULL DEFAULT 0) STRICT")
      try db.execute(sql: Self.itemsTable)
    }
    for _ in 0..<150 {
      let write = Write.random(&random, withPriority: false)
      try migrated.write { db in try write.run(db, nameColumn: "name") }
      try fresh.write { db in try write.run(db, nameColumn: "title") }
    }
    try migrated.migrate("titles and priorities") { migration in
      try migration.renameColumn("name", to: "title", in: "lists")
      try migration.addColumn("priority", to: "lists", type: "INTEGER", default: .integer(0))
    }
    for _ in 0..<150 {
      let write = Write.random(&random, withPriority: true)
      try migrated.write { db in try write.run(db, nameColumn: "title") }
      try fresh.write { db in try write.run(db, nameColumn: "title") }
    }
    #expect(try migrated.digests() == fresh.digests(), "seed \(seed): the migration itself went wrong")

    // Damage the live tables behind the log; the rebuild makes them the log's projection again.
    try plainConnection(directory.path("migrated.sqlite")).write { db in
      try db.execute(sql: "UPDATE lists SET title = 'damaged' WHERE id = (SELECT min(id) FROM lists)")
    }
    let report = try migrated.rebuild()
    #expect(report.swapped)
    #expect(report.differences?.hasDifferences == true, "seed \(seed): the damage was not seen")
    // Only the damaged table differed, so only it was rewritten.
    #expect(report.tables.filter { !$0.matches }.map(\.table) == ["lists"], "seed \(seed): \(report.tables)")
    #expect(try migrated.digests() == fresh.digests(), "seed \(seed): the rebuilt tables differ from a fresh database")
    #expect(try migrated.verify().isValid)
    #expect(!FileManager.default.fileExists(atPath: migrated.path + ".rebuild"))
  }

  func makeHistory(_ directory: TemporaryDirectory, events: Int) throws -> ChronicleDatabase {
    let database = try Chronicle.open(path: directory.path("app.sqlite"))
    try database.write { db in
      try db.execute(sql: "CREATE TABLE lists (id INTEGER PRIMARY KEY, name TEXT NOT NULL, weight REAL) STRICT")
      try db.execute(sql: Self.itemsTable)
    }
    var random = SeededGenerator(seed: 99)
    for _ in 0..<events {
      let write = Write.random(&random, withPriority: false)
      try database.write { db in try write.run(db, nameColumn: "name") }
    }
    return database
  }

  @Test func anInterruptedRebuildResumesFromItsCheckpoint() throws {
    let directory = try TemporaryDirectory()
    let database = try makeHistory(directory, events: 80)
    let total = try database.log.count()
    let before = try database.digests()
    var options = RebuildOptions(eventsPerCheckpoint: 10)
    options.stopsAfterEvents = 25
    #expect(throws: RebuildInterrupted.self) { try database.rebuild(options: options) }
    #expect(FileManager.default.fileExists(atPath: database.path + ".rebuild"))
    #expect(try database.digests() == before, "an interrupted rebuild changes nothing")

    let resumed = try database.rebuild(options: RebuildOptions(eventsPerCheckpoint: 10))
    #expect(resumed.resumedAfter == 20)
    #expect(resumed.eventCount == total - 20)
    #expect(try database.digests() == before)
  }

  @Test func readersAndWritersKeepWorkingDuringARebuild() throws {
    let directory = try TemporaryDirectory()
    let database = try makeHistory(directory, events: 60)
    let during = Mutex(0)
    let report = try database.rebuild(options: RebuildOptions(eventsPerCheckpoint: 10, progress: { _ in
      // Called between checkpoints: the live database reads and writes as usual.
      let count = (try? database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM lists") }) ?? nil
      #expect(count != nil)
      // A few writes (each is a new event to catch up with, so not at every checkpoint).
      guard let id = during.withLock({ value -> Int? in
        guard value < 3 else { return nil }
        value += 1
        return 1000 + value
      }) else { return }
      #expect(throws: Never.self) {
        try database.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (?, 'written during the rebuild')", arguments: [id]) }
      }
    }))
    #expect(report.swapped)
    let written = during.withLock { $0 }
    #expect(written > 0)
    let kept = try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM lists WHERE id > 1000") }
    #expect(kept == written, "writes made during the rebuild are in the rebuilt tables")
    #expect(try database.verify().isValid)
  }

  @Test func aRebuildOfASyncedPeerKeepsItConverging() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let a = try openSyncPeer(directory, name: "a.sqlite", clock: clock)
    let b = try openSyncPeer(directory, name: "b.sqlite", clock: clock, skew: 1)
    var random = SeededGenerator(seed: 5)
    for step in 0..<80 {
      clock.advance(by: 1)
      try ConvergenceTests().randomWrite(step % 3 == 0 ? b : a, &random)
      if step % 10 == 9 { try push(b, to: a); try push(a, to: b) }
    }
    try push(b, to: a)
    let before = try a.digests()
    let report = try a.rebuild()
    #expect(report.differences == nil, "a rebuild of a healthy synced peer changes nothing")
    #expect(try a.digests() == before)
    for _ in 0..<20 {
      clock.advance(by: 1)
      try ConvergenceTests().randomWrite(b, &random)
      try ConvergenceTests().randomWrite(a, &random)
    }
    try push(b, to: a)
    try push(a, to: b)
    #expect(try a.digests() == b.digests(), "the peers still converge after the rebuild")
  }

  /// Issue 59, item 8: a received `DROP TABLE` is not executed by merge
  /// (each peer runs its own migrations), and a rebuild does as merge does:
  /// before, it emptied the table a peer dropped, rows of this peer's own
  /// included.
  @Test func aRebuildKeepsATableAnotherPeerDropped() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let a = try openSyncPeer(directory, name: "a.sqlite", clock: clock)
    let b = try openSyncPeer(directory, name: "b.sqlite", clock: clock, skew: 1)
    try a.write { db in
      try db.execute(sql: "INSERT INTO lists (id, name, weight) VALUES (1, 'Home', 1.0)")
      try db.execute(sql: "INSERT INTO items (id, listID, title) VALUES (1, 1, 'Milk'), (2, 1, 'Eggs')")
    }
    try push(a, to: b)
    clock.advance(by: 1)
    // Each at schema epoch 2, by migrations of their own.
    try a.write { db in try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT) STRICT") }
    try b.write { db in try db.execute(sql: "DROP TABLE items") }
    try push(b, to: a)
    let before = try a.digests()
    #expect(try a.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items") } == 2)
    let report = try a.rebuild()
    #expect(report.differences == nil, "\(String(describing: report.differences))")
    #expect(try a.digests() == before)
    #expect(try a.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items") } == 2)
  }

  /// A peer that prepared to merge (a server does before every push, even
  /// one that brings nothing) has merge state, and a fold mark, with no
  /// received event in its log. A rebuild must rebuild that state with its
  /// versions: it kept only what deleted rows retain, so the next merge found
  /// rows it had no versions for and stopped on "UNIQUE constraint failed".
  @Test func aRebuildOfAPeerThatPreparedToMergeButReceivedNothingKeepsItConverging() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let a = try openSyncPeer(directory, name: "a.sqlite", clock: clock)
    let b = try openSyncPeer(directory, name: "b.sqlite", clock: clock, skew: 1)
    try a.write { db in
      try db.execute(sql: "INSERT INTO lists (id, name, weight) VALUES (1, 'Home', 1.0), (2, 'Work', 2.0), (3, 'Trips', 3.0)")
      try db.execute(sql: "INSERT INTO items (id, listID, title) VALUES (10, 1, 'Milk'), (11, 3, 'Tent')")
    }
    clock.advance(by: 5)
    try a.write { db in
      try db.execute(sql: "UPDATE lists SET name = 'House' WHERE id = 1")
      try db.execute(sql: "DELETE FROM lists WHERE id = 2")
    }
    try a.prepareMergeState()
    let before = try a.digests()
    let report = try a.rebuild()
    #expect(report.differences == nil)
    #expect(try a.digests() == before)
    let states = try a.read { db in try MergeStore(db: db).allStates() }
    #expect(states.count == 5, "every row written here has merge state: \(states.map(\.table))")
    #expect(states.allSatisfy { $0.state.isComplete }, "each with the versions of its columns: \(states.map(\.state))")
    // The other peer edits the same rows later, and writes its own.
    clock.advance(by: 5)
    try b.write { db in
      try db.execute(sql: "INSERT INTO lists (id, name, weight) VALUES (1, 'Cottage', 9.0), (4, 'Books', 4.0)")
    }
    try push(b, to: a)
    try push(a, to: b)
    #expect(try a.digests() == b.digests(), "the peers converge after the rebuild")
    let lists = try a.read { db in try Row.fetchAll(db, sql: "SELECT id, name, weight FROM lists ORDER BY id").map(\.description) }
    #expect(lists == [#"[id:1 name:"Cottage" weight:9.0]"#, #"[id:3 name:"Trips" weight:3.0]"#, #"[id:4 name:"Books" weight:4.0]"#])
  }

  /// A row deleted here and brought back by another peer's later update
  /// keeps the columns that update did not write: capture kept them at the
  /// delete, and so must the rebuild (it kept only the key, so the rebuilt
  /// row lost its other columns).
  @Test func aRowDeletedHereAndBroughtBackByAnotherPeerKeepsItsColumnsThroughARebuild() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let a = try openSyncPeer(directory, name: "a.sqlite", clock: clock)
    let b = try openSyncPeer(directory, name: "b.sqlite", clock: clock)
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name, weight) VALUES (2, 'Home', 1.5)") }
    try push(a, to: b)
    try push(b, to: a)  // b's schema: the rebuild merges it, and folds the insert, before it deletes
    clock.advance(by: 10)
    try a.write { db in try db.execute(sql: "DELETE FROM lists WHERE id = 2") }
    clock.advance(by: 10)
    try b.write { db in try db.execute(sql: "UPDATE lists SET name = 'Garden' WHERE id = 2") }
    try push(b, to: a)
    let row = "SELECT id, name, weight FROM lists"
    #expect(try a.read { db in try Row.fetchAll(db, sql: row).map(\.description) } == [#"[id:2 name:"Garden" weight:1.5]"#])
    let report = try a.rebuild()
    #expect(report.differences == nil)
    #expect(try a.read { db in try Row.fetchAll(db, sql: row).map(\.description) } == [#"[id:2 name:"Garden" weight:1.5]"#])
  }

  @Test func anotherPeersEventsArrivingDuringARebuildStartItOver() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let a = try openSyncPeer(directory, name: "a.sqlite", clock: clock)
    let b = try openSyncPeer(directory, name: "b.sqlite", clock: clock)
    var random = SeededGenerator(seed: 12)
    for _ in 0..<40 {
      clock.advance(by: 1)
      try ConvergenceTests().randomWrite(a, &random)
    }
    try b.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (900, 'from b, during the rebuild')") }
    #expect(try a.log.events().allSatisfy { $0.event.origin == a.peerID }, "a begins with its own events only")
    let pushed = Mutex(false)
    let report = try a.rebuild(options: RebuildOptions(eventsPerCheckpoint: 10, progress: { _ in
      guard pushed.withLock({ done in defer { done = true }; return !done }) else { return }
      #expect(throws: Never.self) { try push(b, to: a) }
    }))
    #expect(report.swapped && report.differences == nil)
    #expect(try a.read { db in try String.fetchOne(db, sql: "SELECT name FROM lists WHERE id = 900") } == "from b, during the rebuild")
    #expect(try a.verify().isValid)
    #expect(try a.replayMatchesLive(directory))
  }

  @Test func aRebuildNeedsTheAppsConversions() throws {
    let directory = try TemporaryDirectory()
    let database = try makeHistory(directory, events: 30)
    var upcasters = Upcasters()
    upcasters.registerConversion("weight in grams") { value in
      if case .real(let kilograms) = value { return .integer(Int64(kilograms * 1000)) }
      return value
    }
    try database.migrate("grams", upcasters: upcasters) { migration in
      try migration.convertColumn("weight", in: "lists", to: "INTEGER", using: "weight in grams")
    }
    try database.write { db in try db.execute(sql: "INSERT INTO lists (id, name, weight) VALUES (77, 'after', 1500)") }
    let before = try database.digests()
    #expect(throws: ChronicleError.missingUpcaster("weight in grams")) { try database.rebuild() }
    let report = try database.rebuild(options: RebuildOptions(upcasters: upcasters, isDryRun: true))
    #expect(!report.swapped && report.differences == nil, "\(String(describing: report.differences))")
    try database.rebuild(options: RebuildOptions(upcasters: upcasters))
    #expect(try database.digests() == before)
  }
}
