import Foundation
import InlineSnapshotTesting
import Testing

import ChronicleTestSupport

@testable import Chronicle

/// `@FetchAll(query, sectionBy: …)` and `$rows.sections`, as SQLiteData
/// spells them: rows grouped by a text expression, sections in its order,
/// rows within a section in the query's.
@Suite("Observation: FetchAll in sections")
struct SectionedFetchTests {
  private static func seeded(_ directory: TemporaryDirectory, _ rows: [(Int, String, String?)]) async throws -> ChronicleDatabase {
    let database = try makeDatabase(directory)
    try await database.write { db in
      try RemindersList.insert { RemindersList(id: "home", title: "Home", position: 0) }.execute(db)
      for (id, title, notes) in rows {
        try Reminder.insert { Reminder(id: id, title: title, notes: notes, listID: "home") }.execute(db)
      }
    }
    return database
  }

  /// Each section as `name: titles`.
  private static func layout(_ sections: ResultsSectionCollection<Reminder, String?>) -> [String] {
    sections.map { "\($0.name ?? "nil"): \($0.map(\.title).joined(separator: " "))" }
  }

  @Test("the statement orders by the sectioning first and selects its value as text")
  func theSectionedStatement() {
    let statement = Reminder.order(by: \.title).sectioned { Sectioning($0.notes) }!
    assertInlineSnapshot(of: statement.query.description, as: .lines) {
      """
      SELECT "reminders"."id", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."attachment", "reminders"."listID", CAST("reminders"."notes" AS TEXT)
      FROM "reminders"
      ORDER BY "reminders"."notes", "reminders"."title"
      """
    }
    let descending = Reminder.where { !$0.isCompleted }.sectioned { Sectioning($0.isCompleted.desc()) }!
    assertInlineSnapshot(of: descending.query.description, as: .lines) {
      """
      SELECT "reminders"."id", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."attachment", "reminders"."listID", CAST("reminders"."isCompleted" AS TEXT)
      FROM "reminders"
      WHERE NOT ("reminders"."isCompleted")
      ORDER BY "reminders"."isCompleted" DESC
      """
    }
  }

  @Test("rows group by a text column, sections in its order, rows in the query's; a write regroups them")
  func sectionsByATextColumn() async throws {
    let directory = try TemporaryDirectory()
    let database = try await Self.seeded(directory, [(1, "Milk", "shop"), (2, "Call", nil), (3, "Bread", "shop"), (4, "Run", "gym")])
    let reminders = FetchAll(Reminder.order(by: \.title), sectionBy: \.notes, database: database)
    #expect(Self.layout(reminders.sections) == ["nil: Call", "gym: Run", "shop: Bread Milk"])
    #expect(reminders.wrappedValue.map(\.title) == ["Call", "Run", "Bread", "Milk"])
    #expect(reminders.sections.sectionNames == [nil, "gym", "shop"])
    #expect(reminders.sections[sectionName: "shop"]?.map(\.id) == [3, 1])
    #expect(reminders.sections.index(ofSectionNamed: "gym") == 1 && !reminders.sections.contains(sectionName: "work"))

    try await database.write { db in
      try Reminder.insert { Reminder(id: 5, title: "Report", notes: "work", listID: "home") }.execute(db)
      try Reminder.find(2).update { $0.notes = "shop" }.execute(db)
    }
    #expect(try await eventually { Self.layout(reminders.sections) == ["gym: Run", "shop: Bread Call Milk", "work: Report"] })
  }

  @Test("an ordering gives the sections' direction; any value names a section as text")
  func descendingSectionsOfAnyValue() async throws {
    let directory = try TemporaryDirectory()
    let database = try await Self.seeded(directory, [(1, "Milk", nil), (2, "Call", nil)])
    try await database.write { db in try Reminder.find(2).update { $0.isCompleted = true }.execute(db) }
    let reminders = FetchAll(Reminder.order(by: \.title), sectionBy: { $0.isCompleted.desc() }, database: database)
    #expect(Self.layout(reminders.sections) == ["1: Call", "0: Milk"])
    let byList = FetchAll<Reminder>(sectionBy: \.listID, database: database)
    #expect(byList.sections.sectionNames == ["home"])
    try await database.write { db in try Reminder.find(1).update { $0.notes = "2%" }.execute(db) }
    let byCase = FetchAll(
      Reminder.order(by: \.title),
      sectionBy: { Case().when($0.notes.isNot(nil), then: "Noted").else("Plain").desc() },
      database: database)
    #expect(try await eventually { Self.layout(byCase.sections) == ["Plain: Call", "Noted: Milk"] })
  }

  @Test("names SQLite orders as equal but that differ as text are sections of their own")
  func namesEqualOnlyToTheirCollation() async throws {
    let directory = try TemporaryDirectory()
    let database = try await Self.seeded(directory, [(1, "a", nil), (2, "B", nil), (3, "A", nil), (4, "a", nil)])
    let reminders = FetchAll(Reminder.order(by: \.id), sectionBy: { $0.title.collate(.nocase) }, database: database)
    #expect(reminders.sections.map { "\($0.name ?? "nil"): \($0.map(\.id))" } == ["a: [1, 4]", "A: [3]", "B: [2]"])
  }

  @Test("no sectioning (an if that gives none) is one section named nil; load switches sectioning on and off")
  func loadSwitchesSections() async throws {
    let directory = try TemporaryDirectory()
    let database = try await Self.seeded(directory, [(1, "Milk", "shop"), (2, "Run", "gym")])
    var grouped = false
    let reminders = FetchAll(Reminder.order(by: \.title), sectionBy: { if grouped { $0.notes } }, database: database)
    #expect(Self.layout(reminders.sections) == ["nil: Milk Run"])

    grouped = true
    try await reminders.load(Reminder.order(by: \.title), sectionBy: { if grouped { $0.notes } })
    #expect(Self.layout(reminders.sections) == ["gym: Run", "shop: Milk"])
    try await reminders.load(Reminder.where { $0.id.eq(1) }, sectionBy: \.notes)
    #expect(Self.layout(reminders.sections) == ["shop: Milk"])
    try await reminders.load(Reminder.order(by: \.title))
    #expect(Self.layout(reminders.sections) == ["nil: Milk Run"])

    let none = FetchAll(Reminder.where { $0.id.eq(0) }, sectionBy: \.notes, database: database)
    #expect(none.sections.isEmpty && none.wrappedValue.isEmpty)
  }

  @Test("a sectioned fetch with a scheduler delivers its sections through it")
  func sectionsThroughAScheduler() async throws {
    let directory = try TemporaryDirectory()
    let database = try await Self.seeded(directory, [(1, "Milk", "shop"), (2, "Run", "gym")])
    let queue = DispatchQueue(label: "sections")
    let reminders = FetchAll(Reminder.order(by: \.title), sectionBy: \.notes, database: database, scheduler: .async(onQueue: queue))
    #expect(try await eventually { Self.layout(reminders.sections) == ["gym: Run", "shop: Milk"] })
    try await database.write { db in try Reminder.insert { Reminder(id: 3, title: "Eggs", notes: "shop", listID: "home") }.execute(db) }
    #expect(try await eventually { Self.layout(reminders.sections) == ["gym: Run", "shop: Eggs Milk"] })
  }

  @Test("the rows of a join in sections by a column of either table, the nullable side's too")
  func sectionsOfAJoin() async throws {
    let directory = try TemporaryDirectory()
    let database = try await Self.seeded(directory, [(1, "Milk", nil), (2, "Run", nil)])
    try await database.write { db in
      try RemindersList.insert { RemindersList(id: "work", title: "Work", position: 1) }.execute(db)
      try Reminder.insert { Reminder(id: 3, title: "Report", listID: "work") }.execute(db)
    }
    let byList = FetchAll(
      Reminder.join(RemindersList.all) { $0.listID.eq($1.id) }.order { reminder, _ in reminder.title },
      sectionBy: { _, list in list.title.desc() }, database: database)
    #expect(byList.sections.map { "\($0.name ?? "nil"): \($0.map(\.0.title))" } == ["Work: [\"Report\"]", "Home: [\"Milk\", \"Run\"]"])

    let byFirstTitle = FetchAll(
      RemindersList.leftJoin(Reminder.all) { $0.id.eq($1.listID) && $1.title.hasPrefix("R") }.order { list, _ in list.id },
      sectionBy: { _, reminder in reminder.title }, database: database)
    #expect(byFirstTitle.sections.map { "\($0.name ?? "nil"): \($0.map(\.0.id))" } == ["Report: [\"work\"]", "Run: [\"home\"]"])
    try await byFirstTitle.load(
      RemindersList.leftJoin(Reminder.all) { $0.id.eq($1.listID) && $1.title.eq("none") }, sectionBy: { _, reminder in reminder.title })
    #expect(byFirstTitle.sections.map { "\($0.name ?? "nil"): \($0.count)" } == ["nil: 2"])
  }
}
