import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

@Suite("Migrations: integer keys to UUIDs, and peers on older schemas")
struct KeyMigrationTests {
  @Test func integerKeysBecomeDeterministicUUIDsAndForeignKeysFollow() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let database = try openSyncPeer(directory, name: "keys.sqlite", clock: clock)
    try database.write { db in
      try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home'), (2, 'Work')")
      try db.execute(sql: "INSERT INTO items (id, listID, title) VALUES (10, 1, 'Milk'), (11, 2, 'Mail'), (12, 2, 'Call')")
    }
    try database.migrate("list keys") { migration in try migration.migrateKeysToUUID(in: "lists") }
    let home = KeyMigration.uuid(origin: database.peerID, table: "lists", key: 1)
    let work = KeyMigration.uuid(origin: database.peerID, table: "lists", key: 2)
    let lists = try database.read { db in try Row.fetchAll(db, sql: "SELECT id, typeof(id) AS type, name FROM lists ORDER BY name") }
    #expect(lists.map { $0["id"] as String } == [home, work])
    #expect(lists.allSatisfy { $0["type"] as String == "text" })
    let items = try database.read { db in try String.fetchAll(db, sql: "SELECT listID FROM items ORDER BY id") }
    #expect(items == [home, work, work])
    #expect(try database.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") }.isEmpty)
    #expect(UUID(uuidString: home) != nil && home != work)
    #expect(home == KeyMigration.uuid(origin: database.peerID, table: "LISTS", key: 1), "the table name's case does not matter")

    // The cascade still holds, and the log still replays.
    try database.write { db in try db.execute(sql: "DELETE FROM lists WHERE id = ?", arguments: [work]) }
    #expect(try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items") } == 1)
    #expect(try database.replayMatchesLive(directory))
    #expect(try database.rebuild().differences == nil)
    #expect(throws: ChronicleError.self) {
      try database.migrate("again") { migration in try migration.migrateKeysToUUID(in: "lists") }  // TEXT now
    }
  }

  @Test(arguments: [3, 8, 21] as [UInt64])
  func twoPeersThatMigrateKeysIndependentlyConverge(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let a = try openSyncPeer(directory, name: "a.sqlite", clock: clock)
    let b = try openSyncPeer(directory, name: "b.sqlite", clock: clock, skew: 1)
    for step in 0..<60 {
      clock.advance(by: 1)
      try ConvergenceTests().randomWrite(step % 2 == 0 ? a : b, &random)
      if step % 15 == 14 { try push(a, to: b); try push(b, to: a) }
    }
    // Unsynced writes on both sides, then each migrates on its own.
    for _ in 0..<10 {
      clock.advance(by: 1)
      try ConvergenceTests().randomWrite(a, &random)
      try ConvergenceTests().randomWrite(b, &random)
    }
    try a.migrate("uuid keys") { migration in try migration.migrateKeysToUUID(in: "lists") }
    clock.advance(by: 3)
    try b.migrate("uuid keys") { migration in try migration.migrateKeysToUUID(in: "lists") }
    // Writes in the new shape: a new list on A, a rename on B of a list B has.
    clock.advance(by: 1)
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (uuid(), 'made after the migration')") }
    if let some = try b.read({ db in try String.fetchOne(db, sql: "SELECT id FROM lists ORDER BY id LIMIT 1") }) {
      try b.write { db in try db.execute(sql: "UPDATE lists SET name = 'renamed after' WHERE id = ?", arguments: [some]) }
    }
    for _ in 0..<2 {
      try push(a, to: b)
      try push(b, to: a)
    }
    #expect(try a.digests() == b.digests(), "seed \(seed): the peers differ after migrating on their own")
    #expect(try eventIDs(a) == eventIDs(b))
    for peer in [a, b] {
      #expect(try peer.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") }.isEmpty, "seed \(seed)")
      let nonText = try peer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM lists WHERE typeof(id) <> 'text'") }
      #expect(nonText == 0, "seed \(seed): integer keys left")
      #expect(try peer.replayMatchesLive(directory), "seed \(seed)")
    }
  }

  @Test func writesOfAPeerThatHasNotMigratedAreUpcast() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let a = try openSyncPeer(directory, name: "a.sqlite", clock: clock)
    let b = try openSyncPeer(directory, name: "b.sqlite", clock: clock)
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name, weight) VALUES (1, 'first', 1), (2, 'second', 2)") }
    try push(a, to: b)
    clock.advance(by: 5)
    try b.write { db in try db.execute(sql: "UPDATE lists SET name = 'older, from b' WHERE id = 1") }
    clock.advance(by: 5)
    try a.write { db in try db.execute(sql: "UPDATE lists SET name = 'newer, from a' WHERE id = 1") }
    try a.migrate("titles") { migration in
      try migration.renameColumn("name", to: "title", in: "lists")
      try migration.addColumn("priority", to: "lists", type: "INTEGER", default: .integer(0))
    }
    clock.advance(by: 5)
    try b.write { db in try db.execute(sql: "UPDATE lists SET name = 'newest, from b' WHERE id = 2") }
    try push(b, to: a)  // b still writes "name"
    let titles = try a.read { db in try String.fetchAll(db, sql: "SELECT title FROM lists ORDER BY id") }
    #expect(titles == ["newer, from a", "newest, from b"], "older writes lose, newer ones win, under the new name")
    #expect(try a.replayMatchesLive(directory))
  }
}
