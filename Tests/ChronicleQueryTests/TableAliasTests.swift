import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// Tables read under an alias, as upstream spells it: `enum R: AliasName {}`
/// and `Reminder.as(R.self)` in selects, self-joins, updates, deletes,
/// inserts and `#sql`, each with its SQL and what SQLite returned.
@Suite("Query builder: tables under an alias")
struct TableAliasTests {
  let fixture = BuilderClosureAndCombinatorTests()
  enum R: AliasName {}
  enum Earlier: AliasName {}
  enum Later: AliasName {}
  enum Shop: AliasName {
    static let aliasName = "shop"
  }

  @Test func statementsThroughAnAlias() throws {
    let seeded = try fixture.seeded()
    let database = seeded.database
    let select = Reminder.as(R.self).where { $0.priority.isNot(nil) }.order(by: \.title).select { ($0.title, $0.score) }
    let pairs = Reminder.as(Earlier.self)
      .join(Reminder.as(Later.self).all) { $0.remindersListID.eq($1.remindersListID) && $0.score < $1.score }
      .where { $1.isCompleted }
      .order { ($0.score, $1.score) }
      .select { ($0.title, $1.title) }
    let update = Reminder.as(R.self).where { $0.title.eq("Milk") }.update { $0.title += " 2" }.returning(\.self)
    let delete = Reminder.as(R.self).where { $0.title.eq("Bread") }.delete().returning { ($0.title, $0.score) }
    let insert = RemindersList.as(R.self).insert { $0.title } values: { "cruise" }.returning(\.title)
    let named = Reminder.as(Shop.self).where { $0.notes.isNot(nil) }.select(\.title)
    let interpolated = #sql("SELECT \(Reminder.as(R.self)).\(quote: "title") FROM \(Reminder.self) AS \(Reminder.as(R.self)) WHERE \(Reminder.as(R.self)).\(quote: "score") > 2", as: String.self)

    let results = try database.write { db in
      [
        (select.query.description, try select.fetchAll(db).map { "\($0.0) \($0.1)" }),
        (pairs.query.description, try pairs.fetchAll(db).map { "\($0.0) < \($0.1)" }),
        (interpolated.query.description, try interpolated.fetchAll(db)),
        (named.query.description, try named.fetchAll(db)),
        (update.query.description, try update.fetchAll(db).map { "\($0.title) \($0.isCompleted) \($0.base.score)" }),
        (delete.query.description, try delete.fetchAll(db).map { "\($0.0) \($0.1)" }),
        (insert.query.description, try insert.fetchAll(db)),
      ]
    }
    let remaining = try database.read { db in
      try (Reminder.order(by: \.title).select(\.title).fetchAll(db), RemindersList.order(by: \.title).select(\.title).fetchAll(db))
    }
    assertInlineSnapshot(
      of: (results.map { "\($0.0)\n  -> \($0.1.joined(separator: ", "))" } + ["\(remaining)"]).joined(separator: "\n"),
      as: .lines
    ) {
      """
      SELECT "rs"."title", "rs"."score"
      FROM "reminders" AS "rs"
      WHERE ("rs"."priority" IS NOT NULL)
      ORDER BY "rs"."title"
        -> Bread 2.0, Milk 3.0
      SELECT "earliers"."title", "laters"."title"
      FROM "reminders" AS "earliers"
      JOIN "reminders" AS "laters" ON (("earliers"."remindersListID" = "laters"."remindersListID") AND ("earliers"."score" < "laters"."score"))
      WHERE "laters"."isCompleted"
      ORDER BY "earliers"."score", "laters"."score"
        -> Eggs < Milk, Eggs < Jam (50% off), Bread < Milk, Bread < Jam (50% off), Milk < Jam (50% off)
      SELECT "rs"."title"
      FROM "reminders" AS "rs"
      WHERE "rs"."score" > 2
        -> Milk, Jam (50% off)
      SELECT "shop"."title"
      FROM "reminders" AS "shop"
      WHERE ("shop"."notes" IS NOT NULL)
        -> Eggs
      UPDATE "reminders" AS "rs"
      SET "title" = ("rs"."title" || ' 2')
      WHERE ("rs"."title" = 'Milk')
      RETURNING "id", "remindersListID", "title", "notes", "isCompleted", "priority", "dueDate", "score"
        -> Milk 2 true 3.0
      DELETE FROM "reminders" AS "rs"
      WHERE ("rs"."title" = 'Bread')
      RETURNING "title", "score"
        -> Bread 2.0
      INSERT INTO "remindersLists" AS "rs"
      ("title")
      VALUES
      ('cruise')
      RETURNING "title"
        -> cruise
      (["Eggs", "Jam (50% off)", "Milk 2"], ["Home", "cruise"])
      """
    }
  }

  @Test func rowsFetchedThroughAnAliasReadAsTheTable() throws {
    let seeded = try fixture.seeded()
    let rows = try seeded.database.read { db in
      try Reminder.as(R.self).where { $0.isCompleted }.order(by: \.title).fetchAll(db)
    }
    #expect(rows.map(\.title) == ["Jam (50% off)", "Milk"])
    #expect(rows.map(\.base.priority) == [nil, .high])
    #expect(R.aliasName == "rs" && Later.aliasName == "laters" && Shop.aliasName == "shop")
  }
}
