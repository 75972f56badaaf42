import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

import ChronicleTestSupport

extension Reminder {
  static let open = Reminder.where { !$0.isCompleted }
  static let urgent = Reminder.where { $0.priority.eq(Reminder.Priority.high) }
  static func scoredAbove(_ score: Double) -> Where<Reminder> { Reminder.where { $0.score > score } }
  /// A query helper, as the seeds write them.
  static func search(_ text: String, limit: Int = 50) -> Where<Reminder> {
    Reminder.open.matching(text).order(by: \.title).limit(limit)
  }
}

extension Where<Reminder> {
  func matching(_ text: String) -> Where<Reminder> { self.where { $0.title.contains(text) } }
}

@Suite("Query builder: reusable scopes, extensions on Where<T> and query helpers")
struct ScopeTests {
  @Test func sql() {
    let chained: Where<Reminder> = Reminder.open.urgent.matching("milk").order(by: \.title)
    assertInlineSnapshot(of: chained.query.description, as: .lines) {
      #"""
      SELECT "reminders"."id", "reminders"."remindersListID", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."dueDate", "reminders"."score"
      FROM "reminders"
      WHERE (NOT ("reminders"."isCompleted")) AND ("reminders"."priority" = 3) AND ("reminders"."title" LIKE '%milk%' ESCAPE '\')
      ORDER BY "reminders"."title"
      """#
    }
    let combined: Where<Reminder> = Reminder.open.and(Reminder.scoredAbove(2))
    assertInlineSnapshot(of: combined.query.description, as: .lines) {
      """
      SELECT "reminders"."id", "reminders"."remindersListID", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."dueDate", "reminders"."score"
      FROM "reminders"
      WHERE (NOT ("reminders"."isCompleted")) AND ("reminders"."score" > 2.0)
      """
    }
    assertInlineSnapshot(of: Reminder.search("report", limit: 5).query.description, as: .lines) {
      #"""
      SELECT "reminders"."id", "reminders"."remindersListID", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."dueDate", "reminders"."score"
      FROM "reminders"
      WHERE (NOT ("reminders"."isCompleted")) AND ("reminders"."title" LIKE '%report%' ESCAPE '\')
      ORDER BY "reminders"."title"
      LIMIT 5
      """#
    }
  }

  @Test("scopes chain on a real database")
  func roundTrip() throws {
    let directory = try TemporaryDirectory()
    let database = try Chronicle.open(path: directory.path("app.sqlite"))
    let list = UUID()
    try database.write { db in
      try db.execute(sql: remindersSchema)
      try RemindersList.insert { RemindersList(id: list, title: "Home") }.execute(db)
      try Reminder.insert {
        Reminder.Draft(remindersListID: list, title: "Buy milk", priority: .high, score: 3)
        Reminder.Draft(remindersListID: list, title: "Buy oat milk", isCompleted: true, priority: .high, score: 5)
        Reminder.Draft(remindersListID: list, title: "Milk the cow", priority: .low, score: 1)
        Reminder.Draft(remindersListID: list, title: "Report", score: 9)
      }.execute(db)
    }
    let chained: Where<Reminder> = Reminder.open.urgent.matching("milk")
    let combined: Where<Reminder> = Reminder.open.and(Reminder.scoredAbove(2)).order(by: \.title)
    let searched: Where<Reminder> = Reminder.search("ilk")
    let titles: [[String]] = try database.read { db in
      try [chained, combined, searched].map { (scope: Where<Reminder>) -> [String] in try scope.select(\.title).fetchAll(db) }
    }
    #expect(titles == [["Buy milk"], ["Buy milk", "Report"], ["Buy milk", "Milk the cow"]])
  }
}
