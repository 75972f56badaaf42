import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

extension RemindersList {
  /// A static select that joins and chooses columns, chained by name.
  static let withReminderCount = group(by: \.id).join(Reminder.all) { $0.id.eq($1.remindersListID) }.select { $1.id.count() }
}

/// Joins of selects that chose their columns, as upstream's SelectTests
/// spell them: each side keeps its columns.
@Suite("Query builder: joins of selects that chose their columns")
struct ProjectedJoinTests {
  let fixture: RemindersDatabase

  init() throws {
    fixture = try RemindersDatabase()
    let home = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
    let work = UUID(uuidString: "00000000-0000-0000-0000-000000000002")!
    try fixture.database.write { db in
      try RemindersList.insert {
        RemindersList.Draft(id: home, title: "Home", position: 1)
        RemindersList.Draft(id: work, title: "Work", position: 2)
      }.execute(db)
      try Reminder.insert {
        Reminder.Draft(remindersListID: home, title: "Milk", score: 3)
        Reminder.Draft(remindersListID: work, title: "Report", score: 1)
      }.execute(db)
    }
  }

  @Test func eachSideKeepsItsColumns() throws {
    let statements: [any QueryStatement] = [
      Reminder.select(\.title).join(RemindersList.select(\.title)) { $0.remindersListID.eq($1.id) }.order { reminder, _ in reminder.title },
      Reminder.select { ($0.title, $0.score) }.join(RemindersList.where { $0.title == "Work" }.select(\.position)) { $0.remindersListID.eq($1.id) },
      Reminder.select(\.title).join(RemindersList.order(by: \.title).limit(1).select(\.title)) { $0.remindersListID.eq($1.id) },
      Reminder.select(\.title).join(RemindersList.all) { $0.remindersListID.eq($1.id) }.where { _, list in list.position == 1 },
    ]
    let output = try fixture.database.sqlAndRows(of: statements)
    assertInlineSnapshot(of: output, as: .lines) {
      """
      SELECT "reminders"."title", "remindersLists"."title"
      FROM "reminders"
      JOIN "remindersLists" ON ("reminders"."remindersListID" = "remindersLists"."id")
      ORDER BY "reminders"."title"
        ("Milk", "Home")
        ("Report", "Work")
      SELECT "reminders"."title", "reminders"."score", "remindersLists"."position"
      FROM "reminders"
      JOIN "remindersLists" ON ("reminders"."remindersListID" = "remindersLists"."id") AND ("remindersLists"."title" = 'Work')
        (("Report", 1.0), 2)
      SELECT "reminders"."title", "remindersLists"."title"
      FROM "reminders"
      JOIN (
        SELECT "remindersLists"."id", "remindersLists"."title", "remindersLists"."position"
        FROM "remindersLists"
        ORDER BY "remindersLists"."title"
        LIMIT 1
      ) AS "remindersLists" ON ("reminders"."remindersListID" = "remindersLists"."id")
        ("Milk", "Home")
      SELECT "reminders"."title", "remindersLists"."id", "remindersLists"."title", "remindersLists"."position"
      FROM "reminders"
      JOIN "remindersLists" ON ("reminders"."remindersListID" = "remindersLists"."id")
      WHERE ("remindersLists"."position" = 1)
        ("Milk", ChronicleQueryTests.RemindersList(id: 00000000-0000-0000-0000-000000000001, title: "Home", position: 1))
      """
    }
  }

  /// A grouped select's columns are computed over its groups, which a join
  /// does not keep: the statement fails, and the message says what to write.
  @Test func aGroupedSelectIsNotJoinedByItsColumns() throws {
    let grouped = RemindersList.group(by: \.title).select { $0.position.max() }
    let error = #expect(throws: DatabaseError.self) {
      try fixture.database.read { db in
        try Reminder.select(\.title).join(grouped) { $0.remindersListID.eq($1.id) }.fetchAll(db)
      }
    }
    #expect(error?.message?.contains("cannot be joined by its chosen columns: join its rows and select after the join") == true, "\(String(describing: error))")
  }

  /// A static select that joins, chained by name after a select that chose
  /// its columns: the columns of both, the clauses of both.
  @Test func aStaticJoinChainedAfterChosenColumns() throws {
    let statements: [any QueryStatement] = [
      RemindersList.order(by: \.title).limit(1).select(\.title).withReminderCount,
      RemindersList.where { $0.position > 1 }.select { ($0.title, $0.position) }.withReminderCount,
      RemindersList.order(by: \.title).withReminderCount,
    ]
    let output = try fixture.database.sqlAndRows(of: statements)
    assertInlineSnapshot(of: output, as: .lines) {
      """
      SELECT "remindersLists"."title", count("reminders"."id")
      FROM "remindersLists"
      JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID")
      GROUP BY "remindersLists"."id"
      ORDER BY "remindersLists"."title"
      LIMIT 1
        ("Home", 1)
      SELECT "remindersLists"."title", "remindersLists"."position", count("reminders"."id")
      FROM "remindersLists"
      JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID")
      WHERE ("remindersLists"."position" > 1)
      GROUP BY "remindersLists"."id"
        (("Work", 2), 1)
      SELECT count("reminders"."id")
      FROM "remindersLists"
      JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID")
      GROUP BY "remindersLists"."id"
      ORDER BY "remindersLists"."title"
        1
        1
      """
    }
  }
}
