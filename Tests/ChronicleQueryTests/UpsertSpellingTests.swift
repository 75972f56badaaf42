import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// Upserts and insert values in the spellings upstream has: `onConflictDoUpdate:`,
/// `doUpdate:` taking the row alone, a `where:` on the update, conflict
/// clauses on column-list and select inserts, and rows of expressions.
@Suite("Query builder: upsert spellings, rows of expressions")
struct UpsertSpellingTests {
  /// Runs each statement in turn and shows its SQL, then the tags left.
  func run(_ statements: [Insert<Tag, Void>], in fixture: RemindersDatabase) throws -> String {
    var lines: [String] = []
    for statement in statements {
      lines.append(statement.query.description)
      try fixture.database.write { db in try statement.execute(db) }
    }
    let tags = try fixture.database.read { db in try Tag.order(by: \.title).fetchAll(db) }
    lines.append(tags.map { "\($0.title): \($0.useCount)" }.joined(separator: ", "))
    return lines.joined(separator: "\n")
  }

  @Test func rowsWithEveryUpdateSpelling() throws {
    let fixture = try RemindersDatabase()
    let output = try run([
      Tag.insert { Tag(title: "home", useCount: 1); Tag(title: "work", useCount: 5) },
      Tag.insert { Tag(title: "home", useCount: 10) } onConflictDoUpdate: { $0.useCount += 1 },
      Tag.insert { Tag(title: "work", useCount: 7) } onConflictDoUpdate: { row, excluded in
        row.useCount = excluded.useCount
      } where: { row, excluded in
        excluded.useCount > row.useCount
      },
      // Not applied: 3 is not above 7.
      Tag.insert { Tag(title: "work", useCount: 3) } onConflictDoUpdate: { row, excluded in
        row.useCount = excluded.useCount
      } where: { row, excluded in
        excluded.useCount > row.useCount
      },
      // A `where:` after `doUpdate:`, alone (on the update) or with one before it (on the conflict target).
      Tag.insert { Tag(title: "home", useCount: 0) } onConflict: { $0.title } doUpdate: { $0.useCount += 4 } where: { $0.useCount < 10 },
      // Not applied: 6 is not below 5.
      Tag.insert { Tag(title: "home", useCount: 0) } onConflict: { $0.title } doUpdate: { row, excluded in
        row.useCount = excluded.useCount
      } where: {
        $0.useCount < 5
      },
      Tag.insert { Tag(title: "home", useCount: 0) } onConflict: { $0.title } where: { $0.useCount > 0 } doUpdate: { $0.useCount *= 3 } where: {
        $0.useCount < 100
      },
      Tag.insert { Tag(title: "home", useCount: 0) } onConflict: { $0.title } where: { $0.useCount > 0 } doUpdate: { row, _ in
        row.useCount -= 1
      },
    ], in: fixture)
    assertInlineSnapshot(of: output, as: .lines) {
      """
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('home', 1), ('work', 5)
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('home', 10)
      ON CONFLICT DO UPDATE SET "uses" = ("tags"."uses" + 1)
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('work', 7)
      ON CONFLICT DO UPDATE SET "uses" = "excluded"."uses"
      WHERE ("excluded"."uses" > "tags"."uses")
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('work', 3)
      ON CONFLICT DO UPDATE SET "uses" = "excluded"."uses"
      WHERE ("excluded"."uses" > "tags"."uses")
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('home', 0)
      ON CONFLICT ("title")
      DO UPDATE SET "uses" = ("tags"."uses" + 4)
      WHERE ("tags"."uses" < 10)
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('home', 0)
      ON CONFLICT ("title")
      DO UPDATE SET "uses" = "excluded"."uses"
      WHERE ("tags"."uses" < 5)
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('home', 0)
      ON CONFLICT ("title")
      WHERE ("tags"."uses" > 0)
      DO UPDATE SET "uses" = ("tags"."uses" * 3)
      WHERE ("tags"."uses" < 100)
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('home', 0)
      ON CONFLICT ("title")
      WHERE ("tags"."uses" > 0)
      DO UPDATE SET "uses" = ("tags"."uses" - 1)
      home: 17, work: 7
      """
    }
  }

  @Test func columnListsAndSelectsTakeConflictClauses() throws {
    let fixture = try RemindersDatabase()
    let list = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
    try fixture.database.write { db in
      try RemindersList.insert { RemindersList.Draft(id: list, title: "Home") }.execute(db)
      try Reminder.insert {
        Reminder.Draft(remindersListID: list, title: "milk")
        Reminder.Draft(remindersListID: list, title: "bread")
      }.execute(db)
    }
    let output = try run([
      Tag.insert { ($0.title, $0.useCount) } values: { ("milk", 1) },
      Tag.insert { ($0.title, $0.useCount) } values: {
        ("milk", 1)
        ("eggs", 2)
      } onConflictDoUpdate: { $0.useCount += 10 },
      Tag.insert { ($0.title, $0.useCount) } values: {
        (#sql("upper('tea')"), #sql("length('four')"))
        ("jam".upper(), 2 + 3)
      },
      Tag.insert { $0.title } select: {
        Reminder.select { $0.title }
      } onConflict: { $0.title } doUpdate: { row, excluded in
        row.title = excluded.title + "-again"
      },
      Tag.insert { $0.title } select: {
        Reminder.where { _ in true }.select { $0.title }
      } onConflict: { $0.title },
    ], in: fixture)
    assertInlineSnapshot(of: output, as: .lines) {
      """
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('milk', 1)
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('milk', 1), ('eggs', 2)
      ON CONFLICT DO UPDATE SET "uses" = ("tags"."uses" + 10)
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      (upper('tea'), length('four')), (upper('jam'), 5)
      INSERT INTO "tags"
      ("title")
      SELECT *
      FROM (
        SELECT "reminders"."title"
        FROM "reminders"
      )
      WHERE 1
      ON CONFLICT ("title")
      DO UPDATE SET "title" = ("excluded"."title" || '-again')
      INSERT INTO "tags"
      ("title")
      SELECT *
      FROM (
        SELECT "reminders"."title"
        FROM "reminders"
        WHERE 1
      )
      WHERE 1
      ON CONFLICT ("title")
      DO NOTHING
      JAM: 5, TEA: 4, bread: 0, eggs: 2, milk: 0, milk-again: 11
      """
    }
  }

  @Test func tableColumnsWriteAndReadWholeRowsAsExpressions() throws {
    let fixture = try RemindersDatabase()
    let insert = Tag.insert {
      Tag.Columns(title: #sql("'Foo'"), useCount: #sql("40 + 2"))
      Tag.Columns(title: "bar".upper(), useCount: 7)
    }
    let select = Tag.order(by: \.title).select { Tag.Columns(title: $0.title.lower(), useCount: $0.useCount + 1) }
    try fixture.database.write { db in try insert.execute(db) }
    let rows = try fixture.database.read { db in try select.fetchAll(db) }
    assertInlineSnapshot(of: [insert.query.description, select.query.description, "\(rows)"].joined(separator: "\n"), as: .lines) {
      """
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('Foo', 40 + 2), (upper('bar'), 7)
      SELECT lower("tags"."title") AS "title", ("tags"."uses" + 1) AS "uses"
      FROM "tags"
      ORDER BY "tags"."title"
      [ChronicleQueryTests.Tag(title: "bar", useCount: 8), ChronicleQueryTests.Tag(title: "foo", useCount: 43)]
      """
    }
  }

  @Test func expressionRowsSplitIntoStatementsThatFitSQLitesLimit() throws {
    let fixture = try RemindersDatabase()
    let insert = Tag.insert { ($0.title, $0.useCount) } values: {
      for number in 0..<7 { ("tag \(number)", #sql("\(bind: number) * 2")) }
    }
    let parts = insert.parts(maxBindings: 5)
    #expect(parts.map(\.bindings.count) == [4, 4, 4, 2])
    try fixture.database.write { db in try insert.execute(db) }
    let total = try fixture.database.read { db in try Tag.select { $0.useCount.sum() }.fetchOne(db) }
    #expect(total == 42)
  }

  @Test func anUpdateConditionWithoutUpdatesIsRefusedWithTheFix() throws {
    let fixture = try RemindersDatabase()
    let insert = Tag.insert { Tag(title: "home", useCount: 1) } onConflict: { $0.title } where: { $0.useCount > 0 } doUpdate: { _, _ in } where: { $0.useCount > 1 }
    let error = #expect(throws: InsertError.self) { try fixture.database.write { db in try insert.execute(db) } }
    #expect(error?.description == "cannot insert into tags: an update condition (`where:` after `doUpdate:`) was given without updates. Fix: assign at least one column in `doUpdate:`, or drop the condition.")
    #expect(try fixture.database.read { db in try Tag.fetchCount(db) } == 0)
  }
}
