import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

import ChronicleTestSupport

/// Joins, grouping, CASE, compound selects and common tables on a real
/// Chronicle database: what SQLite returns decodes into the types the
/// builder promised (an outer join's missing side as nil).
@Suite("Query builder: joins, aggregates and common tables on a database")
struct JoinRoundTripTests {
  let directory: TemporaryDirectory
  let database: ChronicleDatabase
  let home = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
  let work = UUID(uuidString: "00000000-0000-0000-0000-000000000002")!
  let empty = UUID(uuidString: "00000000-0000-0000-0000-000000000003")!
  let milk = UUID(uuidString: "00000000-0000-0000-0000-0000000000a1")!
  let eggs = UUID(uuidString: "00000000-0000-0000-0000-0000000000a2")!
  let report = UUID(uuidString: "00000000-0000-0000-0000-0000000000a3")!

  init() throws {
    directory = try TemporaryDirectory()
    database = try Chronicle.open(path: directory.path("app.sqlite"))
    try database.write { db in
      try db.execute(sql: remindersSchema + joinsSchema)
      try RemindersList.insert {
        RemindersList(id: home, title: "Home", position: 1)
        RemindersList(id: work, title: "Work", position: 2)
        RemindersList(id: empty, title: "Empty", position: 3)
      }.execute(db)
      try Reminder.insert {
        Reminder(id: milk, remindersListID: home, title: "Milk", isCompleted: true, priority: .low, score: 2)
        Reminder(id: eggs, remindersListID: home, title: "Eggs", priority: .high, score: 4)
        Reminder(id: report, remindersListID: work, title: "Report", score: 9)
      }.execute(db)
      try Tag.insert {
        Tag(title: "food", useCount: 2)
        Tag(title: "urgent", useCount: 1)
        Tag(title: "unused", useCount: 0)
      }.execute(db)
      try ReminderTag.insert {
        ReminderTag(id: 1, reminderID: milk, tagTitle: "food")
        ReminderTag(id: 2, reminderID: eggs, tagTitle: "food")
        ReminderTag(id: 3, reminderID: eggs, tagTitle: "urgent")
      }.execute(db)
    }
  }

  @Test func outerJoinsDecodeTheMissingSideAsNil() throws {
    try database.read { db in
      let inner = try Reminder.join(RemindersList.all) { $0.remindersListID.eq($1.id) }.order { r, _ in r.title }.fetchAll(db)
      #expect(inner.map { "\($0.0.title)@\($0.1.title)" } == ["Eggs@Home", "Milk@Home", "Report@Work"])

      let lists = try RemindersList.leftJoin(Reminder.all) { $0.id.eq($1.remindersListID) }
        .order { list, reminder in (list.position, reminder.title) }.fetchAll(db)
      #expect(lists.map { "\($0.0.title):\($0.1?.title ?? "-")" } == ["Home:Eggs", "Home:Milk", "Work:Report", "Empty:-"])

      let right = try Reminder.rightJoin(RemindersList.all) { $0.remindersListID.eq($1.id) }
        .order { reminder, list in (list.position, reminder.title) }
        .select { reminder, list in (reminder.title, list.title) }.fetchAll(db)
      #expect(right.map { "\($0.0 ?? "-")@\($0.1)" } == ["Eggs@Home", "Milk@Home", "Report@Work", "-@Empty"])

      let full = try Tag.fullJoin(ReminderTag.all) { $0.title.eq($1.tagTitle) }.fetchAll(db)
      #expect(full.count == 4 && full.filter { $0.1 == nil }.map { $0.0?.title } == ["unused"])
    }
  }

  /// The nullable side's Bool, number and text columns in logic,
  /// arithmetic and text predicates, with SQL's three values: the Empty
  /// list's NULL reminder passes `NOT … OR …` only where the other side
  /// decides it, and every value computed from it is NULL.
  @Test func logicAndTextOnTheNullableSide() throws {
    let notDone = RemindersList.leftJoin(Reminder.all) { $0.id.eq($1.remindersListID) }
      .where { _, reminder in !reminder.isCompleted && reminder.title.hasPrefix("e") }
      .select { list, reminder in (list.title, reminder.title) }
    let loose = RemindersList.leftJoin(Reminder.all) { $0.id.eq($1.remindersListID) }
      .where { list, reminder in reminder.title.contains("o") || list.title == "Empty" }
      .order { list, _ in list.position }
      .select { list, reminder in (list.title, reminder.title.upper(), reminder.title.length(), !reminder.isCompleted, reminder.score * 2 + 1, -reminder.score) }
    let midScore = RemindersList.leftJoin(Reminder.all) { $0.id.eq($1.remindersListID) }
      .where { _, reminder in (1.0...5.0).contains(reminder.score) && !reminder.score.between(3, and: 3) }
      .select { list, reminder in (list.title, reminder.title) }
    assertInlineSnapshot(
      of: [try database.sqlAndRows(notDone), try database.sqlAndRows(loose), try database.sqlAndRows(midScore)].joined(separator: "\n"), as: .lines
    ) {
      #"""
      SELECT "remindersLists"."title", "reminders"."title"
      FROM "remindersLists"
      LEFT JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID")
      WHERE (NOT ("reminders"."isCompleted") AND ("reminders"."title" LIKE 'e%' ESCAPE '\'))
      ("Home", Optional("Eggs"))
      SELECT "remindersLists"."title", upper("reminders"."title"), length("reminders"."title"), NOT ("reminders"."isCompleted"), (("reminders"."score" * 2.0) + 1.0), -("reminders"."score")
      FROM "remindersLists"
      LEFT JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID")
      WHERE (("reminders"."title" LIKE '%o%' ESCAPE '\') OR ("remindersLists"."title" = 'Empty'))
      ORDER BY "remindersLists"."position"
      ("Work", Optional("REPORT"), Optional(6), Optional(true), Optional(19.0), Optional(-9.0))
      ("Empty", nil, nil, nil, nil, nil)
      SELECT "remindersLists"."title", "reminders"."title"
      FROM "remindersLists"
      LEFT JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID")
      WHERE (("reminders"."score" BETWEEN 1.0 AND 5.0) AND NOT (("reminders"."score" BETWEEN 3.0 AND 3.0)))
      ("Home", Optional("Milk"))
      ("Home", Optional("Eggs"))
      """#
    }
  }

  @Test func findOnAJoinNarrowsByTheFirstTablesKey() throws {
    let one = Reminder.join(RemindersList.all) { $0.remindersListID == $1.id }.select { ($0.title, $1.title) }.find(eggs)
    let some = Reminder.leftJoin(ReminderTag.all) { $0.id == $1.reminderID }
      .select { ($0.title, $1.tagTitle) }.find([milk, report]).order { r, t in (r.title, t.tagTitle) }
    let lines = try database.read { db in
      [one.query.description] + (try one.fetchAll(db)).map { "  \($0.0)@\($0.1)" }
        + [some.query.description] + (try some.fetchAll(db)).map { "  \($0.0) \($0.1 ?? "nil")" }
    }
    assertInlineSnapshot(of: lines.joined(separator: "\n"), as: .lines) {
      """
      SELECT "reminders"."title", "remindersLists"."title"
      FROM "reminders"
      JOIN "remindersLists" ON ("reminders"."remindersListID" = "remindersLists"."id")
      WHERE ("reminders"."id" IN ('00000000-0000-0000-0000-0000000000a2'))
        Eggs@Home
      SELECT "reminders"."title", "reminderTags"."tagTitle"
      FROM "reminders"
      LEFT JOIN "reminderTags" ON ("reminders"."id" = "reminderTags"."reminderID")
      WHERE ("reminders"."id" IN ('00000000-0000-0000-0000-0000000000a1', '00000000-0000-0000-0000-0000000000a3'))
      ORDER BY "reminders"."title", "reminderTags"."tagTitle"
        Milk food
        Report nil
      """
    }
  }

  @Test func selfJoinThroughAnAliasAndThreeTableGrouping() throws {
    try database.write { db in
      try Employee.insert {
        Employee(id: 1, name: "Ada", managerID: nil)
        Employee(id: 2, name: "Bob", managerID: 1)
        Employee(id: 3, name: "Cy", managerID: 2)
      }.execute(db)
    }
    try database.read { db in
      let pairs = try Employee.leftJoin(Employee.as(Manager.self).all) { $0.managerID.eq($1.id) }
        .order { employee, _ in employee.id }.select { employee, manager in (employee.name, manager.name) }.fetchAll(db)
      #expect(pairs.map { "\($0.0)<\($0.1 ?? "-")" } == ["Ada<-", "Bob<Ada", "Cy<Bob"])

      let withTags = try Reminder.group(by: \.id)
        .leftJoin(ReminderTag.all) { $0.id.eq($1.reminderID) }
        .leftJoin(Tag.all) { $1.tagTitle.eq($2.primaryKey) }
        .order { reminder, _, _ in reminder.title }
        .select { reminder, _, tag in (reminder.title, tag.count(), tag.title.groupConcat(separator: ", "), tag.useCount.sum()) }
        .fetchAll(db)
      #expect(withTags.map { "\($0.0) \($0.1) \($0.2 ?? "-") \($0.3.map(String.init) ?? "nil")" } == ["Eggs 2 food, urgent 3", "Milk 1 food 2", "Report 0 - nil"])

      let tagged = try Reminder.group(by: \.id).leftJoin(ReminderTag.all) { $0.id.eq($1.reminderID) }
        .having { _, tag in tag.count() > 1 }.select { reminder, _ in reminder.title }.fetchAll(db)
      #expect(tagged == ["Eggs"])
    }
  }

  /// The seeds' statistics through `@Selection`, with filtered aggregates.
  @Test func statisticsThroughASelection() throws {
    let stats = try database.read { db in
      try RemindersList.group(by: \.id).leftJoin(Reminder.all) { $0.id.eq($1.remindersListID) }
        .order { list, _ in list.position }
        .select {
          ListStats.Columns(
            title: $0.title, reminderCount: $1.count(), completedCount: $1.count(filter: $1.isCompleted ?? false),
            averageScore: $1.score.avg(), tags: $1.title.groupConcat(distinct: true))
        }.fetchAll(db)
    }
    #expect(stats.map(\.title) == ["Home", "Work", "Empty"])
    #expect(stats.map(\.reminderCount) == [2, 1, 0] && stats.map(\.completedCount) == [1, 0, 0])
    #expect(stats.map(\.averageScore) == [3, 9, nil])
    #expect(stats[2].tags == nil && Set(stats[0].tags?.split(separator: ",") ?? []) == ["Milk", "Eggs"])
    let totals = try database.read { db in
      try Reminder.select { ($0.count(), $0.score.total(), $0.score.max(), $0.title.min(filter: $0.isCompleted)) }.fetchOne(db)
    }
    #expect(totals?.0 == 3 && totals?.1 == 15 && totals?.2 == 9 && totals?.3 == "Milk")
    let json = try database.read { db in
      try RemindersList.where { $0.id.eq(home) }.select { jsonObject("title", $0.title, "position", $0.position) }.fetchOne(db)
    }
    #expect(json == #"{"title":"Home","position":1}"#)
  }

  @Test func caseCompoundSelectsAndUpdates() throws {
    let labels = try database.read { db in
      try Reminder.order(by: \.title).select { ($0.title, Case($0.priority).when(.low, then: "Low").when(.high, then: "High").else("None")) }
        .fetchAll(db)
    }
    #expect(labels.map { "\($0.0)=\($0.1)" } == ["Eggs=High", "Milk=Low", "Report=None"])
    try database.write { db in
      try Reminder.update { $0.priority = Case($0.priority).when(.low, then: .medium).when(.high, then: .low).else(.high) }.execute(db)
    }
    try database.read { db in
      #expect(try Reminder.order(by: \.title).select(\.priority).fetchAll(db) == [.low, .medium, .high])
      let titles = try Reminder.select(\.title).union(RemindersList.select(\.title)).fetchAll(db)
      #expect(titles.sorted() == ["Eggs", "Empty", "Home", "Milk", "Report", "Work"])
      #expect(try Tag.select(\.title).except(ReminderTag.select(\.tagTitle)).fetchAll(db) == ["unused"])
      #expect(try Tag.select(\.title).intersect(ReminderTag.select(\.tagTitle).order(by: \.tagTitle).limit(1)).fetchAll(db) == ["food"])
      #expect(try Reminder.select(\.title).union(all: true, Reminder.select(\.title)).fetchAll(db).count == 6)
    }
  }

  /// The seeds' threaded comments: a recursive common table with depth.
  @Test func threadedCommentsThroughARecursiveCommonTable() throws {
    try database.write { db in
      try Comment.insert {
        Comment(id: 1, body: "root", parentID: nil)
        Comment(id: 2, body: "reply", parentID: 1)
        Comment(id: 3, body: "reply to reply", parentID: 2)
        Comment(id: 4, body: "second reply", parentID: 1)
        Comment(id: 5, body: "another root", parentID: nil)
      }.execute(db)
      try Category.insert {
        Category(id: 1, name: "all", parentID: nil)
        Category(id: 2, name: "fruit", parentID: 1)
        Category(id: 3, name: "apples", parentID: 2)
        Category(id: 4, name: "tools", parentID: nil)
      }.execute(db)
    }
    let thread = try database.read { db in
      try With {
        Comment.where { $0.parentID.is(nil) }.select { CommentThread.Columns(id: $0.id, body: $0.body, depth: 0) }
      } recursiveUnionAll: { thread in
        Comment.join(thread) { $0.parentID.eq($1.id) }.select { comment, parent in CommentThread.Columns(id: comment.id, body: comment.body, depth: parent.depth + 1) }
      } query: { thread in
        thread.order { ($0.depth, $0.id) }
      }.fetchAll(db)
    }
    #expect(thread.map { "\($0.depth):\($0.body)" } == ["0:root", "0:another root", "1:reply", "1:second reply", "2:reply to reply"])

    let descendants = try database.read { db in
      try With { Category.where { $0.id.eq(1) } } recursiveUnion: { tree in
        Category.join(tree) { $0.parentID.eq($1.id) }.select { category, _ in category }
      } query: { tree in
        tree.order(by: \.name)
      }.fetchAll(db)
    }
    #expect(descendants.map(\.name) == ["all", "apples", "fruit"])

    let highAndListed = try database.read { db in
      try With { Reminder.where { $0.score > 3 } } with: { RemindersList.where { $0.position < 3 } } query: { high, lists in
        high.join(lists) { $0.remindersListID.eq($1.id) }.order { reminder, _ in reminder.title }.select { reminder, list in (reminder.title, list.title) }
      }.fetchAll(db)
    }
    #expect(highAndListed.map { "\($0.0)@\($0.1)" } == ["Eggs@Home", "Report@Work"])
  }
}

/// The other list of a reminder's tag, in the five-table join below.
enum SameTag: AliasName {}

extension JoinRoundTripTests {
  /// Five tables in one select (the seeds' detail query joins five):
  /// lists, their reminders, the reminders' tags through the join table,
  /// and the tag again under an alias.
  @Test func fiveTablesJoin() throws {
    let query = RemindersList
      .join(Reminder.all) { $0.id.eq($1.remindersListID) }
      .leftJoin(ReminderTag.all) { $1.id.eq($2.reminderID) }
      .leftJoin(Tag.all) { $2.tagTitle.eq($3.title) }
      .leftJoin(Tag.as(SameTag.self).all) { $3.title.eq($4.title) }
      .where { list, _, _, _, _ in list.title.eq("Home") }
      .order { _, reminder, _, tag, _ in (reminder.title, tag.title) }
      .limit(3, offset: 0)
      .select { list, reminder, _, tag, same in (list.title, reminder.title, tag.title, same.useCount) }
    let rows = try database.read { db in try query.fetchAll(db) }
    assertInlineSnapshot(of: query.query.description + "\n" + rows.map { "\($0)" }.joined(separator: "\n"), as: .lines) {
      """
      SELECT "remindersLists"."title", "reminders"."title", "tags"."title", "sameTags"."uses"
      FROM "remindersLists"
      JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID")
      LEFT JOIN "reminderTags" ON ("reminders"."id" = "reminderTags"."reminderID")
      LEFT JOIN "tags" ON ("reminderTags"."tagTitle" = "tags"."title")
      LEFT JOIN "tags" AS "sameTags" ON ("tags"."title" = "sameTags"."title")
      WHERE ("remindersLists"."title" = 'Home')
      ORDER BY "reminders"."title", "tags"."title"
      LIMIT 3 OFFSET 0
      ("Home", "Eggs", Optional("food"), Optional(2))
      ("Home", "Eggs", Optional("urgent"), Optional(1))
      ("Home", "Milk", Optional("food"), Optional(2))
      """
    }
  }
  /// `count { … }` and `limit { … }` over joined tables, as upstream spells
  /// them (and `count { … }` on a single table's select).
  @Test func countWithAFilterAndLimitByAnExpressionOverAJoin() throws {
    let tagged = Reminder.group(by: \.id).join(ReminderTag.all) { $0.id.eq($1.reminderID) }
    let completedPerReminder = tagged.order { reminder, _ in reminder.title }.count { reminder, _ in reminder.isCompleted }
    let firstByScore = tagged.order { reminder, _ in reminder.title }.limit { _, _ in #sql("1", as: Int.self) }
      .select { reminder, _ in reminder.title }
    let urgentOfScored = Reminder.where { $0.score > 3 }.count { $0.priority == Reminder.Priority.high }
    let rendered = try database.read { db in
      [
        completedPerReminder.query.description, "\(try completedPerReminder.fetchAll(db))",
        firstByScore.query.description, "\(try firstByScore.fetchAll(db))",
        urgentOfScored.query.description, "\(try urgentOfScored.fetchAll(db))",
      ]
    }
    assertInlineSnapshot(of: rendered.joined(separator: "\n"), as: .lines) {
      """
      SELECT count(*) FILTER (WHERE "reminders"."isCompleted")
      FROM "reminders"
      JOIN "reminderTags" ON ("reminders"."id" = "reminderTags"."reminderID")
      GROUP BY "reminders"."id"
      ORDER BY "reminders"."title"
      [0, 1]
      SELECT "reminders"."title"
      FROM "reminders"
      JOIN "reminderTags" ON ("reminders"."id" = "reminderTags"."reminderID")
      GROUP BY "reminders"."id"
      ORDER BY "reminders"."title"
      LIMIT 1
      ["Eggs"]
      SELECT count(*) FILTER (WHERE ("reminders"."priority" IS 3))
      FROM "reminders"
      WHERE ("reminders"."score" > 3.0)
      [1]
      """
    }
  }
}
