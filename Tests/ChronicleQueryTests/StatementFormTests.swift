import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// Statement forms as upstream spells them: a row value updated or deleted
/// by its key, `delete().find`, `update { }.where { }`, counts written in a
/// select, and limits given by expressions. Each with its SQL and the rows
/// SQLite returned after it.
@Suite("Query builder: statement forms")
struct StatementFormTests {
  let fixture = BuilderClosureAndCombinatorTests()

  @Test func rowValuesUpdatedAndDeletedByTheirKey() throws {
    let seeded = try fixture.seeded()
    let database = seeded.database
    var eggs = try #require(try database.read { db in try Reminder.where { $0.title == "Eggs" }.fetchOne(db) })
    let bread = try #require(try database.read { db in try Reminder.where { $0.title == "Bread" }.fetchOne(db) })
    let jam = try #require(try database.read { db in try Reminder.where { $0.title.hasPrefix("Jam") }.fetchOne(db) })
    eggs.title = "Duck eggs"
    eggs.notes = nil
    eggs.priority = .medium
    let update = Reminder.update(eggs), delete = Reminder.delete(bread)
    let milkDone = Reminder.update { $0.isCompleted = false }.where { $0.title == "Milk" }
    let jamGone = Reminder.delete().find(jam.id)
    try database.write { db in
      try update.execute(db)
      try delete.execute(db)
      try milkDone.execute(db)
      try jamGone.execute(db)
    }
    let rows = try database.read { db in
      try Reminder.order(by: \.title).fetchAll(db).map { "\($0.title) | \($0.notes ?? "-") | \($0.priority.map { "\($0)" } ?? "-") | \($0.isCompleted)" }
    }
    let sql = [update, milkDone].map(\.query.description) + [delete, jamGone].map(\.query.description)
    // Random ids, named for the snapshot.
    let names = [eggs.id: "<eggs>", bread.id: "<bread>", jam.id: "<jam>", eggs.remindersListID: "<list>"]
    let output = sql.map { text in
      names.reduce(text) { $0.replacingOccurrences(of: $1.key.uuidString.lowercased(), with: $1.value) }
    } + rows
    assertInlineSnapshot(of: output.joined(separator: "\n"), as: .lines) {
      """
      UPDATE "reminders"
      SET "remindersListID" = '<list>', "title" = 'Duck eggs', "notes" = NULL, "isCompleted" = 0, "priority" = 2, "dueDate" = NULL, "score" = 1.0
      WHERE ("reminders"."id" = '<eggs>')
      UPDATE "reminders"
      SET "isCompleted" = 0
      WHERE ("reminders"."title" = 'Milk')
      DELETE FROM "reminders"
      WHERE ("reminders"."id" = '<bread>')
      DELETE FROM "reminders"
      WHERE ("reminders"."id" IN ('<jam>'))
      Duck eggs | - | medium | false
      Milk | - | high | false
      """
    }
  }

  @Test func countsAndLimitsWrittenAsExpressions() throws {
    let seeded = try fixture.seeded()
    let database = seeded.database
    let counted = Reminder.select { _ in .count() }
    let open = Reminder.count { !$0.isCompleted }
    let page = Reminder.order(by: \.title).limit { _ in RemindersList.count() }.select(\.title)
    let paged = Reminder.order(by: \.title).limit({ _ in 2 }, offset: { _ in 1 }).select(\.title)
    let plain = Reminder.order(by: \.title).limit(2, offset: 2).select(\.title)
    let output = try database.read { db in
      [
        counted.query.description, "  -> \(try counted.fetchOne(db) ?? -1)",
        open.query.description, "  -> \(try open.fetchOne(db) ?? -1)",
      ] + (try [page, paged, plain].flatMap { [$0.query.description, "  -> " + (try $0.fetchAll(db)).joined(separator: ", ")] })
    }
    assertInlineSnapshot(of: output.joined(separator: "\n"), as: .lines) {
      """
      SELECT count(*)
      FROM "reminders"
        -> 4
      SELECT count(*) FILTER (WHERE NOT ("reminders"."isCompleted"))
      FROM "reminders"
        -> 2
      SELECT "reminders"."title"
      FROM "reminders"
      ORDER BY "reminders"."title"
      LIMIT (
        SELECT count(*)
        FROM "remindersLists"
      )
        -> Bread
      SELECT "reminders"."title"
      FROM "reminders"
      ORDER BY "reminders"."title"
      LIMIT 2 OFFSET 1
        -> Eggs, Jam (50% off)
      SELECT "reminders"."title"
      FROM "reminders"
      ORDER BY "reminders"."title"
      LIMIT 2 OFFSET 2
        -> Jam (50% off), Milk
      """
    }
  }

  /// `some Statement<Row>`, as SQLiteData apps declare a query they build
  /// step by step (GRDB's prepared statement class is `GRDB.Statement`).
  static func search(_ text: String, includeCompleted: Bool, limit: Int) -> some Statement<Reminder> {
    var base = Reminder.where { $0.title.contains(text) }
    if !includeCompleted {
      base = base.where { !$0.isCompleted }
    }
    return base.order(by: \.title).limit(limit)
  }

  @Test func statementsTypedAsUpstreamTypesThem() throws {
    let seeded = try fixture.seeded()
    let open = Self.search("e", includeCompleted: false, limit: 10)
    let all = Self.search("e", includeCompleted: true, limit: 2)
    let output = try seeded.database.read { db in
      try [open, all].flatMap { [$0.query.description, "  -> " + (try $0.fetchAll(db)).map(\.title).joined(separator: ", ")] }
    }
    assertInlineSnapshot(of: output.joined(separator: "\n"), as: .lines) {
      #"""
      SELECT "reminders"."id", "reminders"."remindersListID", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."dueDate", "reminders"."score"
      FROM "reminders"
      WHERE ("reminders"."title" LIKE '%e%' ESCAPE '\') AND (NOT ("reminders"."isCompleted"))
      ORDER BY "reminders"."title"
      LIMIT 10
        -> Bread, Eggs
      SELECT "reminders"."id", "reminders"."remindersListID", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."dueDate", "reminders"."score"
      FROM "reminders"
      WHERE ("reminders"."title" LIKE '%e%' ESCAPE '\')
      ORDER BY "reminders"."title"
      LIMIT 2
        -> Bread, Eggs
      """#
    }
  }

  @Test func chainedSelectsAddColumns() throws {
    let seeded = try fixture.seeded()
    let database = seeded.database
    let two = Reminder.order(by: \.title).select(\.title).select(\.score)
    let four = Reminder.order(by: \.title).select { ($0.title, $0.isCompleted) }.select { ($0.score, $0.notes) }
    let five = two.select { ($0.priority, $0.title.length(), $0.notes ?? "-") }
    let output = try database.read { db in
      [
        two.query.description, try two.fetchAll(db).map { "\($0)" }.joined(separator: ", "),
        four.query.description, try four.fetchAll(db).map { "\($0)" }.joined(separator: ", "),
        five.query.description, try five.fetchAll(db).map { "\($0)" }.joined(separator: ", "),
      ]
    }
    assertInlineSnapshot(of: output.joined(separator: "\n"), as: .lines) {
      """
      SELECT "reminders"."title", "reminders"."score"
      FROM "reminders"
      ORDER BY "reminders"."title"
      ("Bread", 2.0), ("Eggs", 1.0), ("Jam (50% off)", 5.0), ("Milk", 3.0)
      SELECT "reminders"."title", "reminders"."isCompleted", "reminders"."score", "reminders"."notes"
      FROM "reminders"
      ORDER BY "reminders"."title"
      ("Bread", false, 2.0, nil), ("Eggs", false, 1.0, Optional("a dozen")), ("Jam (50% off)", true, 5.0, nil), ("Milk", true, 3.0, nil)
      SELECT "reminders"."title", "reminders"."score", "reminders"."priority", length("reminders"."title"), coalesce("reminders"."notes", '-')
      FROM "reminders"
      ORDER BY "reminders"."title"
      ("Bread", 2.0, Optional(ChronicleQueryTests.Reminder.Priority.low), 5, "-"), ("Eggs", 1.0, nil, 4, "a dozen"), ("Jam (50% off)", 5.0, nil, 13, "-"), ("Milk", 3.0, Optional(ChronicleQueryTests.Reminder.Priority.high), 4, "-")
      """
    }
  }

  /// `db.seed { … }`: rows and drafts of several tables in order, one
  /// insert per run of one table's rows (drafts with and without their key
  /// in separate ones, as one statement cannot mix them).
  @Test func seeds() throws {
    let fixture = try RemindersDatabase()
    let home = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
    let milk = UUID(uuidString: "00000000-0000-0000-0000-0000000000a1")!
    let includeTags = true
    let seeds = Seeds {
      RemindersList(id: home, title: "Home", position: 1)
      Reminder.Draft(id: milk, remindersListID: home, title: "Milk")
      for title in ["Eggs", "Bread"] {
        Reminder.Draft(remindersListID: home, title: title)
      }
      if includeTags {
        Tag(title: "food", useCount: 2)
      }
    }
    let statements = seeds.map { $0.query.description.replacingOccurrences(of: #"'[0-9a-f-]{36}'"#, with: "<uuid>", options: .regularExpression) }
    try fixture.database.write { db in
      try db.seed {
        RemindersList(id: home, title: "Home", position: 1)
        Reminder.Draft(id: milk, remindersListID: home, title: "Milk")
        for title in ["Eggs", "Bread"] {
          Reminder.Draft(remindersListID: home, title: title)
        }
        if includeTags {
          Tag(title: "food", useCount: 2)
        }
      }
    }
    let rows = try fixture.database.read { db in
      [try Reminder.order(by: \.title).select(\.title).fetchAll(db).joined(separator: ", "), "\(try Tag.fetchCount(db)) tag"]
    }
    assertInlineSnapshot(of: (statements + rows).joined(separator: "\n"), as: .lines) {
      """
      INSERT INTO "remindersLists"
      ("id", "title", "position")
      VALUES
      (<uuid>, 'Home', 1)
      INSERT INTO "reminders"
      ("id", "remindersListID", "title", "notes", "isCompleted", "priority", "dueDate", "score")
      VALUES
      (<uuid>, <uuid>, 'Milk', NULL, 0, NULL, NULL, 0.0)
      INSERT INTO "reminders"
      ("remindersListID", "title", "notes", "isCompleted", "priority", "dueDate", "score")
      VALUES
      (<uuid>, 'Eggs', NULL, 0, NULL, NULL, 0.0), (<uuid>, 'Bread', NULL, 0, NULL, NULL, 0.0)
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('food', 2)
      Bread, Eggs, Milk
      1 tag
      """
    }
  }

  /// A `@Table` with no key in Swift (a join table whose SQL key is both
  /// columns): selected, joined, inserted, updated and deleted by condition.
  @Test func aTableWithoutAKeyInSwift() throws {
    let fixture = try RemindersDatabase()
    let home = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
    let milk = UUID(uuidString: "00000000-0000-0000-0000-0000000000a1")!
    let eggs = UUID(uuidString: "00000000-0000-0000-0000-0000000000a2")!
    try fixture.database.write { db in
      try db.execute(sql: """
        CREATE TABLE "taggings" (
          "reminderID" TEXT NOT NULL REFERENCES "reminders"("id") ON DELETE CASCADE,
          "tagTitle" TEXT NOT NULL REFERENCES "tags"("title") ON DELETE CASCADE,
          PRIMARY KEY ("reminderID", "tagTitle")
        ) STRICT
        """)
      try db.seed {
        RemindersList(id: home, title: "Home", position: 1)
        Reminder(id: milk, remindersListID: home, title: "Milk")
        Reminder(id: eggs, remindersListID: home, title: "Eggs")
        Tag(title: "dairy")
        Tag(title: "food")
        Tagging(reminderID: milk, tagTitle: "dairy")
        Tagging(reminderID: milk, tagTitle: "food")
        Tagging(reminderID: eggs, tagTitle: "food")
      }
      try Tagging.delete().where { $0.tagTitle == "dairy" }.execute(db)
      try Tagging.update { $0.tagTitle = "dairy" }.where { $0.reminderID.eq(eggs) }.execute(db)
    }
    let tagged = Reminder
      .join(Tagging.all) { $0.id.eq($1.reminderID) }
      .order { reminder, tagging in (reminder.title, tagging.tagTitle) }
      .select { reminder, tagging in (reminder.title, tagging.tagTitle) }
    let rows = try fixture.database.read { db in try tagged.fetchAll(db) }
    assertInlineSnapshot(of: ([tagged.query.description] + rows.map { "\($0.0) \($0.1)" }).joined(separator: "\n"), as: .lines) {
      """
      SELECT "reminders"."title", "taggings"."tagTitle"
      FROM "reminders"
      JOIN "taggings" ON ("reminders"."id" = "taggings"."reminderID")
      ORDER BY "reminders"."title", "taggings"."tagTitle"
      Eggs dairy
      Milk food
      """
    }
  }
}

/// A join table whose key, both columns, is SQL's alone.
@Table
struct Tagging {
  var reminderID: UUID
  var tagTitle: String
}
