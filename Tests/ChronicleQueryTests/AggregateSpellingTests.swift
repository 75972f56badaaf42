import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// Aggregate signatures as upstream spells them: the separator of
/// `groupConcat` unlabeled and an expression, `order:` a term.
@Suite("Query builder: aggregate spellings")
struct AggregateSpellingTests {
  let fixture = BuilderClosureAndCombinatorTests()

  @Test func separatorsAsExpressions() throws {
    let seeded = try fixture.seeded()
    let dashed = Reminder.where { $0.score < 4 }.select { $0.title.groupConcat("-") }
    let byNotes = Reminder.where { $0.score < 3 }.select { $0.title.groupConcat($0.notes ?? "/") }
    let byNumber = Reminder.where { $0.score < 4 }.select { $0.title.groupConcat($0.score) }
    let output = try seeded.database.read { db in
      [
        dashed.query.description, "  -> " + (try dashed.fetchOne(db).flatMap { $0 } ?? "nil"),
        byNotes.query.description, "  -> " + (try byNotes.fetchOne(db).flatMap { $0 } ?? "nil"),
        byNumber.query.description, "  -> " + (try byNumber.fetchOne(db).flatMap { $0 } ?? "nil"),
      ]
    }
    assertInlineSnapshot(of: output.joined(separator: "\n"), as: .lines) {
      """
      SELECT group_concat("reminders"."title", '-')
      FROM "reminders"
      WHERE ("reminders"."score" < 4.0)
        -> Milk-Eggs-Bread
      SELECT group_concat("reminders"."title", coalesce("reminders"."notes", '/'))
      FROM "reminders"
      WHERE ("reminders"."score" < 3.0)
        -> Eggs/Bread
      SELECT group_concat("reminders"."title", "reminders"."score")
      FROM "reminders"
      WHERE ("reminders"."score" < 4.0)
        -> Milk1.0Eggs2.0Bread
      """
    }
  }

  /// `ORDER BY` inside an aggregate needs SQLite 3.44 (Debian 12 has
  /// 3.40.1): the SQL only.
  @Test func orderedByATerm() {
    let sql = [
      Reminder.select { $0.title.groupConcat(",", order: $0.title.desc()) }.query.description,
      Reminder.select { $0.title.groupConcat(order: $0.score.desc()) }.query.description,
      Reminder.select { $0.title.jsonGroupArray(order: $0.score) }.query.description,
    ]
    assertInlineSnapshot(of: sql.joined(separator: "\n"), as: .lines) {
      """
      SELECT group_concat("reminders"."title", ',' ORDER BY "reminders"."title" DESC)
      FROM "reminders"
      SELECT group_concat("reminders"."title" ORDER BY "reminders"."score" DESC)
      FROM "reminders"
      SELECT json_group_array("reminders"."title" ORDER BY "reminders"."score")
      FROM "reminders"
      """
    }
  }
}
