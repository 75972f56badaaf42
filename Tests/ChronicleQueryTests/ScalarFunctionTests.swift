import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// SQLite's core scalar functions as upstream names them, with the SQL and
/// what SQLite returns.
@Suite("Query builder: scalar functions")
struct ScalarFunctionTests {
  @Test func numbersTextAndBlobs() throws {
    let fixture = try RemindersDatabase()
    let list = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
    try fixture.database.write { db in
      try RemindersList.insert { RemindersList.Draft(id: list, title: "Home") }.execute(db)
      try Reminder.insert {
        Reminder.Draft(remindersListID: list, title: "it's", score: -2.456)
        Reminder.Draft(remindersListID: list, title: "", score: 0)
      }.execute(db)
      try Tag.insert { Tag(title: "a", useCount: -7) }.execute(db)
    }
    let numbers = Reminder.order(by: \.score).select { ($0.score.abs(), $0.score.sign(), $0.score.round(), $0.score.round(2)) }
    let text = Reminder.order(by: \.score).select { ($0.title.quote(), $0.title.nullif(""), $0.title.unicode()) }
    let integers = Tag.select { ($0.useCount.abs(), $0.useCount.sign(), 4.zeroblob().hex(), 16.randomblob().length()) }
    let hints = Tag.where { ($0.useCount < 0).likely() && !($0.useCount > 100).unlikely() && ($0.title == "a").likelihood(0.5) }.select(\.title)
    let output = try fixture.database.read { db in
      [
        numbers.query.description, try numbers.fetchAll(db).map { "\($0)" }.joined(separator: "\n"),
        text.query.description, try text.fetchAll(db).map { "\($0)" }.joined(separator: "\n"),
        integers.query.description, try integers.fetchAll(db).map { "\($0)" }.joined(separator: "\n"),
        hints.query.description, try hints.fetchAll(db).joined(separator: ", "),
      ].joined(separator: "\n")
    }
    assertInlineSnapshot(of: output, as: .lines) {
      #"""
      SELECT abs("reminders"."score"), sign("reminders"."score"), round("reminders"."score"), round("reminders"."score", 2)
      FROM "reminders"
      ORDER BY "reminders"."score"
      (2.456, -1.0, -2.0, -2.46)
      (0.0, 0.0, 0.0, 0.0)
      SELECT quote("reminders"."title"), nullif("reminders"."title", ''), unicode("reminders"."title")
      FROM "reminders"
      ORDER BY "reminders"."score"
      ("\'it\'\'s\'", Optional("it\'s"), Optional(105))
      ("\'\'", nil, nil)
      SELECT abs("tags"."uses"), sign("tags"."uses"), hex(zeroblob(4)), length(randomblob(16))
      FROM "tags"
      (7, -1, "00000000", 16)
      SELECT "tags"."title"
      FROM "tags"
      WHERE ((likely(("tags"."uses" < 0)) AND NOT (unlikely(("tags"."uses" > 100)))) AND likelihood(("tags"."title" = 'a'), 0.5))
      a
      """#
    }
  }

  /// Functions newer than Debian 12's SQLite 3.40.1 (`unhex` 3.41,
  /// `octet_length` 3.43): their SQL only.
  @Test func functionsOfNewerSQLite() {
    let sql = [
      Reminder.select { $0.title.unhex() }.query.description,
      Reminder.select { $0.title.unhex("-") }.query.description,
      Reminder.select { $0.title.octetLength() }.query.description,
    ].joined(separator: "\n")
    assertInlineSnapshot(of: sql, as: .lines) {
      """
      SELECT unhex("reminders"."title")
      FROM "reminders"
      SELECT unhex("reminders"."title", '-')
      FROM "reminders"
      SELECT octet_length("reminders"."title")
      FROM "reminders"
      """
    }
  }
}
