import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// A statement's `description`: its SQL a clause to a line, subqueries and
/// a trigger's statements indented, as upstream's snapshots show it. Only
/// keywords of the statement or of a subquery start a line: not those
/// inside a function's parentheses, a string literal or a quoted name.
@Suite("Query builder: SQL laid out a clause to a line")
struct SQLLayoutTests {
  @Test func selectsJoinsAndSubqueries() {
    let tagged = Reminder.where { $0.title.in(Tag.where { $0.useCount > 1 }.select(\.title)) }
      .join(RemindersList.all) { $0.remindersListID.eq($1.id) }
      .where { reminder, _ in reminder.notes.eq("FROM x WHERE (SELECT 'y')") }
      .order { reminder, list in (list.title, reminder.title) }
      .limit(5, offset: 10)
      .select { reminder, list in (reminder.title, list.title) }
    let counted = Reminder.group(by: \.isCompleted)
      .having { $0.count() > 1 }
      .select { ($0.isCompleted, $0.count(filter: $0.score > 1), $0.title.groupConcat(", ")) }
    assertInlineSnapshot(of: [tagged.query.description, counted.query.description].joined(separator: "\n\n"), as: .lines) {
      """
      SELECT "reminders"."title", "remindersLists"."title"
      FROM "reminders"
      JOIN "remindersLists" ON ("reminders"."remindersListID" = "remindersLists"."id")
      WHERE ("reminders"."title" IN (
        SELECT "tags"."title"
        FROM "tags"
        WHERE ("tags"."uses" > 1)
      )) AND ("reminders"."notes" = 'FROM x WHERE (SELECT ''y'')')
      ORDER BY "remindersLists"."title", "reminders"."title"
      LIMIT 5 OFFSET 10

      SELECT "reminders"."isCompleted", count("reminders"."id") FILTER (WHERE ("reminders"."score" > 1.0)), group_concat("reminders"."title", ', ')
      FROM "reminders"
      GROUP BY "reminders"."isCompleted"
      HAVING (count("reminders"."id") > 1)
      """
    }
  }

  @Test func writes() {
    let upsert = Tag.insert { Tag(title: "home", useCount: 1) } onConflict: { $0.title } doUpdate: {
      $0.useCount += 1
    }.returning(\.useCount)
    let update = Reminder.where { $0.isCompleted }.update { $0.title += " (done)" }.returning(\.title)
    let delete = Reminder.where { $0.score < 1 }.delete()
    let copy = Tag.insert { $0.title } select: { RemindersList.select(\.title) }
    let statements = [upsert.query.description, update.query.description, delete.query.description, copy.query.description]
    assertInlineSnapshot(of: statements.joined(separator: "\n\n"), as: .lines) {
      """
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('home', 1)
      ON CONFLICT ("title")
      DO UPDATE SET "uses" = ("tags"."uses" + 1)
      RETURNING "uses"

      UPDATE "reminders"
      SET "title" = ("reminders"."title" || ' (done)')
      WHERE "reminders"."isCompleted"
      RETURNING "title"

      DELETE FROM "reminders"
      WHERE ("reminders"."score" < 1.0)

      INSERT INTO "tags"
      ("title")
      SELECT "remindersLists"."title"
      FROM "remindersLists"
      """
    }
  }

  @Test func unionsAndTriggers() {
    let titles = Reminder.where { $0.score > 2 }.select(\.title).union(all: true, RemindersList.select(\.title))
    let trigger = RemindersList.createTemporaryTrigger(
      "tag_new_list",
      after: .insert { new in
        Tag.insert { ($0.title, $0.useCount) } values: { (new.title, 1) }
        Reminder.where { $0.remindersListID.eq(new.id) && $0.title.in(Tag.select(\.title)) }.delete()
      })
    assertInlineSnapshot(of: [titles.query.description, trigger.query.description].joined(separator: "\n\n"), as: .lines) {
      """
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."score" > 2.0)
      UNION ALL
      SELECT "remindersLists"."title"
      FROM "remindersLists"

      CREATE TEMPORARY TRIGGER "tag_new_list"
      AFTER INSERT ON "remindersLists"
      FOR EACH ROW BEGIN
        INSERT INTO "tags"
        ("title", "uses")
        VALUES
        ("new"."title", 1);
        DELETE FROM "reminders"
        WHERE (("reminders"."remindersListID" = "new"."id") AND ("reminders"."title" IN (
          SELECT "tags"."title"
          FROM "tags"
        )));
      END
      """
    }
  }
}
