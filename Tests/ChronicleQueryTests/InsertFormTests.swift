import Chronicle
import Foundation
import GRDBSQLite
import InlineSnapshotTesting
import Testing

@Suite("Query builder: columns/values and columns/select inserts, large inserts")
struct InsertFormTests {
  @Test func columnsAndValues() {
    assertInlineSnapshot(of: Tag.insert { $0.title } values: { "home"; "work" }.query.description, as: .lines) {
      """
      INSERT INTO "tags"
      ("title")
      VALUES
      ('home'), ('work')
      """
    }
    let names = ["a", "b"]
    assertInlineSnapshot(
      of: Tag.insert(or: .ignore) { ($0.title, $0.useCount) } values: {
        for name in names { (name, name.count) }
        ("c", 3)
      }.query.description,
      as: .lines) {
      """
      INSERT OR IGNORE INTO "tags"
      ("title", "uses")
      VALUES
      ('a', 1), ('b', 1), ('c', 3)
      """
    }
    assertInlineSnapshot(
      of: Tag.insert { ($0.title, $0.useCount) } select: { Reminder.where(\.isCompleted).select { ($0.title.lower(), 0) } }
        .query.description,
      as: .lines) {
      """
      INSERT INTO "tags"
      ("title", "uses")
      SELECT lower("reminders"."title"), 0
      FROM "reminders"
      WHERE "reminders"."isCompleted"
      """
    }
  }

  @Test func insertsTooLargeForOneStatementAreSplit() {
    let insert = Tag.insert { ($0.title, $0.useCount) } values: { ("a", 1); ("b", 2); ("c", 3) }
      .returning(\.title)
    assertInlineSnapshot(of: insert.parts(maxBindings: 4).map(\.description).joined(separator: "\n"), as: .lines) {
      """
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('a', 1), ('b', 2)
      RETURNING "title"
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('c', 3)
      RETURNING "title"
      """
    }
    #expect(insert.parts(maxBindings: 6) == [insert.query])
    // Drafts that set no column insert one row per DEFAULT VALUES statement.
    let defaults = Counter.insert { Counter.Draft(); Counter.Draft(); Counter.Draft() }
    #expect(defaults.parts(maxBindings: 100).map(\.description) == Array(repeating: #"INSERT INTO "counters" DEFAULT VALUES"#, count: 3))
  }

  @Test func rowsAndDraftsMixedRunAsOneStatementPerRunOfColumns() throws {
    let fixture = try RemindersDatabase()
    let home = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
    let keyed = UUID(uuidString: "00000000-0000-0000-0000-0000000000aa")!
    let lists = RemindersList.insert {
      RemindersList(id: home, title: "Home")
      RemindersList.Draft(title: "Work", position: 2)
      RemindersList.Draft(title: "Errands", position: 3)
      RemindersList.Draft(id: keyed, title: "Keyed", position: 4)
    }.returning(\.title)
    let includeFlagged = false
    let conditional = RemindersList.insert { RemindersList.Draft(title: "Garden") } where: { list, _ in
      if includeFlagged { list.position > 0 }
    }
    let nothing = RemindersList.insert { [] }
    let inserted = try fixture.database.write { db in
      let titles = try lists.fetchAll(db)
      try conditional.execute(db)
      try nothing.execute(db)
      return titles
    }
    let stored = try fixture.database.read { db in try RemindersList.order { ($0.position, $0.title) }.select { ($0.title, $0.position) }.fetchAll(db) }
    let lines = [lists.query.description, conditional.query.description, "nothing: \"\(nothing.query.description)\" (\(nothing.parts(maxBindings: 100).count) statements)"]
      + ["returned: " + inserted.joined(separator: ", ")] + stored.map { "\($0.0) \($0.1)" }
    assertInlineSnapshot(of: lines.joined(separator: "\n"), as: .lines) {
      """
      INSERT INTO "remindersLists"
      ("id", "title", "position")
      VALUES
      ('00000000-0000-0000-0000-000000000001', 'Home', 0)
      RETURNING "title";
      INSERT INTO "remindersLists"
      ("title", "position")
      VALUES
      ('Work', 2), ('Errands', 3)
      RETURNING "title";
      INSERT INTO "remindersLists"
      ("id", "title", "position")
      VALUES
      ('00000000-0000-0000-0000-0000000000aa', 'Keyed', 4)
      RETURNING "title"
      INSERT INTO "remindersLists"
      ("title", "position")
      VALUES
      ('Garden', 0)
      nothing: "" (0 statements)
      returned: Home, Work, Errands, Keyed
      Garden 0
      Home 0
      Work 2
      Errands 3
      Keyed 4
      """
    }
  }

  @Test func anInsertOfNothingGivenIsARowOfDefaults() throws {
    let fixture = try RemindersDatabase()
    let insert = RemindersList.insert(or: .ignore)
    let rows = try fixture.database.write { db in
      try insert.execute(db)
      try RemindersList.insert().execute(db)
      return try RemindersList.select { ($0.title, $0.position, $0.id.isNot(nil as UUID?)) }.fetchAll(db)
    }
    assertInlineSnapshot(of: ([insert.query.description] + rows.map { "\($0)" }).joined(separator: "\n"), as: .lines) {
      """
      INSERT OR IGNORE INTO "remindersLists" DEFAULT VALUES
      ("", 0, true)
      ("", 0, true)
      """
    }
  }

  @Test func largeInsertsRunAsOneTransactionAndOneEvent() throws {
    let fixture = try RemindersDatabase()
    let database = fixture.database
    let before = try database.log.events().count
    // With at most 4 values per statement, 20,000 rows of 2 columns run as
    // 10,000 statements with the same SQL (one cached statement, rebound each time).
    let titles = try database.write { db in
      let previousLimit = sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_VARIABLE_NUMBER, 4)
      defer { sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_VARIABLE_NUMBER, previousLimit) }
      return try Tag.insert { ($0.title, $0.useCount) } values: { for index in 0..<20_000 { ("tag \(index)", index) } }
        .returning(\.title).fetchAll(db)
    }
    #expect(titles == (0..<20_000).map { "tag \($0)" })
    #expect(try database.log.events().count == before + 1)
    try database.write { db in
      try RemindersList.insert { RemindersList.Draft(title: "Done") }.execute(db)
      let list = try #require(try RemindersList.select(\.id).fetchOne(db))
      try Reminder.insert { ($0.remindersListID, $0.title, $0.isCompleted) } values: {
        (list, "Milk", true)
        (list, "Eggs", false)
      }.execute(db)
      try Tag.insert(or: .replace) { ($0.title, $0.useCount) } select: {
        Reminder.where(\.isCompleted).select { ($0.title.lower(), $0.title.length()) }
      }.execute(db)
    }
    try database.read { db in
      let milk = try Tag.find(db, key: "milk")
      let count = try Tag.fetchCount(db)
      #expect(milk.useCount == 4 && count == 20_001)
    }
  }
}
