import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// `@Column` options and spellings beside them, as upstream writes them: a
/// generated column (read, never written), a default that names a static
/// through `Self`, `#bind` and `\(bind:)`. Each with its SQL and the rows.
@Suite("Query builder: column options, #bind")
struct ColumnOptionTests {
  static let schema = """
    CREATE TABLE "chores" (
      "id" INTEGER PRIMARY KEY,
      "title" TEXT NOT NULL DEFAULT '',
      "isDone" INTEGER NOT NULL DEFAULT 0,
      "isOpen" INTEGER GENERATED ALWAYS AS (NOT "isDone") VIRTUAL,
      "color" INTEGER NOT NULL,
      "doneAt" INTEGER
    ) STRICT
    """

  @Test func generatedColumnsAreReadNeverWritten() throws {
    let fixture = try RemindersDatabase()
    let dishes = Chore(id: 1, title: "Dishes", isDone: true, isOpen: false)
    let draft = Chore.Draft(title: "Laundry")
    let insertRow = Chore.insert { dishes }
    let insertDraft = Chore.insert { draft }
    let open = Chore.where(\.isOpen).select { ($0.title, $0.color) }
    let rows = try fixture.database.write { db in
      try db.execute(sql: Self.schema)
      try insertRow.execute(db)
      try insertDraft.execute(db)
      var laundry = try Chore.find(2).fetchOne(db)!
      laundry.isDone = true
      try Chore.update(laundry).execute(db)
      try Chore.insert { Chore.Draft(title: "Windows") }.execute(db)
      return try (open.fetchAll(db), Chore.order(by: \.id).fetchAll(db))
    }
    // The log replays to the same rows: the generated column is SQLite's
    // to compute, on the replayed copy too.
    let verification = try fixture.database.verify()
    #expect(verification.isValid, "\(verification.problems)")
    #expect(verification.tables.first { $0.table == "chores" }?.matches == true)
    assertInlineSnapshot(
      of: ([insertRow.query.description, insertDraft.query.description, open.query.description, "\(rows.0)"]
        + rows.1.map { "\($0.id) \($0.title) done: \($0.isDone) open: \($0.isOpen) color: \($0.color)" }).joined(separator: "\n"),
      as: .lines) {
      """
      INSERT INTO "chores"
      ("id", "title", "isDone", "color", "doneAt")
      VALUES
      (1, 'Dishes', 1, 4886754, NULL)
      INSERT INTO "chores"
      ("title", "isDone", "color", "doneAt")
      VALUES
      ('Laundry', 0, 4886754, NULL)
      SELECT "chores"."title", "chores"."color"
      FROM "chores"
      WHERE "chores"."isOpen"
      [("Windows", 4886754)]
      1 Dishes done: true open: false color: 4886754
      2 Laundry done: true open: false color: 4886754
      3 Windows done: false open: true color: 4886754
      """
    }
  }

  @Test func statementsNamedByTheirTypes() throws {
    let fixture = try RemindersDatabase()
    let (open, all) = try fixture.database.write { db in
      try db.execute(sql: Self.schema)
      try Chore.added("Dishes").execute(db)
      try Chore.added("Bins").execute(db)
      try Chore.added("Attic").execute(db)
      try Chore.finished(1).execute(db)
      try Chore.removed(3).execute(db)
      return (try Chore.open.fetchAll(db).map(\.title), try Chore.byTitle.fetchAll(db).map(\.title))
    }
    #expect(open == ["Bins"])
    #expect(all == ["Bins", "Dishes"])
  }

  @Test func bindSpellings() throws {
    let fixture = try RemindersDatabase()
    let day = Date(timeIntervalSince1970: 1_700_000_000)
    let finish = Chore.where { $0.id.eq(1) }.update { $0.doneAt = #bind(day, as: Date?.UnixTimeRepresentation.self) }
    let doneBefore = Chore.where { $0.doneAt < #bind(day.addingTimeInterval(60), as: Date.UnixTimeRepresentation.self) }.select(\.title)
    let named = #sql("SELECT \(quote: "title") FROM \(Chore.self) WHERE \(quote: "title") = \(bind: "Dishes")", as: String.self)
    let (finished, titles) = try fixture.database.write { db in
      try db.execute(sql: Self.schema)
      try Chore.insert { Chore(id: 1, title: "Dishes", isOpen: true) }.execute(db)
      try finish.execute(db)
      return (try doneBefore.fetchAll(db), try named.fetchAll(db))
    }
    assertInlineSnapshot(
      of: [finish.query.description, doneBefore.query.description, "  -> \(finished)", named.query.description, "  -> \(titles)"].joined(separator: "\n"),
      as: .lines) {
      """
      UPDATE "chores"
      SET "doneAt" = 1700000000
      WHERE ("chores"."id" = 1)
      SELECT "chores"."title"
      FROM "chores"
      WHERE ("chores"."doneAt" < 1700000060)
        -> ["Dishes"]
      SELECT "title"
      FROM "chores"
      WHERE "title" = 'Dishes'
        -> ["Dishes"]
      """
    }
  }
}

@Table
struct Chore: Equatable {
  static let defaultColor = 0x4A90E2

  let id: Int
  var title = ""
  var isDone = false
  @Column(generated: .virtual) let isOpen: Bool
  var color = Self.defaultColor
  @Column(as: Date?.UnixTimeRepresentation.self) var doneAt: Date?
}

/// Statements named by the types upstream spells in signatures.
extension Chore {
  static var open: some SelectStatementOf<Chore> { Chore.where(\.isOpen).order(by: \.id) }
  static func finished(_ id: Int) -> UpdateOf<Chore> { Chore.find(id).update { $0.isDone = true } }
  static func removed(_ id: Int) -> DeleteOf<Chore> { Chore.find(id).delete() }
  static func added(_ title: String) -> InsertOf<Chore> { Chore.insert { Chore.Draft(title: title) } }
  static var byTitle: SelectOf<Chore> { Chore.order(by: \.title) }
}
