import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

@Table("labels") private struct Label {
  let kind: String
  let text: String
}

@Table("steps") private struct Step {
  let n: Int
}

@Table("highScores") private struct HighScore {
  let id: UUID
  let score: Double
}

/// `With { … } query: { … }` as upstream writes it: common tables built one
/// select per line, each named after the table type of its rows, and a final
/// statement (a select, or a delete) that reads them through those types.
/// Each with its SQL and the rows.
@Suite("Query builder: With as upstream writes it")
struct WithBuilderTests {
  let fixture: RemindersDatabase

  init() throws {
    fixture = try BuilderClosureAndCombinatorTests().seeded()
  }

  func run(_ query: some QueryStatement) throws -> String { try fixture.database.sqlAndRows(query) }

  @Test func aUnionReadThroughItsType() throws {
    let query = With {
      Reminder.where { $0.score > 2 }.select { Label.Columns(kind: "reminder", text: $0.title) }
        .union(RemindersList.select { Label.Columns(kind: "list", text: $0.title) })
    } query: {
      Label.order { ($0.kind.desc(), $0.text.asc()) }
    }
    assertInlineSnapshot(of: try run(query), as: .lines) {
      """
      WITH "labels"("kind", "text") AS (
        SELECT 'reminder' AS "kind", "reminders"."title" AS "text"
        FROM "reminders"
        WHERE ("reminders"."score" > 2.0)
        UNION
        SELECT 'list' AS "kind", "remindersLists"."title" AS "text"
        FROM "remindersLists"
      )
      SELECT "labels"."kind", "labels"."text"
      FROM "labels"
      ORDER BY "labels"."kind" DESC, "labels"."text" ASC
      Label(kind: "reminder", text: "Jam (50% off)")
      Label(kind: "reminder", text: "Milk")
      Label(kind: "list", text: "Home")
      """
    }
  }

  @Test func twoCommonTablesInOneBuilder() throws {
    let query = With {
      Reminder.where { $0.score >= 2 }.select { HighScore.Columns(id: $0.id, score: $0.score) }
      Reminder.where { $0.isCompleted }.select { Label.Columns(kind: "done", text: $0.title) }
    } query: {
      Reminder.join(HighScore.all) { $0.id.eq($1.id) }
        .where { reminder, _ in reminder.title.in(Label.select(\.text)) }
        .order { reminder, _ in reminder.title }
        .select { reminder, high in (reminder.title, high.score) }
    }
    assertInlineSnapshot(of: try run(query), as: .lines) {
      """
      WITH "highScores"("id", "score") AS (
        SELECT "reminders"."id" AS "id", "reminders"."score" AS "score"
        FROM "reminders"
        WHERE ("reminders"."score" >= 2.0)
      ), "labels"("kind", "text") AS (
        SELECT 'done' AS "kind", "reminders"."title" AS "text"
        FROM "reminders"
        WHERE "reminders"."isCompleted"
      )
      SELECT "reminders"."title", "highScores"."score"
      FROM "reminders"
      JOIN "highScores" ON ("reminders"."id" = "highScores"."id")
      WHERE ("reminders"."title" IN (
        SELECT "labels"."text"
        FROM "labels"
      ))
      ORDER BY "reminders"."title"
      ("Jam (50% off)", 5.0)
      ("Milk", 3.0)
      """
    }
  }

  /// A common table that reads itself is recursive, without `RECURSIVE`.
  @Test func recursiveThroughItsOwnType() throws {
    let query = With {
      RemindersList.select { _ in Step.Columns(n: 1) }
        .union(all: true, Step.where { $0.n < 5 }.select { Step.Columns(n: $0.n * 2) })
    } query: {
      Step.select(\.n)
    }
    assertInlineSnapshot(of: try run(query), as: .lines) {
      """
      WITH "steps"("n") AS (
        SELECT 1 AS "n"
        FROM "remindersLists"
        UNION ALL
        SELECT ("steps"."n" * 2) AS "n"
        FROM "steps"
        WHERE ("steps"."n" < 5)
      )
      SELECT "steps"."n"
      FROM "steps"
      1
      2
      4
      8
      """
    }
  }

  @Test func aDeleteReadingACommonTable() throws {
    let delete = With {
      Reminder.where { $0.score > 2 }.select { HighScore.Columns(id: $0.id, score: $0.score) }
    } query: {
      Reminder.where { $0.id.in(HighScore.select(\.id)) }.delete()
    }
    try fixture.database.write { db in try delete.execute(db) }
    let left = try fixture.database.read { db in try Reminder.order(by: \.title).select(\.title).fetchAll(db) }
    assertInlineSnapshot(of: ([delete.query.description] + left).joined(separator: "\n"), as: .lines) {
      """
      WITH "highScores"("id", "score") AS (
        SELECT "reminders"."id" AS "id", "reminders"."score" AS "score"
        FROM "reminders"
        WHERE ("reminders"."score" > 2.0)
      )
      DELETE FROM "reminders"
      WHERE ("reminders"."id" IN (
        SELECT "highScores"."id"
        FROM "highScores"
      ))
      Bread
      Eggs
      """
    }
    // Captured like any write: the log replays to the same rows.
    let verification = try fixture.database.verify()
    #expect(verification.isValid, "\(verification.problems)")
  }
}

@Table("fibonaccis") private struct Fibonacci {
  let n: Int
  let previous: Int
  let value: Int
}

extension WithBuilderTests {
  /// A row value is the base of a recursive common table.
  @Test func aRowValueAsTheRecursiveBase() throws {
    let query = With {
      Fibonacci(n: 1, previous: 0, value: 1)
        .union(Fibonacci.select { Fibonacci.Columns(n: $0.n + 1, previous: $0.value, value: $0.previous + $0.value) })
    } query: {
      Fibonacci.select(\.value).limit(8)
    }
    assertInlineSnapshot(of: try run(query), as: .lines) {
      """
      WITH "fibonaccis"("n", "previous", "value") AS (
        SELECT 1 AS "n", 0 AS "previous", 1 AS "value"
        UNION
        SELECT ("fibonaccis"."n" + 1) AS "n", "fibonaccis"."value" AS "previous", ("fibonaccis"."previous" + "fibonaccis"."value") AS "value"
        FROM "fibonaccis"
      )
      SELECT "fibonaccis"."value"
      FROM "fibonaccis"
      LIMIT 8
      1
      1
      2
      3
      5
      8
      13
      21
      """
    }
  }
}

@Table("openReminders") private struct OpenReminder {
  let title: String
  let score: Double
}

@Table("reminderCounts") private struct ReminderCount {
  let count: Int
}

@Table("listCounts") private struct ListCount {
  let count: Int
}

extension WithBuilderTests {
  /// Counts of two tables, joined on a condition that always holds.
  @Test func commonTablesJoinedOnTrue() throws {
    let query = With {
      Reminder.select { ReminderCount.Columns(count: $0.count()) }
      RemindersList.select { ListCount.Columns(count: $0.count()) }
    } query: {
      ReminderCount.join(ListCount.all) { _, _ in true }.select { ($0.count, $1.count) }
    }
    assertInlineSnapshot(of: try run(query), as: .lines) {
      """
      WITH "reminderCounts"("count") AS (
        SELECT count("reminders"."id") AS "count"
        FROM "reminders"
      ), "listCounts"("count") AS (
        SELECT count("remindersLists"."id") AS "count"
        FROM "remindersLists"
      )
      SELECT "reminderCounts"."count", "listCounts"."count"
      FROM "reminderCounts"
      JOIN "listCounts" ON 1
      (4, 1)
      """
    }
  }

  /// An insert of what a join over a common table selects, an update and a
  /// delete reading one, each returning rows.
  @Test func writesReturningRows() throws {
    let open = { Reminder.where { !$0.isCompleted }.select { OpenReminder.Columns(title: $0.title, score: $0.score) } }
    let insert = With { open() } query: {
      Reminder.insert {
        ($0.remindersListID, $0.title, $0.isCompleted)
      } select: {
        OpenReminder
          .join(Reminder.all) { $0.title.eq($1.title) }
          .order { open, _ in open.score }
          .select { ($1.remindersListID, $0.title.upper(), true) }
          .limit(1)
      }
      .returning { ($0.title, $0.isCompleted) }
    }
    let update = With { open() } query: {
      Reminder.where { $0.title.in(OpenReminder.select(\.title)) }.update { $0.title = $0.title + "!" }.returning(\.title)
    }
    let delete = With { open() } query: {
      Reminder.where { $0.title.in(OpenReminder.where { $0.score > 1 }.select(\.title)) }.delete().returning(\.title)
    }
    var lines: [String] = []
    try fixture.database.write { db in
      lines += [insert.query.description] + (try insert.fetchAll(db)).map { "\($0)" }
      lines += [update.query.description] + (try update.fetchAll(db)).sorted()
      lines += [delete.query.description] + (try delete.fetchAll(db)).sorted()
      lines += ["left:"] + (try Reminder.order(by: \.title).select(\.title).fetchAll(db))
    }
    assertInlineSnapshot(of: lines.joined(separator: "\n"), as: .lines) {
      """
      WITH "openReminders"("title", "score") AS (
        SELECT "reminders"."title" AS "title", "reminders"."score" AS "score"
        FROM "reminders"
        WHERE NOT ("reminders"."isCompleted")
      )
      INSERT INTO "reminders"
      ("remindersListID", "title", "isCompleted")
      SELECT "reminders"."remindersListID", upper("openReminders"."title"), 1
      FROM "openReminders"
      JOIN "reminders" ON ("openReminders"."title" = "reminders"."title")
      ORDER BY "openReminders"."score"
      LIMIT 1
      RETURNING "title", "isCompleted"
      ("EGGS", true)
      WITH "openReminders"("title", "score") AS (
        SELECT "reminders"."title" AS "title", "reminders"."score" AS "score"
        FROM "reminders"
        WHERE NOT ("reminders"."isCompleted")
      )
      UPDATE "reminders"
      SET "title" = ("reminders"."title" || '!')
      WHERE ("reminders"."title" IN (
        SELECT "openReminders"."title"
        FROM "openReminders"
      ))
      RETURNING "title"
      Bread!
      Eggs!
      WITH "openReminders"("title", "score") AS (
        SELECT "reminders"."title" AS "title", "reminders"."score" AS "score"
        FROM "reminders"
        WHERE NOT ("reminders"."isCompleted")
      )
      DELETE FROM "reminders"
      WHERE ("reminders"."title" IN (
        SELECT "openReminders"."title"
        FROM "openReminders"
        WHERE ("openReminders"."score" > 1.0)
      ))
      RETURNING "title"
      Bread!
      left:
      EGGS
      Eggs!
      Jam (50% off)
      Milk
      """
    }
  }
}
