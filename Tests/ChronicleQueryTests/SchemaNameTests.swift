import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// Tables of a named schema, as upstream spells them: `@Table("…", schema:)`
/// names the table and qualifies its columns by the schema in every
/// statement; Chronicle records the writes to `main`'s tables and leaves
/// `temp`'s alone.
@Suite("Query builder: tables of a named schema")
struct SchemaNameTests {
  @Table("shelves", schema: "main")
  struct Shelf {
    let id: Int
    var label = ""
    var slots = 0
  }

  @Table("scratchShelves", schema: "temp")
  struct ScratchShelf {
    let id: Int
    var label = ""
  }

  func seeded() throws -> RemindersDatabase {
    let fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: #"CREATE TABLE "shelves" ("id" INTEGER PRIMARY KEY, "label" TEXT NOT NULL DEFAULT '', "slots" INTEGER NOT NULL DEFAULT 0) STRICT"#)
      try db.seed {
        Shelf(id: 1, label: "Top", slots: 4)
        Shelf(id: 2, label: "Bottom", slots: 2)
      }
    }
    return fixture
  }

  @Test func everyStatementNamesTheSchema() throws {
    let database = try seeded().database
    let statements: [any QueryStatement] = [
      Shelf.limit(1),
      Shelf.insert { Shelf.Draft(label: "Middle", slots: 3) }.returning(\.self),
      Shelf.where { $0.slots.eq(2) }.update { $0.slots = 5 }.returning { ($0.id, $0.slots) },
      Shelf.where { $0.label.eq("Top") }.delete().returning(\.label),
      Shelf.find(2).select { ($0.label, $0.rowid) },
      #sql("SELECT \(Shelf.label) FROM \(Shelf.self) ORDER BY \(Shelf.id)", as: String.self),
    ]
    assertInlineSnapshot(of: try database.sqlAndRows(of: statements), as: .lines) {
      """
      SELECT "main"."shelves"."id", "main"."shelves"."label", "main"."shelves"."slots"
      FROM "main"."shelves"
      LIMIT 1
        Shelf(id: 1, label: "Top", slots: 4)
      INSERT INTO "main"."shelves"
      ("label", "slots")
      VALUES
      ('Middle', 3)
      RETURNING "id", "label", "slots"
        Shelf(id: 3, label: "Middle", slots: 3)
      UPDATE "main"."shelves"
      SET "slots" = 5
      WHERE ("main"."shelves"."slots" = 2)
      RETURNING "id", "slots"
        (2, 5)
      DELETE FROM "main"."shelves"
      WHERE ("main"."shelves"."label" = 'Top')
      RETURNING "label"
        Top
      SELECT "main"."shelves"."label", "main"."shelves"."rowid"
      FROM "main"."shelves"
      WHERE ("main"."shelves"."id" IN (2))
        ("Bottom", 2)
      SELECT "main"."shelves"."label"
      FROM "main"."shelves"
      ORDER BY "main"."shelves"."id"
        Bottom
        Middle
      """
    }
  }

  @Test func writesToMainAreRecordedAndWritesToTempAreNot() throws {
    let database = try seeded().database
    let main = try database.writeReturningEvent { db in
      try Shelf.insert { Shelf.Draft(label: "Spare", slots: 1) }.execute(db)
    }
    #expect(main.event?.event.changedTableNames == ["shelves"])

    let temp = try database.writeReturningEvent { db in
      try db.execute(sql: #"CREATE TEMP TABLE "scratchShelves" ("id" INTEGER PRIMARY KEY, "label" TEXT NOT NULL DEFAULT '')"#)
      try ScratchShelf.insert { ScratchShelf.Draft(label: "draft") }.execute(db)
      return try ScratchShelf.select(\.label).fetchAll(db)
    }
    #expect(temp.value == ["draft"])
    #expect(temp.event == nil)
    #expect(ScratchShelf.all.query.description == #"SELECT "temp"."scratchShelves"."id", "temp"."scratchShelves"."label"\#nFROM "temp"."scratchShelves""#)
  }
}
