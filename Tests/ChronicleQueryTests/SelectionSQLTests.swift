import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

@Suite("Query builder: selections, column groups and #sql (SQL)")
struct SelectionSQLTests {
  let noon = Date(timeIntervalSince1970: 1_790_000_000)

  @Test func tuplesAndSingleExpressions() {
    assertInlineSnapshot(
      of: Reminder.where { $0.score > 1 }.select { ($0.title, $0.priority, $0.score * 2) }.query.description, as: .lines) {
      """
      SELECT "reminders"."title", "reminders"."priority", ("reminders"."score" * 2.0)
      FROM "reminders"
      WHERE ("reminders"."score" > 1.0)
      """
    }
    assertInlineSnapshot(of: Reminder.select { $0.title.upper() }.order(by: \.title).query.description, as: .lines) {
      """
      SELECT upper("reminders"."title")
      FROM "reminders"
      ORDER BY "reminders"."title"
      """
    }
    assertInlineSnapshot(of: RemindersList.select { ($0, $0.title.length()) }.query.description, as: .lines) {
      """
      SELECT "remindersLists"."id", "remindersLists"."title", "remindersLists"."position", length("remindersLists"."title")
      FROM "remindersLists"
      """
    }
  }

  @Test func selectionColumns() {
    assertInlineSnapshot(
      of: Reminder.select {
        ReminderRow.Columns(title: $0.title.upper(), isUrgent: $0.priority == Reminder.Priority.high, notes: $0.notes, priority: $0.priority)
      }.query.description,
      as: .lines) {
      """
      SELECT upper("reminders"."title") AS "title", ("reminders"."priority" IS 3) AS "isUrgent", "reminders"."notes" AS "notes", "reminders"."priority" AS "priority"
      FROM "reminders"
      """
    }
  }

  @Test func columnGroupsAreFlattened() {
    #expect(Note.TableColumns.allColumns.flatMap(\.names) == ["id", "body", "createdAt", "updatedAt"])
    assertInlineSnapshot(of: Note.where { $0.timestamps.createdAt < noon }.select { ($0.body, $0.timestamps) }.query.description, as: .lines) {
      """
      SELECT "notes"."body", "notes"."createdAt", "notes"."updatedAt"
      FROM "notes"
      WHERE ("notes"."createdAt" < '2026-09-21 14:13:20.000')
      """
    }
    assertInlineSnapshot(
      of: Note.insert { Note.Draft(body: "Hi", timestamps: Timestamps(createdAt: noon)) }.query.description, as: .lines) {
      """
      INSERT INTO "notes"
      ("body", "createdAt", "updatedAt")
      VALUES
      ('Hi', '2026-09-21 14:13:20.000', NULL)
      """
    }
    assertInlineSnapshot(
      of: Note.find(1).update { $0.timestamps = Timestamps.Columns(createdAt: Note.columns.timestamps.createdAt, updatedAt: Optional(noon)) }.query.description,
      as: .lines) {
      """
      UPDATE "notes"
      SET ("createdAt", "updatedAt") = ("notes"."createdAt", '2026-09-21 14:13:20.000')
      WHERE ("notes"."id" IN (1))
      """
    }
  }

  @Test func returningTuples() {
    assertInlineSnapshot(
      of: Tag.insert { Tag(title: "home", useCount: 1) }.returning { ($0.title, $0.useCount) }.query.description, as: .lines) {
      """
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('home', 1)
      RETURNING "title", "uses"
      """
    }
    assertInlineSnapshot(of: Tag.where { $0.useCount == 0 }.delete().returning(\.title).query.description, as: .lines) {
      """
      DELETE FROM "tags"
      WHERE ("tags"."uses" = 0)
      RETURNING "title"
      """
    }
  }

  @Test func sqlMacro() {
    let minimum = 1.5
    assertInlineSnapshot(of: Reminder.where { !$0.isCompleted && #sql("\($0.score) > \(minimum)") }.query.description, as: .lines) {
      """
      SELECT "reminders"."id", "reminders"."remindersListID", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."dueDate", "reminders"."score"
      FROM "reminders"
      WHERE (NOT ("reminders"."isCompleted") AND "reminders"."score" > 1.5)
      """
    }
    let table = "tags"
    assertInlineSnapshot(
      of: #sql("SELECT \(Tag.columns) FROM \(raw: table) WHERE \(quote: "uses") > \(3) AND title <> 'it''s'", as: Tag.self).query.description,
      as: .lines) {
      """
      SELECT "tags"."title", "tags"."uses"
      FROM tags
      WHERE "uses" > 3 AND title <> 'it''s'
      """
    }
    assertInlineSnapshot(of: #sql("DELETE FROM \(Tag.self) WHERE \(Tag.columns.title) IN (\(Tag.where { $0.useCount == 0 }.select(\.title)))").query.description, as: .lines) {
      """
      DELETE FROM "tags"
      WHERE "tags"."title" IN (
        SELECT "tags"."title"
        FROM "tags"
        WHERE ("tags"."uses" = 0)
      )
      """
    }
  }
}
