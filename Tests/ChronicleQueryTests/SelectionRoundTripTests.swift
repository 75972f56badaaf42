import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

@Suite("Query builder: selections, column groups and #sql on a database")
struct SelectionRoundTripTests {
  let directory: URL
  let database: ChronicleDatabase
  let listID = UUID(uuidString: "00000000-0000-0000-0000-0000000000AA")!

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-selection-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    database = try Chronicle.open(path: directory.appendingPathComponent("app.sqlite").path)
    try database.write { db in
      try db.execute(sql: remindersSchema)
      try RemindersList.insert { RemindersList.Draft(id: listID, title: "Home") }.execute(db)
      try Reminder.insert {
        Reminder.Draft(remindersListID: listID, title: "Milk", priority: .high, score: 2)
        Reminder.Draft(remindersListID: listID, title: "Eggs", notes: "a dozen", score: 0.5)
      }.execute(db)
    }
  }

  @Test func tuplesAndSelectionsDecode() throws {
    try database.read { db in
      let rows = try Reminder.order(by: \.title).select { ($0.title, $0.priority, $0.score * 2) }.fetchAll(db)
      #expect(rows.map(\.0) == ["Eggs", "Milk"])
      #expect(rows.map(\.1) == [nil, .high])
      #expect(rows.map(\.2) == [1.0, 4.0])

      let upper = try Reminder.order(by: \.title).select { $0.title.upper() }.fetchAll(db)
      #expect(upper == ["EGGS", "MILK"])

      let withLength = try RemindersList.select { ($0, $0.title.length()) }.fetchOne(db)
      #expect(withLength?.0.title == "Home" && withLength?.1 == 4)

      let summaries = try Reminder.order(by: \.title).select {
        ReminderRow.Columns(title: $0.title.upper(), isUrgent: $0.priority == Reminder.Priority.high, notes: $0.notes, priority: $0.priority)
      }.fetchAll(db)
      #expect(summaries == [
        ReminderRow(title: "EGGS", isUrgent: false, notes: "a dozen", priority: nil),
        ReminderRow(title: "MILK", isUrgent: true, notes: nil, priority: .high),
      ])
    }
  }

  @Test func returningTuplesAfterWrites() throws {
    let (inserted, updated, deleted) = try database.write { db in
      let inserted = try Tag.insert { Tag(title: "home", useCount: 1); Tag(title: "work", useCount: 0) }
        .returning { ($0.title, $0.useCount) }.fetchAll(db)
      let updated = try Tag.where { $0.title == "home" }.update { $0.useCount += 10 }.returning { ($0.title, $0.useCount) }.fetchAll(db)
      let deleted = try Tag.where { $0.useCount == 0 }.delete().returning(\.title).fetchAll(db)
      return (inserted, updated, deleted)
    }
    #expect(inserted.map(\.0) == ["home", "work"] && inserted.map(\.1) == [1, 0])
    #expect(updated.map(\.0) == ["home"] && updated.map(\.1) == [11])
    #expect(deleted == ["work"])
  }

  @Test func columnGroupsRoundTripAndAreCaptured() throws {
    let created = Date(timeIntervalSince1970: 1_790_000_000.5)
    let edited = created.addingTimeInterval(60)
    let before = try database.log.events().count
    try database.write { db in
      try Note.insert {
        Note(id: 1, body: "first", timestamps: Timestamps(createdAt: created, updatedAt: nil))
        Note(id: 2, body: "second", timestamps: Timestamps(createdAt: edited, updatedAt: edited))
      }.execute(db)
      try Note.insert { Note.Draft(body: "third", timestamps: Timestamps(createdAt: edited)) }.execute(db)
      try Note.find(1).update {
        $0.timestamps = Timestamps.Columns(createdAt: Note.columns.timestamps.createdAt, updatedAt: Optional(edited))
      }.execute(db)
    }
    #expect(try database.log.events().count == before + 1)
    try database.read { db in
      let first = try Note.find(db, key: 1)
      #expect(first.timestamps == Timestamps(createdAt: created, updatedAt: edited))
      #expect(try Note.where { $0.timestamps.createdAt < edited }.select(\.body).fetchAll(db) == ["first"])
      #expect(try Note.where { $0.timestamps.updatedAt.is(nil) }.select(\.body).fetchAll(db) == ["third"])
      let groups = try Note.order(by: \.id).select { ($0.body, $0.timestamps) }.fetchAll(db)
      #expect(groups.map(\.1.createdAt) == [created, edited, edited])
      // A computed property of a group has no column: a clear error when run, not a crash.
      let error = #expect(throws: DatabaseError.self) { try Note.where { $0.timestamps.isEdited }.fetchAll(db) }
      #expect(error?.message?.contains("no such column: notes.a property of Timestamps that is not a column") == true, "\(String(describing: error))")
    }
    let replay = try database.replay(into: directory.appendingPathComponent("replay.sqlite").path)
    #expect(replay.digests == (try database.digests()))
  }

  @Test func sqlRunsAsExpressionAndStatement() throws {
    let minimum = 1.0
    try database.write { db in
      try #sql("UPDATE \(Reminder.self) SET \(quote: "notes") = \("checked") WHERE \(Reminder.columns.score) > \(minimum)").execute(db)
    }
    try database.read { db in
      #expect(try Reminder.where { #sql("\($0.notes) = \("checked")") }.select(\.title).fetchAll(db) == ["Milk"])
      let fetched = try #sql("SELECT \(Reminder.columns) FROM \(Reminder.self) ORDER BY \(Reminder.columns.title)", as: Reminder.self).fetchAll(db)
      #expect(fetched.map(\.title) == ["Eggs", "Milk"])
      #expect(try #sql("SELECT count(*) FROM \(Reminder.self)", as: Int.self).fetchOne(db) == 2)
      // A value that is not QueryDecodable cannot be fetched; the error says what to pass.
      #expect(throws: QueryDecodingError.self) { try #sql("SELECT 1", as: [Int].self).fetchAll(db) }
    }
  }

  /// A select interpolated into `#sql` is inlined bare, as upstream: in
  /// upstream's `IN (\(subquery))` every row of the subquery counts (with
  /// the parentheses Chronicle used to add, only the first did).
  @Test func aSelectInterpolatedIntoSQLIsASubqueryOfEveryRow() throws {
    let scored = Reminder.where { $0.score > 0 }.select(\.title)
    let averageScore = Reminder.select { $0.score.avg() }
    let inScored = Reminder.where { #sql("\($0.title) IN (\(scored))") }.order(by: \.title).select(\.title)
    let aboveAverage = Reminder.where { #sql("\($0.score) >= (\(averageScore))") }.select(\.title)
    let (sql, titles, above) = try database.read { db in
      (inScored.query.description, try inScored.fetchAll(db), try aboveAverage.fetchAll(db))
    }
    assertInlineSnapshot(of: ([sql] + titles + ["above average:"] + above).joined(separator: "\n"), as: .lines) {
      """
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE "reminders"."title" IN (
        SELECT "reminders"."title"
        FROM "reminders"
        WHERE ("reminders"."score" > 0.0)
      )
      ORDER BY "reminders"."title"
      Eggs
      Milk
      above average:
      Milk
      """
    }
  }
  /// Hand-written SQL names columns through the table type, as upstream
  /// writes it (`RemindersList.id` is `RemindersList.columns.id`), and reads
  /// a selection holding a whole row.
  @Test func handWrittenSQLNamesColumnsThroughTheTableType() throws {
    let selection = ListWithCount.Columns(remindersList: RemindersList.columns, remindersCount: Reminder.columns.count())
    let query = #sql(
      """
      SELECT \(selection) FROM \(RemindersList.self)
      JOIN \(Reminder.self) ON \(RemindersList.id) = \(Reminder.remindersListID)
      GROUP BY \(RemindersList.id)
      """, as: ListWithCount.self)
    let rows = try database.read { db in try query.fetchAll(db) }
    assertInlineSnapshot(of: ([query.query.description] + rows.map { "\($0)" }).joined(separator: "\n"), as: .lines) {
      """
      SELECT "remindersLists"."id", "remindersLists"."title", "remindersLists"."position", count("reminders"."id")
      FROM "remindersLists"

      JOIN "reminders" ON "remindersLists"."id" = "reminders"."remindersListID"

      GROUP BY "remindersLists"."id"
      ListWithCount(remindersList: ChronicleQueryTests.RemindersList(id: 00000000-0000-0000-0000-0000000000AA, title: "Home", position: 0), remindersCount: 2)
      """
    }
  }
}

@Selection
struct ListWithCount: Equatable {
  let remindersList: RemindersList
  let remindersCount: Int
}
