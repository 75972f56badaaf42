import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

import ChronicleTestSupport

@Suite("Query builder: temporary views and triggers (SQL)")
struct ViewTriggerSQLTests {
  @Test func temporaryView() {
    assertInlineSnapshot(of: reminderWithListView.query.description, as: .lines) {
      """
      CREATE TEMPORARY VIEW "reminderWithLists" ("reminderTitle", "remindersListTitle") AS
      SELECT "reminders"."title" AS "reminderTitle", "remindersLists"."title" AS "remindersListTitle"
      FROM "reminders"
      JOIN "remindersLists" ON ("reminders"."remindersListID" = "remindersLists"."id")
      WHERE ("reminders"."title" <> 'it''s hidden')
      """
    }
    assertInlineSnapshot(of: ReminderWithList.createTemporaryView(ifNotExists: true, as: ReminderWithList.all).drop(ifExists: true).query.description, as: .lines) {
      """
      DROP VIEW IF EXISTS temp."reminderWithLists"
      """
    }
  }

  /// A view whose columns repeat a name (two properties stored as `id`)
  /// numbers them, `id_1` and `id_2`, as upstream does: its rows then name
  /// each column apart.
  @Test func aViewRepeatingAColumnNameNumbersThem() throws {
    let view = ReminderAndListID.createTemporaryView(
      as: Reminder.join(RemindersList.all) { $0.remindersListID.eq($1.id) }
        .select { ReminderAndListID.Columns(reminderID: $0.id, remindersListID: $1.id) })
    assertInlineSnapshot(of: view.query.description, as: .lines) {
      """
      CREATE TEMPORARY VIEW "reminderAndListIDs" ("id_1", "id_2") AS
      SELECT "reminders"."id" AS "id_1", "remindersLists"."id" AS "id_2"
      FROM "reminders"
      JOIN "remindersLists" ON ("reminders"."remindersListID" = "remindersLists"."id")
      """
    }
    let directory = try TemporaryDirectory()
    let database = try Chronicle.open(path: directory.path("app.sqlite"))
    let rows = try database.write { db in
      try db.execute(sql: remindersSchema)
      try db.execute(sql: """
        INSERT INTO remindersLists (id, title, position) VALUES ('00000000-0000-0000-0000-000000000001', 'Home', 1);
        INSERT INTO reminders (id, remindersListID, title) VALUES ('00000000-0000-0000-0000-0000000000aa', '00000000-0000-0000-0000-000000000001', 'Milk');
        """)
      try view.execute(db)
      return try Row.fetchAll(db, sql: "SELECT * FROM temp.reminderAndListIDs").map(\.description).joined(separator: "\n")
    }
    assertInlineSnapshot(of: rows, as: .lines) {
      """
      [id_1:"00000000-0000-0000-0000-0000000000aa" id_2:"00000000-0000-0000-0000-000000000001"]
      """
    }
  }

  /// The statement's SQL with its default name (which holds the line and
  /// column of the call) written as `<default name>`.
  private func sqlWithoutName<T>(_ trigger: TemporaryTrigger<T>, prefix: String) -> String {
    #expect(trigger.name.hasPrefix(prefix + "@ChronicleQueryTests/ViewTriggerSQLTests.swift:"))
    return trigger.query.description.replacingOccurrences(of: trigger.name, with: "<default name>")
  }

  @Test func triggersAfterAndBefore() {
    let position = RemindersList.createTemporaryTrigger(
      after: .insert { new in
        RemindersList.find(new.id).update { $0.position = RemindersList.select { ($0.position.max() ?? -1) + 1 } }
      })
    assertInlineSnapshot(of: sqlWithoutName(position, prefix: "after_insert_on_remindersLists"), as: .lines) {
      """
      CREATE TEMPORARY TRIGGER "<default name>"
      AFTER INSERT ON "remindersLists"
      FOR EACH ROW BEGIN
        UPDATE "remindersLists"
        SET "position" = (
          SELECT (coalesce(max("remindersLists"."position"), -1) + 1)
          FROM "remindersLists"
        )
        WHERE ("remindersLists"."id" IN ("new"."id"));
      END
      """
    }
    assertInlineSnapshot(
      of: Reminder.createTemporaryTrigger(
        "audit_titles", ifNotExists: true,
        after: .update(of: { [$0.title] }) { old, new in
          TitleChange.insert { ($0.reminderID, $0.oldTitle, $0.newTitle) } select: {
            Reminder.find(new.id).select { _ in (new.id, old.title, new.title) }
          }
        } when: { old, new in old.title.neq(new.title) }
      ).query.description, as: .lines) {
      """
      CREATE TEMPORARY TRIGGER IF NOT EXISTS "audit_titles"
      AFTER UPDATE OF "title" ON "reminders"
      FOR EACH ROW WHEN ("old"."title" <> "new"."title") BEGIN
        INSERT INTO "titleChanges"
        ("reminderID", "oldTitle", "newTitle")
        SELECT "new"."id", "old"."title", "new"."title"
        FROM "reminders"
        WHERE ("reminders"."id" IN ("new"."id"));
      END
      """
    }
    assertInlineSnapshot(
      of: Reminder.createTemporaryTrigger(
        "forget_completed",
        before: .delete(forEachRow: { old in
          TitleChange.where { $0.reminderID.eq(old.id) }.delete()
          Tag.where { $0.title.eq("it's gone") }.delete()
        }, when: { old in old.isCompleted })
      ).query.description, as: .lines) {
      """
      CREATE TEMPORARY TRIGGER "forget_completed"
      BEFORE DELETE ON "reminders"
      FOR EACH ROW WHEN "old"."isCompleted" BEGIN
        DELETE FROM "titleChanges"
        WHERE ("titleChanges"."reminderID" = "old"."id");
        DELETE FROM "tags"
        WHERE ("tags"."title" = 'it''s gone');
      END
      """
    }
  }

  @Test func insteadOfOnAView() {
    let trigger = ReminderWithList.createTemporaryTrigger(
      insteadOf: .insert { new in
        Reminder.insert { ($0.title, $0.remindersListID) } select: {
          RemindersList.where { $0.title.eq(new.remindersListTitle) }.select { (new.reminderTitle, $0.id) }
        }
      })
    assertInlineSnapshot(of: sqlWithoutName(trigger, prefix: "instead_of_insert_on_reminderWithLists"), as: .lines) {
      """
      CREATE TEMPORARY TRIGGER "<default name>"
      INSTEAD OF INSERT ON "reminderWithLists"
      FOR EACH ROW BEGIN
        INSERT INTO "reminders"
        ("title", "remindersListID")
        SELECT "new"."reminderTitle", "remindersLists"."id"
        FROM "remindersLists"
        WHERE ("remindersLists"."title" = "new"."remindersListTitle");
      END
      """
    }
    assertInlineSnapshot(of: trigger.drop(ifExists: true).query.description.replacingOccurrences(of: trigger.name, with: "<default name>"), as: .lines) {
      """
      DROP TRIGGER IF EXISTS temp."<default name>"
      """
    }
  }

  @Test("bound values are written into the SQL, and only placeholders outside quotes and comments")
  func inlinedValues() {
    let fragment = QueryFragment(
      sql: #"SELECT ?, '?', "a?b", [c?], `d?`, ? -- ?"# + "\n" + "/* ? */ ?, ?, ?, ?, ?",
      bindings: [.text("it's"), .integer(-7), .double(.infinity), .double(-.infinity), .double(.nan), .blob([0, 255]), .double(0.1)])
    assertInlineSnapshot(of: fragment.inlinedSQL, as: .lines) {
      """
      SELECT 'it''s', '?', "a?b", [c?], `d?`, -7 -- ?
      /* ? */ 1e999, -1e999, NULL, X'00FF', 0.1
      """
    }
  }
}
