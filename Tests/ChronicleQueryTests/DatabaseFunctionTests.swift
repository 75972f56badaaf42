import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

import ChronicleTestSupport

@Suite("@DatabaseFunction: Swift functions called from SQL")
struct DatabaseFunctionTests {
  let directory: TemporaryDirectory
  let database: ChronicleDatabase
  let home = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
  let work = UUID(uuidString: "00000000-0000-0000-0000-000000000002")!
  let empty = UUID(uuidString: "00000000-0000-0000-0000-000000000003")!
  let now = Date(timeIntervalSince1970: 1_800_000_000)

  init() throws {
    directory = try TemporaryDirectory()
    var configuration = ChronicleConfiguration()
    configuration.database.prepareDatabase { db in
      db.add(function: $mode)
      db.add(function: $median)
      db.add(function: $isPastDue)
      db.add(function: TextFunctions.$initials)
      db.add(function: $noteCompleted)
      db.add(function: $joined)
      db.add(function: $sumAll)
      db.add(function: $firstValue)
    }
    database = try Chronicle.open(path: directory.path("app.sqlite"), configuration: configuration)
    let (home, work, empty, now) = (home, work, empty, now)
    try database.write { db in
      try db.execute(sql: remindersSchema)
      try RemindersList.insert {
        RemindersList(id: home, title: "Home", position: 1)
        RemindersList(id: work, title: "Work", position: 2)
        RemindersList(id: empty, title: "Empty", position: 3)
      }.execute(db)
      try Reminder.insert {
        Reminder.Draft(remindersListID: home, title: "Buy milk", priority: .high, dueDate: now - 3600, score: 1)
        Reminder.Draft(remindersListID: home, title: "Call mom", priority: .high, score: 2)
        Reminder.Draft(remindersListID: home, title: "Water plants", isCompleted: true, priority: .low, dueDate: now - 60, score: 10)
        Reminder.Draft(remindersListID: work, title: "Finish report", priority: .medium, dueDate: now + 3600, score: 4)
        Reminder.Draft(remindersListID: work, title: "Book travel", score: 5)
      }.execute(db)
    }
  }

  @Test func sql() {
    assertInlineSnapshot(
      of: RemindersList.group(by: \.id).leftJoin(Reminder.all) { $0.id.eq($1.remindersListID) }
        .select { ($0.title, $mode(priority: $1.priority), $median(values: $1.score)) }.query.description,
      as: .lines) {
      """
      SELECT "remindersLists"."title", "mode"("reminders"."priority"), "median_of"("reminders"."score")
      FROM "remindersLists"
      LEFT JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID")
      GROUP BY "remindersLists"."id"
      """
    }
    assertInlineSnapshot(of: Reminder.where { $isPastDue(reminder: $0, now: now) }.select { TextFunctions.$initials($0.title) }.query.description, as: .lines) {
      """
      SELECT "initials"("reminders"."title")
      FROM "reminders"
      WHERE "isPastDue"("reminders"."id", "reminders"."remindersListID", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."dueDate", "reminders"."score", '2027-01-15 08:00:00.000')
      """
    }
  }

  @Test("the seeds' aggregates: mode and median per list")
  func aggregates() throws {
    let rows = try database.read { db in
      try RemindersList.group(by: \.id).leftJoin(Reminder.all) { $0.id.eq($1.remindersListID) }
        .order { list, _ in list.position }
        .select { ($0.title, $mode(priority: $1.priority), $median(values: $1.score)) }
        .fetchAll(db)
    }
    #expect(rows.map(\.0) == ["Home", "Work", "Empty"])
    #expect(rows.map(\.1) == [.high, .medium, nil])
    #expect(rows.map(\.2) == [2, 4.5, nil])
    // Over a whole table, through a non-optional column.
    #expect(try database.read { db in try Reminder.select { $median(values: $0.score) }.fetchOne(db) } == 4)
  }

  @Test("an aggregate of two columns, labeled as its element's members, with a filter")
  func aggregateOfSeveralColumns() throws {
    let perList = RemindersList.group(by: \.id).join(Reminder.all) { $0.id.eq($1.remindersListID) }
      .order { list, _ in list.position }
      .select { ($0.title, $joined($1.title, separator: " / ")) }
    let open = Reminder.order(by: \.title).select { $joined($0.title, separator: ", ", filter: !$0.isCompleted) }
    assertInlineSnapshot(of: try database.sqlAndRows(of: [perList, open]), as: .lines) {
      """
      SELECT "remindersLists"."title", "joined"("reminders"."title", ' / ')
      FROM "remindersLists"
      JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID")
      GROUP BY "remindersLists"."id"
      ORDER BY "remindersLists"."position"
        ("Home", Optional("Buy milk / Call mom / Water plants"))
        ("Work", Optional("Finish report / Book travel"))
      SELECT "joined"("reminders"."title", ', ') FILTER (WHERE NOT ("reminders"."isCompleted"))
      FROM "reminders"
      ORDER BY "reminders"."title"
        Optional("Buy milk, Call mom, Finish report, Book travel")
      """
    }
  }

  /// Upstream's aggregate back-pressure cases: every one of 5,000 rows
  /// reaches the function, groups keep their own values, a function that
  /// reads one value still ends, and no rows at all give the empty
  /// sequence's result.
  @Test("an aggregate over thousands of rows, per group, stopping early, and over no rows")
  func aggregatesOverManyRowsAndNone() throws {
    let x = #sql("x", as: Int.self)
    let (sum, first) = ($sumAll(x), $firstValue(x))
    let all = #sql("SELECT \(sum) FROM counted", as: Int.self)
    let perParity = #sql("SELECT \(sum) FROM counted GROUP BY x % 2 ORDER BY x % 2", as: Int.self)
    let firstOnly = #sql("SELECT \(first) FROM counted", as: Int?.self)
    let none = #sql("SELECT \(sum) FROM counted WHERE x < 0", as: Int.self)
    let results = try database.write { db in
      try db.execute(sql: "CREATE TEMP TABLE counted AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000) SELECT x FROM c")
      return (try all.fetchAll(db), try perParity.fetchAll(db), try firstOnly.fetchAll(db), try none.fetchAll(db))
    }
    let (evens, odds) = (stride(from: 2, through: 5000, by: 2).reduce(0, +), stride(from: 1, through: 4999, by: 2).reduce(0, +))
    #expect(results.0 == [5000 * 5001 / 2])
    #expect(results.1 == [evens, odds])
    #expect(results.2 == [1])
    #expect(results.3 == [0])
  }

  @Test("an aggregate's argument of the wrong type fails the statement with the function named; text results keep their length")
  func aggregateErrorsAndTextResults() throws {
    let text = #sql("'seven'", as: Int.self)
    let sum = $sumAll(text)
    let wrong = #sql("SELECT \(sum)", as: Int.self)
    let error = #expect(throws: DatabaseError.self) {
      _ = try database.read { db in try wrong.fetchAll(db) }
    }
    #expect(error?.message?.contains("sumAll") == true)
    let empty = Reminder.where { $0.title.eq("Buy milk") }.select { _ in $joined("", separator: "-") }
    let withNUL = Reminder.where { $0.title.eq("Buy milk") }.select { _ in $joined("a\u{0}b", separator: "-") }
    let results = try database.read { db in (try empty.fetchOne(db), try withNUL.fetchOne(db)) }
    #expect(results.0 == .some(""))
    #expect(results.1 == .some("a\u{0}b"))
  }

  @Test("instance methods: a struct's $name calls the value it was made from, a class's calls it while it lives")
  func instanceMethods() throws {
    let (double, triple) = (Weights(factor: 2), Weights(factor: 3))
    let log = MessageLog()
    let (sums, logged) = try database.write { db in
      db.add(function: triple.$weightedSum)
      db.add(function: double.$weighted)
      db.add(function: log.$log)
      let sums = try Reminder.order(by: \.title).select { _ in (triple.$weightedSum(#sql("1", as: Int.self)), double.$weighted(#sql("21", as: Int.self))) }
        .fetchOne(db)
      let logged = try Reminder.select { log.$log($0.title) }.fetchAll(db).count
      return (sums, logged)
    }
    #expect(sums?.0 == 15 && sums?.1 == 42)
    #expect(logged == 5)
    #expect(log.messages.withLock { $0 }.sorted() == ["Book travel", "Buy milk", "Call mom", "Finish report", "Water plants"])

    var released: MessageLog? = MessageLog()
    let registered = released!.$log
    released = nil
    let error = #expect(throws: DatabaseError.self) {
      try database.write { db in
        db.add(function: registered)
        _ = try Values(registered("late")).fetchAll(db)
      }
    }
    #expect(error?.message?.contains("was released") == true)
  }

  @Test("a scalar function of a row and a date, in WHERE; a static one in SELECT")
  func scalars() throws {
    let now = now
    let pastDue = try database.read { db in
      try Reminder.where { $isPastDue(reminder: $0, now: now) }.order(by: \.title).select { ($0.title, TextFunctions.$initials($0.title)) }.fetchAll(db)
    }
    #expect(pastDue.map(\.0) == ["Buy milk"] && pastDue.map(\.1) == ["Bm"])
  }

  @Test("an error the Swift function throws fails the statement with its description")
  func thrownError() throws {
    let error = #expect(throws: DatabaseError.self) {
      try database.read { db in try Reminder.select { TextFunctions.$initials($0.title.substr(1, 0)) }.fetchAll(db) }
    }
    #expect(error?.message?.contains("initials of an empty title") == true)
  }

  @Test("a value of the wrong type fails with the argument named, not a crash")
  func wrongArgumentType() throws {
    let error = #expect(throws: DatabaseError.self) {
      try database.read { db in try Reminder.select { _ in TextFunctions.$initials(SQLQueryExpression<String>(QueryFragment(sql: "x'00'"))) }.fetchAll(db) }
    }
    #expect(error?.message?.contains("argument 1") == true)
  }

  @Test("a write through a function-computed value is captured as its result")
  func capturedWrite() throws {
    try database.write { db in
      try Reminder.update { $0.title = TextFunctions.$initials($0.title) }.execute(db)
    }
    let titles = try database.read { db in try Reminder.order(by: \.title).select(\.title).fetchAll(db) }
    #expect(titles == ["Bm", "Bt", "Cm", "Fr", "Wp"])
    let replay = try database.replay(into: directory.path("replay.sqlite"))
    #expect(replay.digests == (try database.digests()))
  }

  @Test("a function that returns nothing is a trigger's statement; SQL reads NULL, Swift ()")
  func aFunctionReturningNothing() throws {
    let trigger = Reminder.createTemporaryTrigger(
      after: .update { $0.isCompleted } forEachRow: { _, new in
        Values($noteCompleted(title: new.title))
      } when: { old, new in !old.isCompleted && new.isCompleted })
    let direct = Values($noteCompleted(title: "direct"))
    let (results, nulls): ([Void], Int?) = try database.write { db in
      try trigger.execute(db)
      try Reminder.where { $0.title.in(["Buy milk", "Water plants"]) }.update { $0.isCompleted = true }.execute(db)
      return (try direct.fetchAll(db), try Int.fetchOne(db, sql: "SELECT count(*) WHERE noteCompleted('sql') IS NULL"))
    }
    #expect(results.count == 1 && nulls == 1)
    // Water plants was completed already: the trigger's condition left it out.
    #expect(completedTitles.withLock { $0 } == ["Buy milk", "direct", "sql"])
    assertInlineSnapshot(of: [trigger.query.description, direct.query.description].joined(separator: "\n"), as: .lines) {
      """
      CREATE TEMPORARY TRIGGER "after_update_on_reminders@ChronicleQueryTests/DatabaseFunctionTests.swift:214:50"
      AFTER UPDATE OF "isCompleted" ON "reminders"
      FOR EACH ROW WHEN (NOT ("old"."isCompleted") AND "new"."isCompleted") BEGIN
        SELECT "noteCompleted"("new"."title");
      END
      SELECT "noteCompleted"('direct')
      """
    }
  }
}
