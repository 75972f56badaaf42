import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

@Selection struct ETPhoto: Equatable {
  var url: String
}

/// A table whose rows are an enum's cases (upstream's `@CasePathable @Table enum`).
@Table("etPosts") enum ETPost: Equatable {
  case photo(ETPhoto)
  case note(String = "")
}

/// A case stored through a representation.
@Table("etNotes") enum ETNotes: Equatable {
  @Column(as: [String].JSONRepresentation.self)
  case list([String])
}

@Suite("Query builder: @Table on an enum (a row is one of its cases)")
struct EnumTableTests {
  let fixture: RemindersDatabase

  init() throws {
    fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: """
        CREATE TABLE etPosts (url TEXT, note TEXT);
        CREATE TABLE etNotes (list TEXT);
        """)
    }
  }

  @Test func casesAreRowsOfTheTable() throws {
    let output = try fixture.database.sqlAndRows(of: [
      ETPost.insert {
        ETPost.note("Hello world")
        ETPost.photo(ETPhoto(url: "file:///tmp/poster.png"))
      },
      ETNotes.insert { ETNotes.list(["Blob", "Jr"]) },
      ETPost.all,
      ETPost.where { $0.note.isNot(nil) }.select(\.note),
      ETPost.where { $0.photo.isNot(nil) },
      Values(ETPost.Columns.note("Goodnight moon")),
      ETNotes.all,
    ])
    assertInlineSnapshot(of: output, as: .lines) {
      """
      INSERT INTO "etPosts"
      ("url", "note")
      VALUES
      (NULL, 'Hello world'), ('file:///tmp/poster.png', NULL)
      INSERT INTO "etNotes"
      ("list")
      VALUES
      ('["Blob","Jr"]')
      SELECT "etPosts"."url", "etPosts"."note"
      FROM "etPosts"
        note("Hello world")
        photo(ChronicleQueryTests.ETPhoto(url: "file:///tmp/poster.png"))
      SELECT "etPosts"."note"
      FROM "etPosts"
      WHERE ("etPosts"."note" IS NOT NULL)
        Optional("Hello world")
      SELECT "etPosts"."url", "etPosts"."note"
      FROM "etPosts"
      WHERE ("etPosts"."url" IS NOT NULL)
        photo(ChronicleQueryTests.ETPhoto(url: "file:///tmp/poster.png"))
      SELECT NULL, 'Goodnight moon'
        note("Goodnight moon")
      SELECT "etNotes"."list"
      FROM "etNotes"
        list(["Blob", "Jr"])
      """
    }
  }

  @Test("Selection, upstream's newer name for Columns, spells a case and a row")
  func selectionSpelling() throws {
    let output = try fixture.database.sqlAndRows(of: [
      Values(ETPost.Selection.note("Goodnight moon")),
      Values(ETPost.Selection.photo(ETPhoto.Selection(url: "file:///tmp/moon.png"))),
      RemindersList.order(by: \.position).limit(1).select { RemindersList.Selection(id: $0.id, title: $0.title.upper(), position: $0.position) },
    ])
    assertInlineSnapshot(of: output, as: .lines) {
      """
      SELECT NULL, 'Goodnight moon'
        note("Goodnight moon")
      SELECT 'file:///tmp/moon.png', NULL
        photo(ChronicleQueryTests.ETPhoto(url: "file:///tmp/moon.png"))
      SELECT "remindersLists"."id" AS "id", upper("remindersLists"."title") AS "title", "remindersLists"."position" AS "position"
      FROM "remindersLists"
      ORDER BY "remindersLists"."position"
      LIMIT 1
      """
    }
  }
}

