import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// Assignments in an update closure as upstream spells them: Swift values
/// of the model's type (an enum case by its implicit member, a plain value
/// for an optional column), mutating methods on a column (`toggle()`,
/// `append`, `negate()`), and arithmetic on columns read in the closure.
/// Each with its SQL and the rows SQLite holds after it.
@Suite("Query builder: update assignments")
struct UpdateAssignmentTests {
  let fixture = BuilderClosureAndCombinatorTests()

  @Test func assignmentsAsUpstreamSpellsThem() throws {
    let seeded = try fixture.seeded()
    let database = seeded.database
    let due = Date(timeIntervalSince1970: 86_400)
    let milk = Reminder.where { $0.title == "Milk" }.update {
      $0.isCompleted.toggle()
      $0.title.append("!")
      $0.notes = "Oat"
      $0.priority = .low
      $0.dueDate = due
    }
    let eggs = Reminder.where { $0.title == "Eggs" }.update {
      $0.score = $0.score * 4 + 1
      $0.notes = nil
      $0.priority = .high
      $0.title.append(contentsOf: " (free range)")
    }
    let bread = Reminder.where { $0.title == "Bread" }.update {
      $0.score.negate()
      $0.isCompleted = !$0.isCompleted
    }
    // An expression of a type other than SQLQueryExpression, wrapped.
    let jam = Reminder.where { $0.title.hasPrefix("Jam") }.update {
      $0.notes = SQLQueryExpression(Case($0.isCompleted).when(true, then: "done"))
    }
    try database.write { db in
      try jam.execute(db)
      try milk.execute(db)
      try eggs.execute(db)
      try bread.execute(db)
    }
    let rows = try database.read { db in
      try Reminder.order(by: \.title).fetchAll(db).map {
        "\($0.title) | \($0.isCompleted) | \($0.notes ?? "NULL") | \($0.priority.map { "\($0)" } ?? "NULL") | \($0.dueDate.map { "\($0.timeIntervalSince1970)" } ?? "NULL") | \($0.score)"
      }
    }
    assertInlineSnapshot(of: ([milk, eggs, bread, jam].map(\.query.description) + rows).joined(separator: "\n"), as: .lines) {
      #"""
      UPDATE "reminders" SET "isCompleted" = NOT ("reminders"."isCompleted"), "title" = ("reminders"."title" || '!'), "notes" = 'Oat', "priority" = 1, "dueDate" = '1970-01-02 00:00:00.000' WHERE ("reminders"."title" = 'Milk')
      UPDATE "reminders" SET "score" = (("reminders"."score" * 4.0) + 1.0), "notes" = NULL, "priority" = 3, "title" = ("reminders"."title" || ' (free range)') WHERE ("reminders"."title" = 'Eggs')
      UPDATE "reminders" SET "score" = -("reminders"."score"), "isCompleted" = NOT ("reminders"."isCompleted") WHERE ("reminders"."title" = 'Bread')
      UPDATE "reminders" SET "notes" = CASE "reminders"."isCompleted" WHEN 1 THEN 'done' END WHERE ("reminders"."title" LIKE 'Jam%' ESCAPE '\')
      Bread | true | NULL | low | NULL | -2.0
      Eggs (free range) | false | NULL | high | NULL | 5.0
      Jam (50% off) | true | done | NULL | NULL | 5.0
      Milk! | false | Oat | low | 86400.0 | 3.0
      """#
    }
  }
  /// A column compared with `nil` in an update closure (where a column
  /// reads as a plain `SQLQueryExpression`) is `IS NULL`, in a searched
  /// CASE with a plain result too; a CASE without `else` is assigned
  /// through `SQLQueryExpression(…)`.
  @Test func nilComparisonsAndCaseInAnUpdate() throws {
    let seeded = try fixture.seeded()
    let database = seeded.database
    let fillNotes = Reminder.update {
      $0.notes = Case().when($0.notes == nil, then: "none").else($0.notes)
      $0.dueDate = SQLQueryExpression(Case().when($0.priority != nil, then: #sql("'2026-01-01 00:00:00.000'")))
    }
    assertInlineSnapshot(of: fillNotes.query.description, as: .lines) {
      """
      UPDATE "reminders" SET "notes" = CASE WHEN ("reminders"."notes" IS NULL) THEN 'none' ELSE "reminders"."notes" END, "dueDate" = CASE WHEN ("reminders"."priority" IS NOT NULL) THEN '2026-01-01 00:00:00.000' END
      """
    }
    try database.write { db in try fillNotes.execute(db) }
    assertInlineSnapshot(of: try database.sqlAndRows(Reminder.select { ($0.title, $0.notes, $0.dueDate) }), as: .lines) {
      """
      SELECT "reminders"."title", "reminders"."notes", "reminders"."dueDate" FROM "reminders"
      ("Milk", Optional("none"), Optional(2026-01-01 00:00:00 +0000))
      ("Eggs", Optional("a dozen"), nil)
      ("Bread", Optional("none"), Optional(2026-01-01 00:00:00 +0000))
      ("Jam (50% off)", Optional("none"), nil)
      """
    }
  }
}
