import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

extension Reminder.Draft {
  fileprivate static let open = Self.where { !$0.isCompleted }
}

extension Reminder {
  fileprivate static let cheap = Self.where { $0.score < 3 }
}

/// Drafts read as a table, as upstream allows: `Reminder.Draft.where { … }`
/// gives the rows as drafts (their primary keys set), scopes are written on
/// drafts, and an edited draft upserts back into its row.
@Suite("Query builder: drafts read as a table")
struct DraftTableTests {
  @Test func rowsReadAsDraftsAndUpsertedBack() throws {
    let fixture = try BuilderClosureAndCombinatorTests().seeded()
    let highScores = Reminder.Draft.where { $0.score > 2 }.order(by: \.title)
    let open = Reminder.Draft.open.order(by: \.score)
    var lines: [String] = []
    try fixture.database.write { db in
      let drafts = try highScores.fetchAll(db)
      lines += [highScores.query.description] + drafts.map { "\($0.title) \($0.score) key set: \($0.id != nil)" }
      let opened = try open.fetchAll(db)
      lines += [open.query.description] + opened.map { "\($0.title) \($0.score)" }
      var edited = opened[0]
      edited.title += " (edited)"
      try Reminder.upsert { edited }.execute(db)
      let found = try Reminder.Draft.find(edited.id!).fetchOne(db)
      lines += ["found: \(found?.title ?? "nil")", "rows: \(try Reminder.fetchCount(db))"]
    }
    assertInlineSnapshot(of: lines.joined(separator: "\n"), as: .lines) {
      """
      SELECT "reminders"."id", "reminders"."remindersListID", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."dueDate", "reminders"."score"
      FROM "reminders"
      WHERE ("reminders"."score" > 2.0)
      ORDER BY "reminders"."title"
      Jam (50% off) 5.0 key set: true
      Milk 3.0 key set: true
      SELECT "reminders"."id", "reminders"."remindersListID", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."dueDate", "reminders"."score"
      FROM "reminders"
      WHERE NOT ("reminders"."isCompleted")
      ORDER BY "reminders"."score"
      Eggs 1.0
      Bread 2.0
      found: Eggs (edited)
      rows: 4
      """
    }
  }

  @Test func draftsSelectColumnsAndReadTheTablesScopes() throws {
    let fixture = try BuilderClosureAndCombinatorTests().seeded()
    let eggs = try fixture.database.read { db in try Reminder.where { $0.title == "Eggs" }.select(\.id).fetchOne(db)! }
    let columns = Reminder.Draft.select { ($0.title, $0.score) }.order(by: \.score)
    let found = Reminder.Draft.find(eggs).select { ($0.title, $0.notes) }
    let scope = Reminder.Draft.cheap.select(\.title).order(by: \.title)
    let chained = Reminder.Draft.where { !$0.isCompleted }.cheap.order(by: \.title)
    var lines: [String] = []
    try fixture.database.read { db in
      lines += [columns.query.description] + (try columns.fetchAll(db)).map { "  \($0.0) \($0.1)" }
      lines += [found.query.description.replacingOccurrences(of: eggs.uuidString.lowercased(), with: "<eggs>")]
        + (try found.fetchAll(db)).map { "  \($0.0) \($0.1 ?? "nil")" }
      lines += [scope.query.description] + (try scope.fetchAll(db)).map { "  \($0)" }
      lines += [chained.query.description] + (try chained.fetchAll(db)).map { "  \($0.title) key set: \($0.id != nil)" }
    }
    assertInlineSnapshot(of: lines.joined(separator: "\n"), as: .lines) {
      """
      SELECT "reminders"."title", "reminders"."score"
      FROM "reminders"
      ORDER BY "reminders"."score"
        Eggs 1.0
        Bread 2.0
        Milk 3.0
        Jam (50% off) 5.0
      SELECT "reminders"."title", "reminders"."notes"
      FROM "reminders"
      WHERE ("reminders"."id" IN ('<eggs>'))
        Eggs a dozen
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."score" < 3.0)
      ORDER BY "reminders"."title"
        Bread
        Eggs
      SELECT "reminders"."id", "reminders"."remindersListID", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."dueDate", "reminders"."score"
      FROM "reminders"
      WHERE (NOT ("reminders"."isCompleted")) AND ("reminders"."score" < 3.0)
      ORDER BY "reminders"."title"
        Bread key set: true
        Eggs key set: true
      """
    }
  }
}
