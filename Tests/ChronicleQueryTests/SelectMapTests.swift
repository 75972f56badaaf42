import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

import ChronicleTestSupport

@Table("chores") struct HouseChore {
  let id: Int
  var title: String
  var points: Int
  var doneAt: Date?
}

/// `map` on a select, as upstream spells it: the closure gets one expression
/// per selected value and returns the values to select instead; the rest of
/// the statement stays. Each with its SQL and the rows.
@Suite("Query builder: map on a select")
struct SelectMapTests {
  let directory: TemporaryDirectory
  let database: ChronicleDatabase

  init() throws {
    directory = try TemporaryDirectory()
    database = try Chronicle.open(path: directory.path("app.sqlite"))
    try database.write { db in
      try db.execute(sql: """
        CREATE TABLE "chores" ("id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL, "points" INTEGER NOT NULL, "doneAt" TEXT) STRICT
        """)
      try HouseChore.insert {
        HouseChore(id: 1, title: "Dishes", points: 2, doneAt: nil)
        HouseChore(id: 2, title: "Laundry", points: 5, doneAt: Date(timeIntervalSince1970: 1_790_000_000))
        HouseChore(id: 3, title: "Trash", points: 1, doneAt: nil)
      }.execute(db)
    }
  }

  func run(_ query: some QueryStatement) throws -> String { try database.sqlAndRows(query) }

  @Test func swapsTheSelectedColumns() throws {
    assertInlineSnapshot(of: try run(HouseChore.select { ($0.id, $0.title) }.order(by: \.id).map { ($1, $0) }), as: .lines) {
      """
      SELECT "chores"."title", "chores"."id"
      FROM "chores"
      ORDER BY "chores"."id"
      ("Dishes", 1)
      ("Laundry", 2)
      ("Trash", 3)
      """
    }
  }

  @Test func computesFromTheSelectedColumnsAndKeepsTheRestOfTheStatement() throws {
    assertInlineSnapshot(
      of: try run(
        HouseChore.where { $0.points > 1 }.select { ($0.title, $0.points) }.order(by: \.id).limit(5)
          .map { title, points in (title.upper(), points * 10, points > 3) }),
      as: .lines) {
      """
      SELECT upper("chores"."title"), ("chores"."points" * 10), ("chores"."points" > 3)
      FROM "chores"
      WHERE ("chores"."points" > 1)
      ORDER BY "chores"."id"
      LIMIT 5
      ("DISHES", 20, false)
      ("LAUNDRY", 50, true)
      """
    }
  }

  @Test func oneSelectedValueAndAnOptionalOne() throws {
    assertInlineSnapshot(of: try run(HouseChore.select(\.points).order(by: \.id).map { $0 + 1 }), as: .lines) {
      """
      SELECT ("chores"."points" + 1)
      FROM "chores"
      ORDER BY "chores"."id"
      3
      6
      2
      """
    }
    assertInlineSnapshot(
      of: try run(HouseChore.select { ($0.title, $0.doneAt) }.order(by: \.id).map { title, doneAt in (doneAt, title.length()) }),
      as: .lines) {
      """
      SELECT "chores"."doneAt", length("chores"."title")
      FROM "chores"
      ORDER BY "chores"."id"
      (nil, 6)
      (Optional(2026-09-21 14:13:20 +0000), 7)
      (nil, 5)
      """
    }
  }

  @Test func afterChainedSelectsAndOnAWholeRow() throws {
    assertInlineSnapshot(
      of: try run(HouseChore.select(\.id).select(\.title).order(by: \.id).limit(1).map { id, title in (title, id * 2) }), as: .lines) {
      """
      SELECT "chores"."title", ("chores"."id" * 2)
      FROM "chores"
      ORDER BY "chores"."id"
      LIMIT 1
      ("Dishes", 2)
      """
    }
    assertInlineSnapshot(of: try run(HouseChore.select { ($0, $0.points) }.order(by: \.id).limit(1).map { ($1, $0) }), as: .lines) {
      """
      SELECT "chores"."points", "chores"."id", "chores"."title", "chores"."points", "chores"."doneAt"
      FROM "chores"
      ORDER BY "chores"."id"
      LIMIT 1
      (2, ChronicleQueryTests.HouseChore(id: 1, title: "Dishes", points: 2, doneAt: nil))
      """
    }
  }
}
