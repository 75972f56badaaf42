import ChronicleTestSupport
import Foundation
import Testing

@testable import Chronicle

/// The one reading of which tables refer to which, for merges, partial
/// replays and key migrations.
@Suite("Foreign key graph: parents, ancestors, references")
struct ForeignKeyGraphTests {
  @Test func readsParentsAncestorsAndReferencesAsTheSchemaHasThem() throws {
    let directory = try TemporaryDirectory()
    let queue = try DatabaseQueue(path: directory.path("graph.sqlite"))
    try queue.write { db in
      try db.execute(sql: """
        CREATE TABLE lists (id INTEGER PRIMARY KEY, code TEXT UNIQUE);
        CREATE TABLE items (id INTEGER PRIMARY KEY, listID INTEGER REFERENCES lists, listCode TEXT REFERENCES lists(code));
        CREATE TABLE notes (id INTEGER PRIMARY KEY, itemID INTEGER REFERENCES "Items"(id));
        CREATE TABLE pairs (a INTEGER, b TEXT, FOREIGN KEY (a, b) REFERENCES lists(id, code));
        CREATE TABLE dangling (id INTEGER PRIMARY KEY, itemID INTEGER REFERENCES items, ghostID INTEGER REFERENCES ghosts);
        """)
      let graph = ForeignKeyGraph(db: db)
      #expect(try graph.parents(of: "notes") == ["items"])
      #expect(try graph.parents(of: "items") == ["lists"])
      #expect(try !graph.hasForeignKeys("lists"))
      #expect(try graph.withAncestors(["Notes"]) == ["notes", "items", "lists"])
      #expect(try graph.withAncestors(["lists"]) == ["lists"])

      let references = try graph.foreignKeys(referringTo: "items", from: ["lists", "items", "notes", "pairs", "dangling"])
      #expect(references.map(\.child) == ["notes", "dangling"])
      #expect(references.map { $0.mapping.map(\.origin) } == [["itemID"], ["itemID"]])
      #expect(references.map { $0.mapping.map(\.destination) } == [["id"], ["id"]], "a key naming no column refers to the primary key")
      let toLists = try graph.foreignKeys(referringTo: "lists", from: ["items", "pairs"])
      // SQLite numbers a table's keys from the last declared.
      #expect(toLists.map { $0.mapping.map(\.destination) } == [["code"], ["id"], ["id", "code"]])

      let conditions = try graph.missingParentConditions(child: "notes", alias: "c")
      #expect(conditions == [#"c."itemID" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main."Items" AS p WHERE p."id" = c."itemID")"#])
    }
  }
}
