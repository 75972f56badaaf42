import Chronicle
import ChronicleQueryTestSupport
import Foundation
import InlineSnapshotTesting
import Testing

/// `assertQuery` from ChronicleQueryTestSupport, as SQLiteData's test
/// support spells it: the rows as a table, the SQL with `includeSQL`, the
/// default database when none is given, SQLite's message for a statement
/// it refuses, and a failed expectation when a snapshot does not match.
@Suite("Test support: assertQuery")
struct AssertQueryTests {
  let fixture = BuilderClosureAndCombinatorTests()

  @Test func rowsAsATable() throws {
    let database = try fixture.seeded().database
    assertQuery(Reminder.select(\.title).order(by: \.title), database: database) {
      """
      ┌─────────────────┐
      │ "Bread"         │
      │ "Eggs"          │
      │ "Jam (50% off)" │
      │ "Milk"          │
      └─────────────────┘
      """
    }
    assertQuery(Reminder.where { $0.score > 2 }.order(by: \.title).select { ($0.title, $0.priority, $0.notes) }, database: database) {
      """
      ┌─────────────────┬───────┬─────┐
      │ "Jam (50% off)" │ nil   │ nil │
      │ "Milk"          │ .high │ nil │
      └─────────────────┴───────┴─────┘
      """
    }
    assertQuery(Reminder.where { $0.title.eq("Eggs") }.select { ReminderRow.Columns(title: $0.title, isUrgent: false, notes: $0.notes, priority: $0.priority) }, database: database) {
      """
      ┌─────────────────────┐
      │ ReminderRow(        │
      │   title: "Eggs",    │
      │   isUrgent: false,  │
      │   notes: "a dozen", │
      │   priority: nil     │
      │ )                   │
      └─────────────────────┘
      """
    }
    assertQuery(Reminder.where { $0.score > 100 }.select(\.title), database: database) {
      """
      (No results)
      """
    }
  }

  @Test func theSQLToo() throws {
    let database = try fixture.seeded().database
    assertQuery(includeSQL: true, Reminder.where(\.isCompleted).order(by: \.title).select { ($0.title, $0.score) }, database: database) {
      """
      SELECT "reminders"."title", "reminders"."score"
      FROM "reminders"
      WHERE "reminders"."isCompleted"
      ORDER BY "reminders"."title"
      """
    } results: {
      """
      ┌─────────────────┬─────┐
      │ "Jam (50% off)" │ 5.0 │
      │ "Milk"          │ 3.0 │
      └─────────────────┴─────┘
      """
    }
    assertQuery(includeSQL: true, Tag.insert { Tag(title: "car", useCount: 1) }.returning(\.title), database: database) {
      """
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('car', 1)
      RETURNING "title"
      """
    } results: {
      """
      ┌───────┐
      │ "car" │
      └───────┘
      """
    }
    assertQuery(includeSQL: true, Reminder.where { $0.title.eq("Bread") }.update { $0.title = nil }, database: database) {
      """
      UPDATE "reminders"
      SET "title" = NULL
      WHERE ("reminders"."title" = 'Bread')
      """
    } results: {
      """
      NOT NULL constraint failed: reminders.title
      """
    }
  }

  @Test func theDefaultDatabase() throws {
    let seeded = try fixture.seeded()
    withDependencies {
      $0.defaultDatabase = seeded.database
    } operation: {
      assertQuery(RemindersList.select(\.title)) {
        """
        ┌────────┐
        │ "Home" │
        └────────┘
        """
      }
    }
  }

  /// Recording is off here, so that a test run that records snapshots
  /// leaves the wrong one in place.
  @Test func aSnapshotThatDoesNotMatchFails() throws {
    let database = try fixture.seeded().database
    withSnapshotTesting(record: .never) {
      withKnownIssue {
        assertQuery(RemindersList.select(\.title), database: database) {
          """
          ┌────────┐
          │ "Work" │
          └────────┘
          """
        }
      }
    }
  }
}
