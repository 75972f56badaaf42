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
      UPDATE "reminders"
      SET "isCompleted" = NOT ("reminders"."isCompleted"), "title" = ("reminders"."title" || '!'), "notes" = 'Oat', "priority" = 1, "dueDate" = '1970-01-02 00:00:00.000'
      WHERE ("reminders"."title" = 'Milk')
      UPDATE "reminders"
      SET "score" = (("reminders"."score" * 4.0) + 1.0), "notes" = NULL, "priority" = 3, "title" = ("reminders"."title" || ' (free range)')
      WHERE ("reminders"."title" = 'Eggs')
      UPDATE "reminders"
      SET "score" = -("reminders"."score"), "isCompleted" = NOT ("reminders"."isCompleted")
      WHERE ("reminders"."title" = 'Bread')
      UPDATE "reminders"
      SET "notes" = CASE "reminders"."isCompleted" WHEN 1 THEN 'done' END
      WHERE ("reminders"."title" LIKE 'Jam%' ESCAPE '\')
      Bread | true | NULL | low | NULL | -2.0
      Eggs (free range) | false | NULL | high | NULL | 5.0
      Jam (50% off) | true | done | NULL | NULL | 5.0
      Milk! | false | Oat | low | 86400.0 | 3.0
      """#
    }
  }
  /// A column compared with `nil` in an update closure (where a column
  /// reads as a plain `SQLQueryExpression`) is `IS NULL`, in a searched
  /// CASE with a plain result too; a CASE without `else` is assigned to an
  /// optional column as it is.
  @Test func nilComparisonsAndCaseInAnUpdate() throws {
    let seeded = try fixture.seeded()
    let database = seeded.database
    let fillNotes = Reminder.update {
      $0.notes = Case().when($0.notes == nil, then: "none").else($0.notes)
      $0.dueDate = Case().when($0.priority != nil, then: #sql("'2026-01-01 00:00:00.000'"))
    }
    assertInlineSnapshot(of: fillNotes.query.description, as: .lines) {
      """
      UPDATE "reminders"
      SET "notes" = CASE WHEN ("reminders"."notes" IS NULL) THEN 'none' ELSE "reminders"."notes" END, "dueDate" = CASE WHEN ("reminders"."priority" IS NOT NULL) THEN '2026-01-01 00:00:00.000' END
      """
    }
    try database.write { db in try fillNotes.execute(db) }
    assertInlineSnapshot(of: try database.sqlAndRows(Reminder.select { ($0.title, $0.notes, $0.dueDate) }), as: .lines) {
      """
      SELECT "reminders"."title", "reminders"."notes", "reminders"."dueDate"
      FROM "reminders"
      ("Milk", Optional("none"), Optional(2026-01-01 00:00:00 +0000))
      ("Eggs", Optional("a dozen"), nil)
      ("Bread", Optional("none"), Optional(2026-01-01 00:00:00 +0000))
      ("Jam (50% off)", Optional("none"), nil)
      """
    }
  }

  /// Operators the standard library also has for the column's Swift type
  /// (`Int.+=`, `Bool`'s `!`, `String.+=`), in each form of update: on the
  /// table, on a filtered select, on a row by key, in a closure of several
  /// statements. Each reads the column as an expression.
  @Test func operatorsTheStandardLibraryAlsoHas() throws {
    let seeded = try fixture.seeded()
    let statements: [any QueryStatement] = [
      Reminder.update { $0.score += 1 },
      Reminder.update { $0.isCompleted = !$0.isCompleted },
      Reminder.where { $0.title == "Milk" }.update { $0.score *= 2 },
      Reminder.update {
        $0.title += "."
        $0.score -= 0.5
        $0.isCompleted = !$0.isCompleted || $0.score > 3
      },
      Reminder.order(by: \.title).select { ($0.title, $0.isCompleted, $0.score) },
    ]
    assertInlineSnapshot(of: try seeded.database.sqlAndRows(of: statements), as: .lines) {
      """
      UPDATE "reminders"
      SET "score" = ("reminders"."score" + 1.0)
      UPDATE "reminders"
      SET "isCompleted" = NOT ("reminders"."isCompleted")
      UPDATE "reminders"
      SET "score" = ("reminders"."score" * 2.0)
      WHERE ("reminders"."title" = 'Milk')
      UPDATE "reminders"
      SET "title" = ("reminders"."title" || '.'), "score" = ("reminders"."score" - 0.5), "isCompleted" = (NOT ("reminders"."isCompleted") OR (("reminders"."score" - 0.5) > 3.0))
      SELECT "reminders"."title", "reminders"."isCompleted", "reminders"."score"
      FROM "reminders"
      ORDER BY "reminders"."title"
        ("Bread.", false, 2.5)
        ("Eggs.", false, 1.5)
        ("Jam (50% off).", true, 5.5)
        ("Milk.", true, 7.5)
      """
    }
  }

  /// `nil` for a column that is not optional compiles (the value form of an
  /// update's columns is implicitly unwrapped); SQLite refuses the statement
  /// and nothing changes.
  @Test func nilForAColumnThatIsNotOptionalIsRefused() throws {
    let seeded = try fixture.seeded()
    let clear = Reminder.update { $0.title = nil }
    #expect(clear.query.description == #"UPDATE "reminders"\#nSET "title" = NULL"#)
    let error = #expect(throws: (any Error).self) {
      try seeded.database.write { db in try clear.execute(db) }
    }
    #expect("\(error.map { "\($0)" } ?? "")".contains("NOT NULL constraint failed: reminders.title"))
    let titles = try seeded.database.read { db in try Reminder.order(by: \.title).select(\.title).fetchAll(db) }
    #expect(titles == ["Bread", "Eggs", "Jam (50% off)", "Milk"])
  }
}
