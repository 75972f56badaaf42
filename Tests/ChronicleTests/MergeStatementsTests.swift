import ChronicleTestSupport
import Foundation
import InlineSnapshotTesting
import Synchronization
import Testing

@testable import Chronicle

/// The statements a merge runs on the application's tables: each row a
/// batch touches is written once, with the values that won (per column,
/// last writer wins), and a row whose parent is absent is parked.
@Suite("Merge: the SQL a batch writes")
struct MergeStatementsTests {
  func rows(_ database: ChronicleDatabase, _ sql: String) throws -> String {
    try database.read { db in
      try Row.fetchAll(db, sql: sql).map { row in row.databaseValues.map(\.description).joined(separator: " | ") }
    }.joined(separator: "\n")
  }

  @Test func aBatchWritesEachRowOnceWithTheValuesThatWon() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let alice = try openSyncPeer(directory, name: "alice.sqlite", clock: clock)
    let bob = try openSyncPeer(directory, name: "bob.sqlite", clock: clock)
    let log = StatementLog(bob)

    // Three events of Alice's, one batch for Bob: the item is inserted once, with its last title.
    try alice.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')") }
    clock.advance(by: 10)
    try alice.write { db in try db.execute(sql: "INSERT INTO items (id, listID, title, count) VALUES (1, 1, 'Milk', 1)") }
    clock.advance(by: 10)
    try alice.write { db in try db.execute(sql: "UPDATE items SET title = 'Oat milk' WHERE id = 1") }
    try push(alice, to: bob)
    assertInlineSnapshot(of: log.take(), as: .lines) {
      """
      INSERT INTO main."lists" ("id", "name", "weight") VALUES (?,?,?)
      INSERT INTO main."items" ("id", "listID", "title", "count") VALUES (?,?,?,?)
      SELECT c."id" FROM main."items" AS c
      WHERE (c."id") IN (VALUES (?))
      AND ((c."listID" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main."lists" AS p WHERE p."id" = c."listID")))
      """
    }

    // Both edit the item; Alice's title is newer than Bob's, Bob's count newer than Alice's.
    clock.advance(by: 10)
    try alice.write { db in try db.execute(sql: "UPDATE items SET count = 2 WHERE id = 1") }
    clock.advance(by: 10)
    try bob.write { db in try db.execute(sql: "UPDATE items SET title = 'Soy milk', count = 3 WHERE id = 1") }
    _ = log.take()
    clock.advance(by: 10)
    try alice.write { db in try db.execute(sql: "UPDATE items SET title = 'Rice milk' WHERE id = 1") }
    try push(alice, to: bob)
    assertInlineSnapshot(of: log.take(), as: .lines) {
      """
      UPDATE main."items" SET "title" = ? WHERE "id" = ?
      SELECT c."id" FROM main."items" AS c
      WHERE (c."id") IN (VALUES (?))
      AND ((c."listID" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main."lists" AS p WHERE p."id" = c."listID")))
      """
    }
    assertInlineSnapshot(of: try rows(bob, "SELECT id, listID, title, count FROM items"), as: .lines) {
      """
      1 | 1 | "Rice milk" | 3
      """
    }
  }

  @Test func rowsEnteringATableGoSixtyFourToAStatement() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let alice = try openSyncPeer(directory, name: "alice.sqlite", clock: clock)
    let bob = try openSyncPeer(directory, name: "bob.sqlite", clock: clock)
    let log = StatementLog(bob)
    try alice.write { db in
      try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')")
      for id in 1...70 { try db.execute(sql: "INSERT INTO items (id, listID, title) VALUES (?, 1, ?)", arguments: [id, "Item \(id)"]) }
    }
    try push(alice, to: bob)
    // A statement's rows of placeholders, counted.
    let statements = log.take().split(separator: "\n").map { line in
      let rows = line.components(separatedBy: "(?,").count - 1
      return rows > 1 ? line.components(separatedBy: " VALUES ")[0] + " VALUES (?,?,?,?) × \(rows)" : String(line)
    }
    assertInlineSnapshot(of: statements.joined(separator: "\n"), as: .lines) {
      """
      INSERT INTO main."lists" ("id", "name", "weight") VALUES (?,?,?)
      INSERT INTO main."items" ("id", "listID", "title", "count") VALUES (?,?,?,?) × 64
      INSERT INTO main."items" ("id", "listID", "title", "count") VALUES (?,?,?,?)
      INSERT INTO main."items" ("id", "listID", "title", "count") VALUES (?,?,?,?)
      INSERT INTO main."items" ("id", "listID", "title", "count") VALUES (?,?,?,?)
      INSERT INTO main."items" ("id", "listID", "title", "count") VALUES (?,?,?,?)
      INSERT INTO main."items" ("id", "listID", "title", "count") VALUES (?,?,?,?)
      INSERT INTO main."items" ("id", "listID", "title", "count") VALUES (?,?,?,?)
      SELECT c."id" FROM main."items" AS c
      WHERE (c."id") IN (VALUES (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?), (?))
      AND ((c."listID" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main."lists" AS p WHERE p."id" = c."listID")))
      """
    }
    assertInlineSnapshot(of: try rows(bob, "SELECT id, title FROM items WHERE id IN (1, 64, 65, 70)"), as: .lines) {
      """
      1 | "Item 1"
      64 | "Item 64"
      65 | "Item 65"
      70 | "Item 70"
      """
    }
    #expect(try bob.digests() == alice.digests())
    #expect(try bob.read { db in try mergeStateCount(db) } == 71)
  }

  @Test func aRowWhoseParentIsAbsentIsParkedUntilItArrives() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let alice = try openSyncPeer(directory, name: "alice.sqlite", clock: clock)
    let bob = try openSyncPeer(directory, name: "bob.sqlite", clock: clock)
    let carol = try openSyncPeer(directory, name: "carol.sqlite", clock: clock)
    let log = StatementLog(bob)

    // Carol's list reaches Alice, whose item in it reaches Bob alone.
    try carol.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (7, 'Work')") }
    try push(carol, to: alice)
    clock.advance(by: 10)
    try alice.write { db in try db.execute(sql: "INSERT INTO items (id, listID, title) VALUES (3, 7, 'Report')") }
    let alicesOwn = try alice.serializedEvents(beyond: bob.versionVector(), origin: alice.peerID)
    let report = try bob.applyRemote(bundle: EventBundle.encode(writer: alice.peerID, events: alicesOwn), source: "test")
    #expect(report.parkedRows == 1)
    assertInlineSnapshot(of: log.take(), as: .lines) {
      """
      INSERT INTO main."items" ("id", "listID", "title", "count") VALUES (?,?,?,?)
      SELECT c."id" FROM main."items" AS c
      WHERE (c."id") IN (VALUES (?))
      AND ((c."listID" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main."lists" AS p WHERE p."id" = c."listID")))
      SELECT "id", "listID", "title", "count" FROM main."items" WHERE "id" = ?
      DELETE FROM main."items" WHERE "id" = ?
      SELECT EXISTS (SELECT 1 FROM (SELECT ? AS "id", ? AS "listID", ? AS "title", ? AS "count") AS c WHERE c."listID" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main."lists" AS p WHERE p."id" = c."listID"))
      SELECT EXISTS (SELECT 1 FROM (SELECT ? AS "id", ? AS "listID", ? AS "title", ? AS "count") AS c WHERE c."listID" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main."lists" AS p WHERE p."id" = c."listID"))
      """
    }
    assertInlineSnapshot(of: try rows(bob, "SELECT count(*) FROM items"), as: .lines) {
      """
      0
      """
    }

    // The list arrives: the parked item comes back.
    try push(carol, to: bob)
    assertInlineSnapshot(of: log.take(), as: .lines) {
      """
      INSERT INTO main."lists" ("id", "name", "weight") VALUES (?,?,?)
      SELECT EXISTS (SELECT 1 FROM (SELECT ? AS "id", ? AS "listID", ? AS "title", ? AS "count") AS c WHERE c."listID" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main."lists" AS p WHERE p."id" = c."listID"))
      INSERT INTO main."items" ("id", "listID", "title", "count") VALUES (?,?,?,?)
      """
    }
    assertInlineSnapshot(of: try rows(bob, "SELECT id, listID, title FROM items"), as: .lines) {
      """
      3 | 7 | "Report"
      """
    }
  }
}
