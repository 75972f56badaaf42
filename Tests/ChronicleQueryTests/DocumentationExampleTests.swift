import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

import ChronicleTestSupport

/// Every example of ChronicleQuery's DocC articles, compiled and run here,
/// with the SQL each renders. `articleExamplesAreCompiledHere` checks that
/// each Swift block of the articles appears in this file, so an article and
/// its test cannot drift apart. Each block sits inside a `do { }` exactly as
/// the article shows it.
@DatabaseCollation
func shortestFirst(_ lhs: String, _ rhs: String) -> CollationOrder {
  let order = CollationOrder(lhs.count, rhs.count)
  return order == .same ? CollationOrder(lhs, rhs) : order
}

@Suite("Query builder: the documentation's examples")
struct DocumentationExampleTests {
  let listID = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!

  @Test func definingTables() throws {
    let fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: """
        CREATE TABLE "bookmarks" (
          "id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL DEFAULT '', "color" INTEGER NOT NULL,
          "createdAt" INTEGER NOT NULL, "tags" TEXT NOT NULL DEFAULT '[]'
        ) STRICT
        """)
      try Bookmark.insert { Bookmark.Draft(title: "Swift", createdAt: Date(timeIntervalSince1970: 0), tags: ["lang"]) }.execute(db)
    }
    let bookmark = try fixture.database.read { db in try Bookmark.find(1).fetchOne(db) }
    #expect(bookmark?.color == Bookmark.defaultColor && bookmark?.tags == ["lang"])
  }

  @Test func tableValuedFunctions() throws {
    let fixture = try RemindersDatabase()
    let keys = ColumnInfo<Reminder>.where(\.isPrimaryKey).select(\.name)
    assertInlineSnapshot(of: try fixture.database.sqlAndRows(keys), as: .lines) {
      """
      SELECT "remindersColumns"."name"
      FROM pragma_table_info('reminders') AS "remindersColumns"
      WHERE "remindersColumns"."pk"
      id
      """
    }
  }

  @Test func typesOfYourOwn() throws {
    let fixture = try RemindersDatabase()
    let color = try fixture.database.read { db in try Values(RGBColor(hex: 0x4A90E2)).fetchOne(db) }
    #expect(color?.hex == 0x4A90E2)
    #expect(Values(RGBColor(hex: 0x4A90E2)).query.description == "SELECT 4886754")
  }

  @Test func keysOfSeveralColumnsAndRowsThatAreCases() throws {
    let fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: """
        CREATE TABLE "syncRecords" (
          "recordID" TEXT NOT NULL, "recordType" TEXT NOT NULL, "modifiedAt" INTEGER NOT NULL, PRIMARY KEY ("recordID", "recordType")
        ) STRICT;
        CREATE TABLE "posts" ("link" TEXT, "note" TEXT);
        INSERT INTO "syncRecords" VALUES ('a1', 'reminders', 1), ('a1', 'lists', 2);
        """)
    }
    var sql: [String] = []
    var rows: [String] = []
    do {
      let record = SyncRecord.find(RecordKey(recordID: "a1", recordType: "reminders"))
      sql.append(record.query.description)
      rows += try fixture.database.read { db in try record.fetchAll(db).map { "\($0.id.recordType) \($0.modifiedAt)" } }
    }
    do {
      let hello = Post.insert { Post.note("Hello") }
      sql.append(hello.query.description)
      rows += try fixture.database.write { db in
        try hello.execute(db)
        return try Post.all.fetchAll(db).map { "\($0)" }
      }
    }
    assertInlineSnapshot(of: (sql + rows).joined(separator: "\n"), as: .lines) {
      """
      SELECT "syncRecords"."recordID", "syncRecords"."recordType", "syncRecords"."modifiedAt"
      FROM "syncRecords"
      WHERE (("syncRecords"."recordID", "syncRecords"."recordType") IN (('a1', 'reminders')))
      INSERT INTO "posts"
      ("link", "note")
      VALUES
      (NULL, 'Hello')
      reminders 1
      note("Hello")
      """
    }
  }

  @Test func selecting() throws {
    var sql: [String] = []
    do {
      let open = Reminder.where { !$0.isCompleted }.order(by: \.title).limit(10)
      let titles = Reminder.where { $0.priority == Reminder.Priority.high }.select(\.title)
      let perState = Reminder.group(by: \.isCompleted).select { ($0.isCompleted, $0.count()) }
      let countFirst = perState.map { isCompleted, count in (count, !isCompleted) }
      sql += [open.query.description, titles.query.description, perState.query.description, countFirst.query.description]
    }
    do {
      let search = Reminder.where {
        if let text = Optional("milk") { $0.title.contains(text) }
        $0.score > 2
      }
      sql.append(search.query.description)
    }
    assertInlineSnapshot(of: sql.joined(separator: "\n"), as: .lines) {
      #"""
      SELECT "reminders"."id", "reminders"."remindersListID", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."dueDate", "reminders"."score"
      FROM "reminders"
      WHERE NOT ("reminders"."isCompleted")
      ORDER BY "reminders"."title"
      LIMIT 10
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."priority" IS 3)
      SELECT "reminders"."isCompleted", count("reminders"."id")
      FROM "reminders"
      GROUP BY "reminders"."isCompleted"
      SELECT count("reminders"."id"), NOT ("reminders"."isCompleted")
      FROM "reminders"
      GROUP BY "reminders"."isCompleted"
      SELECT "reminders"."id", "reminders"."remindersListID", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."dueDate", "reminders"."score"
      FROM "reminders"
      WHERE ("reminders"."title" LIKE '%milk%' ESCAPE '\') AND ("reminders"."score" > 2.0)
      """#
    }
  }

  @Test func selectingLaidOut() {
    do {
      let tagged = Reminder.where { $0.title.in(Tag.where { $0.useCount > 1 }.select(\.title)) }
        .join(RemindersList.all) { $0.remindersListID.eq($1.id) }
        .order { reminder, list in (list.title, reminder.title) }
        .limit(5, offset: 10)
        .select { reminder, list in (reminder.title, list.title) }
      let sql = "\(tagged.query)"
      assertInlineSnapshot(of: sql, as: .lines) {
        """
        SELECT "reminders"."title", "remindersLists"."title"
        FROM "reminders"
        JOIN "remindersLists" ON ("reminders"."remindersListID" = "remindersLists"."id")
        WHERE ("reminders"."title" IN (
          SELECT "tags"."title"
          FROM "tags"
          WHERE ("tags"."uses" > 1)
        ))
        ORDER BY "remindersLists"."title", "reminders"."title"
        LIMIT 5 OFFSET 10
        """
      }
    }
  }

  @Test func selectingRowsGivenInSwift() throws {
    let fixture = try RemindersDatabase()
    let home = Values(Tag(title: "home", useCount: 2))
    let none = Values(Tag?.none)
    let rows = try fixture.database.read { db in [try home.fetchOne(db), try none.fetchOne(db) ?? nil] }
    assertInlineSnapshot(of: [home.query.description, none.query.description, "\(rows)"].joined(separator: "\n"), as: .lines) {
      """
      SELECT 'home' AS "title", 2 AS "uses"
      SELECT NULL AS "title", NULL AS "uses"
      [Optional(ChronicleQueryTests.Tag(title: "home", useCount: 2)), nil]
      """
    }
  }

  @Test func selectingWithOperators() throws {
    let fixture = try RemindersDatabase()
    let ranked = Tag.where { 2 < $0.useCount }.order { $0.title.collate(.nocase) }.select { "#" + $0.title }
    let aboveAverage = Tag.where { $0.useCount.cast() > Tag.select { $0.useCount.avg() ?? 0 } }
    let wildcard = Tag.where { $0.title.glob("ho*") }
    let sameTimes = Note.where { $0.timestamps == Timestamps(createdAt: Date(timeIntervalSince1970: 0), updatedAt: nil) }
    try fixture.database.write { db in
      try Tag.insert { Tag(title: "home", useCount: 3); Tag(title: "Errands", useCount: 5); Tag(title: "work", useCount: 1) }.execute(db)
      try Note.insert { Note(id: 1, body: "", timestamps: Timestamps(createdAt: Date(timeIntervalSince1970: 0), updatedAt: nil)) }.execute(db)
    }
    let results = try fixture.database.read { db in
      [
        try ranked.fetchAll(db).joined(separator: ", "), try aboveAverage.fetchAll(db).map(\.title).joined(separator: ", "),
        try wildcard.fetchAll(db).map(\.title).joined(separator: ", "), "\(try sameTimes.fetchCount(db))",
      ]
    }
    #expect(results == ["#Errands, #home", "Errands", "home", "1"])
    assertInlineSnapshot(of: [ranked.query, aboveAverage.query, wildcard.query, sameTimes.query].map(\.description).joined(separator: "\n"), as: .lines) {
      """
      SELECT ('#' || "tags"."title")
      FROM "tags"
      WHERE (2 < "tags"."uses")
      ORDER BY "tags"."title" COLLATE "NOCASE"
      SELECT "tags"."title", "tags"."uses"
      FROM "tags"
      WHERE (CAST("tags"."uses" AS REAL) > (
        SELECT coalesce(avg("tags"."uses"), 0.0)
        FROM "tags"
      ))
      SELECT "tags"."title", "tags"."uses"
      FROM "tags"
      WHERE ("tags"."title" GLOB 'ho*')
      SELECT "notes"."id", "notes"."body", "notes"."createdAt", "notes"."updatedAt"
      FROM "notes"
      WHERE (("notes"."createdAt", "notes"."updatedAt") IS ('1970-01-01 00:00:00.000', NULL))
      """
    }
  }

  @Test func inserting() throws {
    let fixture = try RemindersDatabase()
    let listID = listID
    var sql: [String] = []
    do {
      let list = RemindersList.insert { RemindersList(id: listID, title: "Home", position: 1) }
      let reminder = Reminder.insert { Reminder.Draft(remindersListID: listID, title: "Milk") }
        .returning(\.id)
      let tags = Tag.insert { ($0.title, $0.useCount) } values: { ("home", 0); ("work", 0) }
      let upsert = Tag.insert { Tag(title: "home", useCount: 1) } onConflict: { $0.title } doUpdate: { row, excluded in
        row.useCount = row.useCount + excluded.useCount
      }
      sql += [list.query.description, reminder.query.description, tags.query.description, upsert.query.description]
      try fixture.database.write { db in
        try list.execute(db)
        _ = try reminder.fetchOne(db)
        try tags.execute(db)
        try upsert.execute(db)
      }
    }
    let uses = try fixture.database.read { db in try Tag.order(by: \.title).select { ($0.title, $0.useCount) }.fetchAll(db) }
    #expect(uses.map(\.0) == ["home", "work"] && uses.map(\.1) == [1, 0])
    assertInlineSnapshot(of: sql.joined(separator: "\n"), as: .lines) {
      """
      INSERT INTO "remindersLists"
      ("id", "title", "position")
      VALUES
      ('00000000-0000-0000-0000-000000000001', 'Home', 1)
      INSERT INTO "reminders"
      ("remindersListID", "title", "notes", "isCompleted", "priority", "dueDate", "score")
      VALUES
      ('00000000-0000-0000-0000-000000000001', 'Milk', NULL, 0, NULL, NULL, 0.0)
      RETURNING "id"
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('home', 0), ('work', 0)
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('home', 1)
      ON CONFLICT ("title")
      DO UPDATE SET "uses" = ("tags"."uses" + "excluded"."uses")
      """
    }
  }

  @Test func insertingUpserts() throws {
    let fixture = try RemindersDatabase()
    let counted = Tag.insert { Tag(title: "home", useCount: 1) } onConflictDoUpdate: { $0.useCount += 1 }
    let newer = Tag.insert { Tag(title: "home", useCount: 5) } onConflictDoUpdate: { row, excluded in
      row.useCount = excluded.useCount
    } where: { row, excluded in
      excluded.useCount > row.useCount
    }
    let computed = Tag.insert { ($0.title, $0.useCount) } values: {
      ("work", 1)
      (#sql("upper('errands')"), #sql("length('four')"))
    }
    let whole = Tag.insert { Tag.Columns(title: "garden".upper(), useCount: 2 * 3) }
    try fixture.database.write { db in
      for statement in [counted, counted, newer, computed, whole] { try statement.execute(db) }
    }
    let uses = try fixture.database.read { db in try Tag.order(by: \.title).select { ($0.title, $0.useCount) }.fetchAll(db) }
    #expect(uses.map { "\($0.0)=\($0.1)" } == ["ERRANDS=4", "GARDEN=6", "home=5", "work=1"])
    assertInlineSnapshot(of: [counted, newer, computed, whole].map(\.query.description).joined(separator: "\n"), as: .lines) {
      """
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('home', 1)
      ON CONFLICT DO UPDATE SET "uses" = ("tags"."uses" + 1)
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('home', 5)
      ON CONFLICT DO UPDATE SET "uses" = "excluded"."uses"
      WHERE ("excluded"."uses" > "tags"."uses")
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('work', 1), (upper('errands'), length('four'))
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      (upper('garden'), 6)
      """
    }
  }

  @Test func updating() throws {
    var sql: [String] = []
    do {
      let finish = Reminder.where { $0.title.eq("Milk") }.update {
        $0.isCompleted.toggle()
        $0.title.append("!")
        $0.priority = .low
        $0.score = $0.score * 2
      }
      sql.append(finish.query.description)
    }
    do {
      let edit = Note.find(1).update {
        $0.timestamps.updatedAt = Date(timeIntervalSince1970: 60)
        $0.body += "!"
      }
      let due = Reminder.update {
        $0.dueDate = Case().when($0.priority == Reminder.Priority.high, then: Date(timeIntervalSince1970: 0))
      }
      sql += [edit.query.description, due.query.description]
    }
    assertInlineSnapshot(of: sql.joined(separator: "\n"), as: .lines) {
      """
      UPDATE "reminders"
      SET "isCompleted" = NOT ("reminders"."isCompleted"), "title" = ("reminders"."title" || '!'), "priority" = 1, "score" = ("reminders"."score" * 2.0)
      WHERE ("reminders"."title" = 'Milk')
      UPDATE "notes"
      SET "updatedAt" = '1970-01-01 00:01:00.000', "body" = ("notes"."body" || '!')
      WHERE ("notes"."id" IN (1))
      UPDATE "reminders"
      SET "dueDate" = CASE WHEN ("reminders"."priority" IS 3) THEN '1970-01-01 00:00:00.000' END
      """
    }
  }

  @Test func deleting() throws {
    var sql: [String] = []
    do {
      let done = Reminder.where(\.isCompleted).delete().returning(\.title)
      let one = Reminder.delete().where { $0.score < 0 }
      sql += [done.query.description, one.query.description]
    }
    assertInlineSnapshot(of: sql.joined(separator: "\n"), as: .lines) {
      """
      DELETE FROM "reminders"
      WHERE "reminders"."isCompleted"
      RETURNING "title"
      DELETE FROM "reminders"
      WHERE ("reminders"."score" < 0.0)
      """
    }
  }

  @Test func joining() throws {
    var sql: [String] = []
    do {
      let withLists = Reminder.join(RemindersList.all) { $0.remindersListID.eq($1.id) }
        .select { ($0.title, $1.title) }
      let tagCounts = Reminder.group(by: \.id)
        .leftJoin(ReminderTag.all) { $0.id.eq($1.reminderID) }
        .select { reminder, tag in (reminder.title, tag.count()) }
      sql += [withLists.query.description, tagCounts.query.description]
    }
    do {
      enum Manager: AliasName {}
      let bosses = Employee.leftJoin(Employee.as(Manager.self).all) { $0.managerID.eq($1.id) }
        .select { employee, manager in (employee.name, manager.name) }
      sql.append(bosses.query.description)
    }
    assertInlineSnapshot(of: sql.joined(separator: "\n"), as: .lines) {
      """
      SELECT "reminders"."title", "remindersLists"."title"
      FROM "reminders"
      JOIN "remindersLists" ON ("reminders"."remindersListID" = "remindersLists"."id")
      SELECT "reminders"."title", count("reminderTags"."id")
      FROM "reminders"
      LEFT JOIN "reminderTags" ON ("reminders"."id" = "reminderTags"."reminderID")
      GROUP BY "reminders"."id"
      SELECT "employees"."name", "managers"."name"
      FROM "employees"
      LEFT JOIN "employees" AS "managers" ON ("employees"."managerID" = "managers"."id")
      """
    }
  }

  @Test func commonTables() throws {
    var sql: [String] = []
    do {
      let thread = With {
        Comment.where { $0.parentID.is(nil) }.select { CommentThread.Columns(id: $0.id, body: $0.body, depth: 0) }
      } recursiveUnionAll: { thread in
        Comment.join(thread) { $0.parentID.eq($1.id) }
          .select { CommentThread.Columns(id: $0.id, body: $0.body, depth: $1.depth + 1) }
      } query: { thread in
        thread.order { ($0.depth, $0.id) }
      }
      sql.append(thread.query.description)
    }
    assertInlineSnapshot(of: sql.joined(separator: "\n"), as: .lines) {
      """
      WITH RECURSIVE "commentThreads"("id", "body", "depth") AS (
        SELECT "comments"."id" AS "id", "comments"."body" AS "body", 0 AS "depth"
        FROM "comments"
        WHERE ("comments"."parentID" IS NULL)
        UNION ALL
        SELECT "comments"."id" AS "id", "comments"."body" AS "body", ("commentThreads"."depth" + 1) AS "depth"
        FROM "comments"
        JOIN "commentThreads" ON ("comments"."parentID" = "commentThreads"."id")
      )
      SELECT "commentThreads"."id", "commentThreads"."body", "commentThreads"."depth"
      FROM "commentThreads"
      ORDER BY "commentThreads"."depth", "commentThreads"."id"
      """
    }
  }

  @Test func triggersAndViews() throws {
    var sql: [String] = []
    do {
      let nextPosition = RemindersList.createTemporaryTrigger(
        "next_position",
        after: .insert { new in
          RemindersList.find(new.id).update { $0.position = RemindersList.select { ($0.position.max() ?? -1) + 1 } }
        })
      sql.append(nextPosition.query.description)
    }
    do {
      let view = ReminderWithList.createTemporaryView(
        as: Reminder.join(RemindersList.all) { $0.remindersListID.eq($1.id) }
          .select { ReminderWithList.Columns(reminderTitle: $0.title, remindersListTitle: $1.title) })
      sql.append(view.query.description)
    }
    assertInlineSnapshot(of: sql.joined(separator: "\n"), as: .lines) {
      """
      CREATE TEMPORARY TRIGGER "next_position"
      AFTER INSERT ON "remindersLists"
      FOR EACH ROW BEGIN
        UPDATE "remindersLists"
        SET "position" = (
          SELECT (coalesce(max("remindersLists"."position"), -1) + 1)
          FROM "remindersLists"
        )
        WHERE ("remindersLists"."id" IN ("new"."id"));
      END
      CREATE TEMPORARY VIEW "reminderWithLists" ("reminderTitle", "remindersListTitle") AS
      SELECT "reminders"."title" AS "reminderTitle", "remindersLists"."title" AS "remindersListTitle"
      FROM "reminders"
      JOIN "remindersLists" ON ("reminders"."remindersListID" = "remindersLists"."id")
      """
    }
  }

  @Test func fullTextSearch() throws {
    var sql: [String] = []
    do {
      let found = ReminderText.where { $0.match("milk") }
        .order { $0.bm25([\.title: 10, \.notes: 1]) }
        .select { ($0.rowid, $0.title.highlight("<b>", "</b>")) }
      sql.append(found.query.description)
    }
    assertInlineSnapshot(of: sql.joined(separator: "\n"), as: .lines) {
      """
      SELECT "reminderTexts"."rowid", highlight("reminderTexts", 0, '<b>', '</b>')
      FROM "reminderTexts"
      WHERE ("reminderTexts" MATCH 'milk')
      ORDER BY bm25("reminderTexts", 10.0, 1.0, 1.0)
      """
    }
  }

  @Test func functions() throws {
    var sql: [String] = []
    do {
      let shown = Reminder.select { ($0.title.upper(), $0.notes ?? "", $0.score.round(1), $0.title.length()) }
      let stats = Reminder.select { ($0.score.avg(), $0.title.groupConcat(", "), $0.title.jsonGroupArray()) }
      sql += [shown.query.description, stats.query.description]
    }
    assertInlineSnapshot(of: sql.joined(separator: "\n"), as: .lines) {
      """
      SELECT upper("reminders"."title"), coalesce("reminders"."notes", ''), round("reminders"."score", 1), length("reminders"."title")
      FROM "reminders"
      SELECT avg("reminders"."score"), group_concat("reminders"."title", ', '), json_group_array("reminders"."title")
      FROM "reminders"
      """
    }
  }

  @Test func jsonValues() throws {
    let fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: "CREATE TABLE trips (id INTEGER PRIMARY KEY, title TEXT NOT NULL, geofence TEXT NOT NULL) STRICT")
      try Trip.insert {
        Trip.Draft(title: "North", geofence: [Coordinate(latitude: 51.5, label: "London")])
        Trip.Draft(title: "South", geofence: [Coordinate(latitude: 51.5, label: "London"), Coordinate(latitude: -33.9, label: "Sydney")])
      }.execute(db)
    }
    var sql: [String] = []
    var rows: [String] = []
    do {
      let southern = Trip.where { $0.geofence.jsonEach().where { $0.value.jsonExtract(\.latitude) < 0 }.exists() }.select(\.title)
      let stops = Trip.join(Trip.columns.geofence.jsonEach()) { _, _ in true }.select { ($0.title, $1.value.jsonExtract(\.label)) }
      sql += [southern.query.description, stops.query.description]
      rows = try fixture.database.read { db in try southern.fetchAll(db) + stops.fetchAll(db).map { "\($0) \($1)" } }
    }
    assertInlineSnapshot(of: (sql + rows).joined(separator: "\n"), as: .lines) {
      """
      SELECT "trips"."title"
      FROM "trips"
      WHERE (EXISTS (
        SELECT "json_each"."key", "json_each"."value"
        FROM json_each("trips"."geofence")
        WHERE (json_extract("json_each"."value", '$."latitude"') < 0.0)
      ))
      SELECT "trips"."title", json_extract("json_each"."value", '$."label"')
      FROM "trips"
      JOIN json_each("trips"."geofence") ON 1
      South
      North London
      South London
      South Sydney
      """
    }
  }

  @Test func jsonPathsAndEdits() throws {
    let fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: "CREATE TABLE trips (id INTEGER PRIMARY KEY, title TEXT NOT NULL, geofence TEXT NOT NULL) STRICT")
      try Trip.insert {
        Trip.Draft(title: "North", geofence: [Coordinate(latitude: 51.5, label: "London")])
        Trip.Draft(title: "South", geofence: [])
      }.execute(db)
    }
    let firstStops = Trip.select { $0.geofence.jsonExtract(\.[0].label) }
    let renamed = Trip.where { $0.title.eq("North") }.update {
      $0.geofence = $0.geofence.jsonSet(\.[0].label, "Home").jsonSet(\.[0].latitude, 51.6)
        .jsonAppend(Coordinate(latitude: 48.9, label: "Paris"))
    }
    let (before, after) = try fixture.database.write { db in
      let before = try firstStops.fetchAll(db)
      try renamed.execute(db)
      return (before, try Trip.order(by: \.id).select(\.geofence).fetchAll(db))
    }
    assertInlineSnapshot(of: [firstStops.query.description, renamed.query.description, "\(before)", "\(after)"].joined(separator: "\n"), as: .lines) {
      """
      SELECT json_extract("trips"."geofence", '$[0]."label"')
      FROM "trips"
      UPDATE "trips"
      SET "geofence" = json_insert(json_set("trips"."geofence", '$[0]."label"', 'Home', '$[0]."latitude"', 51.6), '$[#]', json('{"label":"Paris","latitude":48.9}'))
      WHERE ("trips"."title" = 'North')
      [Optional("London"), nil]
      [[ChronicleQueryTests.Coordinate(latitude: 51.6, label: "Home"), ChronicleQueryTests.Coordinate(latitude: 48.9, label: "Paris")], []]
      """
    }
  }

  @Test func collations() throws {
    let directory = try TemporaryDirectory()
    var sql: [String] = []
    var titles: [String] = []
    do {
      var configuration = ChronicleConfiguration()
      configuration.database.prepareDatabase { db in db.add(collation: $shortestFirst) }
      let byLength = Reminder.select(\.title).order { $0.title.collate($shortestFirst) }
      let database = try Chronicle.open(path: directory.path("collations.sqlite"), configuration: configuration)
      try database.write { db in
        try db.execute(sql: remindersSchema)
        try RemindersList.insert { RemindersList(id: listID, title: "Errands", position: 1) }.execute(db)
        try Reminder.insert {
          Reminder.Draft(remindersListID: listID, title: "Walk")
          Reminder.Draft(remindersListID: listID, title: "Buy milk")
          Reminder.Draft(remindersListID: listID, title: "Call")
        }.execute(db)
      }
      sql.append(byLength.query.description)
      titles = try database.read { db in try byLength.fetchAll(db) }
    }
    assertInlineSnapshot(of: ([sql[0]] + titles).joined(separator: "\n"), as: .lines) {
      """
      SELECT "reminders"."title"
      FROM "reminders"
      ORDER BY "reminders"."title" COLLATE "shortestFirst"
      Call
      Walk
      Buy milk
      """
    }
  }

  /// Each Swift block of the articles, whitespace aside, is text of this file.
  @Test func articleExamplesAreCompiledHere() throws {
    let here = URL(fileURLWithPath: #filePath)
    let catalog = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Sources/ChronicleQuery/ChronicleQuery.docc")
    let source = Self.normalized(try String(contentsOf: here, encoding: .utf8))
    let articles = try FileManager.default.contentsOfDirectory(atPath: catalog.path).filter { $0.hasSuffix(".md") }
    #expect(articles.count >= 10, "\(articles)")
    var blocks = 0
    for article in articles {
      let text = try String(contentsOf: catalog.appendingPathComponent(article), encoding: .utf8)
      for block in Self.swiftBlocks(in: text) {
        blocks += 1
        // SQL comments show what the tests' snapshots record; the code must be here.
        let code = block.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
        #expect(source.contains(Self.normalized(code)), "\(article): this example is not in DocumentationExampleTests.swift:\n\(block)")
      }
    }
    #expect(blocks >= 10)
  }

  static func swiftBlocks(in text: String) -> [String] {
    var blocks: [String] = [], current: [Substring]?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
        current = []
      } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
        blocks.append(current!.joined(separator: "\n"))
        current = nil
      } else {
        current?.append(line)
      }
    }
    return blocks
  }

  static func normalized(_ text: String) -> String {
    text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
  }
}

/// The columns of `Base`'s table, as `pragma_table_info` lists them: a
/// generic `@Table` over a table-valued function (the Defining tables
/// article).
@Table
struct ColumnInfo<Base: Table> {
  static var tableAlias: String? { "\(Base.tableName)Columns" }
  static var tableFragment: QueryFragment {
    "pragma_table_info(\(quote: Base.tableName, delimiter: .text))"
  }

  @Column("cid") let position: Int
  let name: String
  let type: String
  @Column("notnull") let isNotNull: Bool
  @Column("dflt_value") let defaultValue: String?
  @Column("pk") let isPrimaryKey: Bool
}

/// A key of two columns (the Defining tables article).
@Selection
struct RecordKey: Hashable {
  let recordID: String
  let recordType: String
}

@Table
struct SyncRecord {
  let id: RecordKey
  var modifiedAt: Int
}

/// A table whose rows are cases (the Defining tables article).
@Table
enum Post {
  case link(String)
  case note(String)
}

/// A trip and its stops, kept as JSON (the Functions article's JSON values).
struct Coordinate: Codable, Sendable {
  var latitude: Double
  var label: String
}

@Table
struct Trip {
  let id: Int
  var title: String
  @Column(as: [Coordinate].JSONRepresentation.self)
  var geofence: [Coordinate]
}

struct RGBColor: QueryBindable {
  var hex: Int
  var queryBinding: QueryBinding { .int(Int64(hex)) }
  init(hex: Int) { self.hex = hex }
  init(decoder: inout some QueryDecoder) throws {
    self.init(hex: try Int(decoder: &decoder))
  }
}

@Table
struct Bookmark {
  static let defaultColor = 0x4A90E2

  let id: Int
  var title = ""
  var color = Self.defaultColor
  @Column(as: Date.UnixTimeRepresentation.self) var createdAt: Date
  @Column(as: [String].JSONRepresentation.self) var tags: [String] = []
  @Ephemeral var isSelected = false
}
