import Dependencies
import DependenciesTestSupport
import Foundation
import Testing

import ChronicleTestSupport

@testable import Chronicle

@Suite("Observation: FetchAll, FetchOne, Fetch and observe(in:)")
struct ObservationTests {
  private static func addList(_ database: ChronicleDatabase, id: String = "home", position: Int = 0) async throws {
    try await database.write { db in
      try RemindersList.insert { RemindersList(id: id, title: id.capitalized, position: position) }.execute(db)
    }
  }

  private static func addReminder(_ database: ChronicleDatabase, _ id: Int, _ title: String, completed: Bool = false) async throws {
    try await database.write { db in
      try Reminder.insert { Reminder(id: id, title: title, isCompleted: completed, listID: "home") }.execute(db)
    }
  }

  @Test("the first value is there at once, and a local write updates the model and notifies its observers")
  func localWrite() async throws {
    let directory = try TemporaryDirectory()
    let database = try makeDatabase(directory)
    try await Self.addList(database)
    try await Self.addReminder(database, 1, "Milk")

    let model = OpenRemindersModel.reading(database)
    #expect(model.open.map(\.title) == ["Milk"])
    #expect(model.openCount == 1)
    #expect(model.firstList?.id == "home")
    let counter = ObservationCounter { _ = model.open }

    try await Self.addReminder(database, 2, "Bread")
    #expect(try await eventually { model.open.map(\.title) == ["Bread", "Milk"] })
    #expect(try await eventually { model.openCount == 2 })
    #expect(try await eventually { counter.count == 1 })

    try await database.write { db in try Reminder.find(1).update { $0.isCompleted = true }.execute(db) }
    #expect(try await eventually { model.open.map(\.title) == ["Bread"] && model.openCount == 1 })
    #expect(try await eventually { counter.count == 2 })
    #expect(model.$open.loadError == nil && !model.$open.isLoading)
  }

  @Test("a write that leaves the result equal notifies nobody, when rows are Equatable")
  func equalResultIsNotNotified() async throws {
    let directory = try TemporaryDirectory()
    let database = try makeDatabase(directory)
    try await Self.addList(database)
    try await Self.addReminder(database, 1, "Milk")
    let model = OpenRemindersModel.reading(database)
    let counter = ObservationCounter { _ = model.open }

    // A completed reminder is outside the query: the refetch gives equal rows.
    try await Self.addReminder(database, 2, "Done already", completed: true)
    try await Self.addReminder(database, 3, "Eggs")
    #expect(try await eventually { model.open.map(\.title) == ["Eggs", "Milk"] })
    // Values arrive in order on one queue, so had the first write notified,
    // the count would be 2 by now.
    #expect(counter.count == 1)

    // Without Equatable, every refetch is a change (GRDB may also refetch
    // once as the observation starts, so at least one).
    let uncomparable = FetchAll(UncomparableReminder.all, database: database)
    let uncomparableCounter = ObservationCounter { _ = uncomparable.wrappedValue }
    try await database.write { db in try RemindersList.find("home").update { $0.position = 5 }.execute(db) }
    try await Self.addReminder(database, 4, "Tea", completed: true)
    #expect(try await eventually { uncomparable.wrappedValue.count == 4 })
    #expect(try await eventually { uncomparableCounter.count >= 1 })
  }

  @Test("changes applied by a sync update the observing peer")
  func remoteSync() async throws {
    let directory = try TemporaryDirectory()
    let phone = try makeDatabase(directory, name: "phone.sqlite")
    let laptop = try makeDatabase(directory, name: "laptop.sqlite")
    try await Self.addList(phone)
    try await Self.addReminder(phone, 1, "Milk")

    let model = OpenRemindersModel.reading(laptop)
    #expect(model.open.isEmpty && model.openCount == 0 && model.firstList == nil)
    let counter = ObservationCounter { _ = model.openCount }

    let engine = SyncEngine(for: laptop, transport: .memory(phone))
    _ = try await engine.fetchChanges()
    #expect(try await eventually { model.open.map(\.title) == ["Milk"] && model.openCount == 1 })
    #expect(try await eventually { model.firstList?.title == "Home" })
    #expect(try await eventually { counter.count == 1 })

    try await phone.write { db in try Reminder.find(1).update { $0.title = "Oat milk" }.execute(db) }
    _ = try await engine.fetchChanges()
    #expect(try await eventually { model.open.map(\.title) == ["Oat milk"] })
  }

  @Test("FetchOne gives its default for no row, and nil for an optional")
  func fetchOneDefaults() async throws {
    let directory = try TemporaryDirectory()
    let database = try makeDatabase(directory)
    let title = FetchOne(wrappedValue: "none", Reminder.select(\.title), database: database)
    let reminder = FetchOne<Reminder?>(database: database)
    #expect(title.wrappedValue == "none")
    #expect(reminder.wrappedValue == nil)

    try await Self.addList(database)
    try await Self.addReminder(database, 7, "Milk")
    #expect(try await eventually { title.wrappedValue == "Milk" && reminder.wrappedValue?.id == 7 })

    try await database.write { db in try Reminder.delete().execute(db) }
    #expect(try await eventually { title.wrappedValue == "none" && reminder.wrappedValue == nil })
  }

  @Test("load(_:) switches the query: the old one no longer updates the value")
  func loadSwitchesQuery() async throws {
    let directory = try TemporaryDirectory()
    let database = try makeDatabase(directory)
    try await Self.addList(database)
    try await Self.addReminder(database, 1, "Milk")
    try await Self.addReminder(database, 2, "Done", completed: true)
    let reminders = FetchAll(Reminder.where { !$0.isCompleted }, database: database)
    #expect(reminders.wrappedValue.map(\.id) == [1])

    try await reminders.load(Reminder.where(\.isCompleted))
    #expect(reminders.wrappedValue.map(\.id) == [2])
    try await Self.addReminder(database, 3, "Done too", completed: true)
    try await Self.addReminder(database, 4, "Open")
    #expect(try await eventually { reminders.wrappedValue.map(\.id) == [2, 3] })
    #expect(!reminders.wrappedValue.contains { $0.id == 4 })

    let count = FetchOne(wrappedValue: 0, Reminder.count(), database: database)
    try await count.load(Reminder.where(\.isCompleted).count(), default: 0)
    #expect(count.wrappedValue == 2)
  }

  @Test("a failing fetch sets loadError and keeps the value; load(_:) throws it and recovers")
  func loadError() async throws {
    let directory = try TemporaryDirectory()
    let database = try makeDatabase(directory)
    try await Self.addList(database)
    try await Self.addReminder(database, 1, "Milk")
    let broken = FetchAll(wrappedValue: [Reminder(id: 0, title: "placeholder", listID: "x")],
                          #sql("SELECT * FROM missingTable", as: Reminder.self), database: database)
    #expect(broken.wrappedValue.map(\.title) == ["placeholder"])
    let error = try #require(broken.loadError as? DatabaseError)
    #expect(error.message?.contains("no such table: missingTable") == true)

    await #expect(throws: DatabaseError.self) {
      try await broken.load(#sql("SELECT * FROM alsoMissing", as: Reminder.self))
    }
    #expect(broken.loadError != nil && !broken.isLoading)
    try await broken.load(Reminder.all)
    #expect(broken.wrappedValue.map(\.title) == ["Milk"])
    #expect(broken.loadError == nil)
  }

  struct Dashboard: FetchKeyRequest {
    var listID = "home"
    struct Value: Equatable, Sendable {
      var openCount = 0
      var titles: [String] = []
    }
    func fetch(_ db: Database) throws -> Value {
      try Value(
        openCount: Reminder.where { !$0.isCompleted && $0.listID.eq(listID) }.count().fetchOne(db) ?? 0,
        titles: Reminder.where { $0.listID.eq(listID) }.order(by: \.title).select(\.title).fetchAll(db))
    }
  }

  @Test("Fetch reads several values in one transaction, and load(_:) gives it a request later")
  func fetchKeyRequest() async throws {
    let directory = try TemporaryDirectory()
    let database = try makeDatabase(directory)
    try await Self.addList(database)
    try await Self.addList(database, id: "work", position: 1)
    try await Self.addReminder(database, 1, "Milk")

    let dashboard = Fetch(wrappedValue: Dashboard.Value(), Dashboard(), database: database)
    #expect(dashboard.wrappedValue == Dashboard.Value(openCount: 1, titles: ["Milk"]))
    try await Self.addReminder(database, 2, "Bread", completed: true)
    #expect(try await eventually { dashboard.wrappedValue == Dashboard.Value(openCount: 1, titles: ["Bread", "Milk"]) })

    let later = Fetch(wrappedValue: Dashboard.Value(), database: database)
    #expect(later.wrappedValue == Dashboard.Value())
    try await later.load(Dashboard(listID: "work"))
    #expect(later.wrappedValue == Dashboard.Value(openCount: 0, titles: []))
    try await database.write { db in
      try Reminder.insert { Reminder(id: 3, title: "Report", listID: "work") }.execute(db)
    }
    #expect(try await eventually { later.wrappedValue == Dashboard.Value(openCount: 1, titles: ["Report"]) })
  }

  @Test("observe(in:) is an async sequence of results, for selects and requests")
  func asyncSequences() async throws {
    let directory = try TemporaryDirectory()
    let database = try makeDatabase(directory)
    try await Self.addList(database)
    var titles = Reminder.order(by: \.title).select(\.title).observe(in: database).makeAsyncIterator()
    #expect(try await titles.next() == [])
    try await Self.addReminder(database, 1, "Milk")
    #expect(try await titles.next() == ["Milk"])
    try await Self.addReminder(database, 2, "Bread")
    #expect(try await titles.next() == ["Bread", "Milk"])

    var dashboard = Dashboard().observe(in: database).makeAsyncIterator()
    #expect(try await dashboard.next() == Dashboard.Value(openCount: 2, titles: ["Bread", "Milk"]))
    try await database.write { db in try Reminder.find(2).update { $0.isCompleted = true }.execute(db) }
    #expect(try await dashboard.next() == Dashboard.Value(openCount: 1, titles: ["Bread", "Milk"]))
  }
}

@Suite("Observation: the default database", .dependency(\.defaultDatabase, try makeDependencyDatabase()))
struct DefaultDatabaseTests {
  @Test("wrappers without a database argument observe @Dependency(\\.defaultDatabase)")
  func wrappersUseTheDependency() async throws {
    @Dependency(\.defaultDatabase) var database
    try await database.write { db in
      try RemindersList.insert { RemindersList(id: "home", title: "Home") }.execute(db)
    }
    let lists = FetchAll<RemindersList>()
    let count = FetchOne(wrappedValue: 0, RemindersList.count())
    #expect(lists.wrappedValue.map(\.id) == ["home"] && count.wrappedValue == 1)
    try await database.write { db in
      try RemindersList.insert { RemindersList(id: "work", title: "Work", position: 1) }.execute(db)
    }
    #expect(try await eventually { lists.wrappedValue.map(\.id) == ["home", "work"] && count.wrappedValue == 2 })
  }

  @Test("withDependencies overrides the database for the code it runs")
  func overridden() async throws {
    let directory = try TemporaryDirectory()
    let other = try makeDatabase(directory, name: "other.sqlite")
    try await other.write { db in try RemindersList.insert { RemindersList(id: "other") }.execute(db) }
    let lists = withDependencies { $0.defaultDatabase = other } operation: { FetchAll<RemindersList>() }
    #expect(lists.wrappedValue.map(\.id) == ["other"])
  }
}

/// A database for the default-database suite, in a folder left to the system's temporary cleanup.
private func makeDependencyDatabase() throws -> ChronicleDatabase {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-dependency-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  return try makeDatabase(path: folder.appendingPathComponent("default.sqlite").path)
}
