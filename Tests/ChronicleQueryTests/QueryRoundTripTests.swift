import Chronicle
import Foundation
import Testing

@Suite("Query builder: round trips through Chronicle")
struct QueryRoundTripTests {
  let fixture: RemindersDatabase
  var database: ChronicleDatabase { fixture.database }

  init() throws {
    fixture = try RemindersDatabase()
  }

  @Test func crudThroughTheBuilderIsCapturedOneEventPerTransaction() throws {
    let before = try database.log.events().count
    let due = Date(timeIntervalSince1970: 1_790_000_000.25)
    let (listID, reminderID) = try database.write { db in
      let listID = try #require(try RemindersList.insert { RemindersList.Draft(title: "Home") }.returning(\.id).fetchOne(db))
      let reminderID = try #require(
        try Reminder.insert {
          Reminder.Draft(remindersListID: listID, title: "Milk", priority: .high, dueDate: due, score: 1.5)
          Reminder.Draft(remindersListID: listID, title: "Eggs", notes: "a dozen")
        }.returning(\.id).fetchAll(db).first)
      return (listID, reminderID)
    }
    #expect(try database.log.events().count == before + 1)

    try database.read { db in
      let milk = try Reminder.find(db, key: reminderID)
      #expect(milk.title == "Milk" && milk.priority == .high && milk.remindersListID == listID)
      #expect(milk.dueDate == due)
      #expect(milk.notes == nil && !milk.isCompleted && !milk.isSelected)
      #expect(try Reminder.where { $0.notes.isNot(nil) }.select(\.title).fetchAll(db) == ["Eggs"])
      #expect(try Reminder.order(by: \.title).select(\.title).fetchAll(db) == ["Eggs", "Milk"])
      #expect(try Reminder.where { $0.title.hasPrefix("m") }.fetchCount(db) == 1)
      #expect(try RemindersList.fetchAll(db).map(\.title) == ["Home"])
      let stored = try String.fetchOne(db, sql: "SELECT dueDate FROM reminders WHERE title = 'Milk'")
      #expect(stored == "2026-09-21 14:13:20.250")  // UTC, as SQLite reads it
    }

    try database.write { db in
      try Reminder.find(reminderID).update { $0.toggle(\.isCompleted); $0.score += 1 }.execute(db)
      try Reminder.where { $0.title == "Eggs" }.delete().execute(db)
    }
    #expect(try database.log.events().count == before + 2)
    try database.read { db in
      let milk = try Reminder.find(db, key: reminderID)
      #expect(milk.isCompleted && milk.score == 2.5)
      #expect(try Reminder.fetchCount(db) == 1)
    }
    // The log reproduces the tables.
    let replay = try database.replay(into: fixture.directory.appendingPathComponent("replay.sqlite").path)
    #expect(replay.digests == (try database.digests()))
  }

  @Test func upsertsAndConflictResolution() throws {
    try database.write { db in
      try Tag.insert { Tag(title: "home", useCount: 1) }.execute(db)
      try Tag.insert { Tag(title: "home", useCount: 2) } onConflict: { $0.title } doUpdate: { row, excluded in
        row.useCount += excluded.useCount
      }.execute(db)
      try Tag.insert(or: .ignore) { Tag(title: "home", useCount: 100) }.execute(db)
    }
    #expect(try database.read { db in try Tag.find(db, key: "home").useCount } == 3)
  }

  @Test func errorsNameTheProblem() throws {
    _ = try database.read { db in
      #expect {
        try Tag.find(db, key: "missing")
      } throws: { error in
        "\(error)".contains("no row in tags with primary key 'missing'")
      }
    }
    try database.write { db in
      try db.execute(sql: "CREATE TABLE loose (id INTEGER PRIMARY KEY, title TEXT, position INTEGER) STRICT")
      try db.execute(sql: "INSERT INTO remindersLists (id, title, position) VALUES ('not-a-uuid', 'x', 1)")
    }
    _ = try database.read { db in
      #expect {
        try RemindersList.fetchAll(db)
      } throws: { error in
        let message = "\(error)"
        return message.contains("remindersLists.id") && message.contains("expected UUID") && message.contains("not-a-uuid")
      }
    }
    // An update condition with no update to guard fails the insert, which inserts nothing.
    #expect {
      try database.write { db in
        try RemindersList.insert { RemindersList.Draft(title: "b") } where: { list, _ in list.position > 0 }.execute(db)
      }
    } throws: { error in
      "\(error)".contains("an update condition (`where:`) was given without an update. Fix: add `onConflictDoUpdate:`")
    }
    #expect(try database.read { db in try RemindersList.where { $0.title == "b" }.fetchCount(db) } == 0)
  }
}
