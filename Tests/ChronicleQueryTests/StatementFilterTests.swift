import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// Updates and deletes narrowed after they are started, and an optional
/// limit, as SQLiteData users write them.
@Suite("Query builder: update/delete then where/find, limit(nil)")
struct StatementFilterTests {
  let milk = UUID(uuidString: "00000000-0000-0000-0000-00000000000a")!
  let eggs = UUID(uuidString: "00000000-0000-0000-0000-00000000000b")!

  @Test func updatesAndDeletesNarrowedAfterwardsAndAnOptionalLimit() throws {
    let fixture = try RemindersDatabase()
    let database = fixture.database
    let list = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
    try database.write { db in
      try RemindersList.insert { RemindersList.Draft(id: list, title: "Home") }.execute(db)
      try Reminder.insert {
        Reminder.Draft(id: milk, remindersListID: list, title: "Milk")
        Reminder.Draft(id: eggs, remindersListID: list, title: "Eggs", isCompleted: true)
      }.execute(db)
    }
    let update = Reminder.update { $0.title = "Done" }.where(\.isCompleted)
    let delete = Reminder.delete().find(milk)
    let unlimited = Reminder.order(by: \.title).limit(nil).select(\.title)
    let open = Reminder.count { !$0.isCompleted }
    assertInlineSnapshot(of: [update.query.description, delete.query.description, unlimited.query.description, open.query.description].joined(separator: "\n"), as: .lines) {
      """
      UPDATE "reminders"
      SET "title" = 'Done'
      WHERE "reminders"."isCompleted"
      DELETE FROM "reminders"
      WHERE ("reminders"."id" IN ('00000000-0000-0000-0000-00000000000a'))
      SELECT "reminders"."title"
      FROM "reminders"
      ORDER BY "reminders"."title"
      SELECT count(*) FILTER (WHERE NOT ("reminders"."isCompleted"))
      FROM "reminders"
      """
    }
    #expect(try database.read { db in try open.fetchOne(db) } == 1)  // milk
    try database.write { db in
      try update.execute(db)
      try delete.execute(db)
    }
    let (titles, openCount) = try database.read { db in (try unlimited.fetchAll(db), try open.fetchOne(db)) }
    assertInlineSnapshot(of: titles.joined(separator: "\n") + "\nopen: \(openCount ?? -1)", as: .lines) {
      """
      Done
      open: 0
      """
    }
  }
}
