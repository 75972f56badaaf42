import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

@Suite("Query builder: generated SQL")
struct QuerySQLTests {
  let listID = UUID(uuidString: "00000000-0000-0000-0000-0000000000AA")!

  @Test func tableNamesAndColumns() {
    #expect(RemindersList.tableName == "remindersLists")
    #expect(Reminder.tableName == "reminders")
    #expect(Tag.tableName == "tags")
    #expect(Reminder.TableColumns.allColumns.map(\.name) == ["id", "remindersListID", "title", "notes", "isCompleted", "priority", "dueDate", "score"])
    #expect(Tag.TableColumns.allColumns.map(\.name) == ["title", "uses"])
  }

  @Test func selects() {
    assertInlineSnapshot(of: Reminder.all.query.description, as: .lines) {
      """
      SELECT "reminders"."id", "reminders"."remindersListID", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."dueDate", "reminders"."score"
      FROM "reminders"
      """
    }
    assertInlineSnapshot(
      of: Reminder.where { $0.isCompleted == false && $0.title.contains("50%_off") }
        .order { ($0.priority.desc(nulls: .last), $0.title) }.limit(10).offset(20).query.description,
      as: .lines) {
      #"""
      SELECT "reminders"."id", "reminders"."remindersListID", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."dueDate", "reminders"."score"
      FROM "reminders"
      WHERE (("reminders"."isCompleted" = 0) AND ("reminders"."title" LIKE '%50\%\_off%' ESCAPE '\'))
      ORDER BY "reminders"."priority" DESC NULLS LAST, "reminders"."title"
      LIMIT 10 OFFSET 20
      """#
    }
    assertInlineSnapshot(of: Reminder.where(\.isCompleted).select(\.title).distinct().query.description, as: .lines) {
      """
      SELECT DISTINCT "reminders"."title"
      FROM "reminders"
      WHERE "reminders"."isCompleted"
      """
    }
    assertInlineSnapshot(
      of: Reminder.where { $0.notes.is(nil) || $0.priority == Reminder.Priority.high || $0.score.between(1, and: 2.5) }.count().query.description,
      as: .lines) {
      """
      SELECT count(*)
      FROM "reminders"
      WHERE ((("reminders"."notes" IS NULL) OR ("reminders"."priority" IS 3)) OR ("reminders"."score" BETWEEN 1.0 AND 2.5))
      """
    }
    assertInlineSnapshot(of: Reminder.find([listID]).where { $0.title.upper().hasPrefix("A") }.query.description, as: .lines) {
      #"""
      SELECT "reminders"."id", "reminders"."remindersListID", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."dueDate", "reminders"."score"
      FROM "reminders"
      WHERE ("reminders"."id" IN ('00000000-0000-0000-0000-0000000000aa')) AND (upper("reminders"."title") LIKE 'A%' ESCAPE '\')
      """#
    }
    assertInlineSnapshot(of: Tag.where { ($0.useCount + 1) * 2 >= 10 && !($0.title.length() > 3) }.query.description, as: .lines) {
      """
      SELECT "tags"."title", "tags"."uses"
      FROM "tags"
      WHERE (((("tags"."uses" + 1) * 2) >= 10) AND NOT ((length("tags"."title") > 3)))
      """
    }
  }

  @Test func writes() {
    assertInlineSnapshot(of: RemindersList.insert { RemindersList.Draft(title: "Groceries") }.query.description, as: .lines) {
      """
      INSERT INTO "remindersLists"
      ("title", "position")
      VALUES
      ('Groceries', 0)
      """
    }
    assertInlineSnapshot(
      of: Tag.insert(or: .ignore) { Tag(title: "home", useCount: 1); Tag(title: "work") }.query.description, as: .lines) {
      """
      INSERT OR IGNORE INTO "tags"
      ("title", "uses")
      VALUES
      ('home', 1), ('work', 0)
      """
    }
    assertInlineSnapshot(
      of: Tag.insert { Tag(title: "home") } onConflict: { $0.title } doUpdate: { row, excluded in
        row.useCount += excluded.useCount
      }.query.description,
      as: .lines) {
      """
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('home', 0)
      ON CONFLICT ("title")
      DO UPDATE SET "uses" = ("tags"."uses" + "excluded"."uses")
      """
    }
    assertInlineSnapshot(
      of: Reminder.find(listID).update { $0.title = "Milk"; $0.toggle(\.isCompleted); $0.notes = nil as String? }.returning(\.title).query.description,
      as: .lines) {
      """
      UPDATE "reminders"
      SET "title" = 'Milk', "isCompleted" = NOT ("reminders"."isCompleted"), "notes" = NULL
      WHERE ("reminders"."id" IN ('00000000-0000-0000-0000-0000000000aa'))
      RETURNING "title"
      """
    }
    assertInlineSnapshot(of: Reminder.where { $0.score < 0.5 }.delete().query.description, as: .lines) {
      """
      DELETE FROM "reminders"
      WHERE ("reminders"."score" < 0.5)
      """
    }
    assertInlineSnapshot(of: RemindersList.upsert { RemindersList.Draft(id: listID, title: "Home") }.query.description, as: .lines) {
      """
      INSERT INTO "remindersLists"
      ("id", "title", "position")
      VALUES
      ('00000000-0000-0000-0000-0000000000aa', 'Home', 0)
      ON CONFLICT ("id")
      DO UPDATE SET "title" = excluded."title", "position" = excluded."position"
      """
    }
  }
}
