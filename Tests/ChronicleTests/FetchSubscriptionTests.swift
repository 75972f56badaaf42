import Foundation
import Testing

import ChronicleTestSupport

@testable import Chronicle

/// `load` returns a ``FetchSubscription``, as SQLiteData 1.4's does:
/// `try await $rows.load(query).task` keeps the observation while the
/// awaiting task lives, and stops it when the task is cancelled.
@Suite("Observation: FetchSubscription ties a load to a task")
struct FetchSubscriptionTests {
  private static func addReminder(_ database: ChronicleDatabase, _ id: Int, completed: Bool = false) async throws {
    try await database.write { db in
      try Reminder.insert { Reminder(id: id, title: "R\(id)", isCompleted: completed, listID: "home") }.execute(db)
    }
  }

  private static func seeded(_ directory: TemporaryDirectory) async throws -> ChronicleDatabase {
    let database = try makeDatabase(directory)
    try await database.write { db in
      try RemindersList.insert { RemindersList(id: "home", title: "Home", position: 0) }.execute(db)
    }
    try await addReminder(database, 1)
    return database
  }

  /// Waits until a second observer of the same query has seen `count`
  /// rows: the write has been observed by whoever still observes.
  private static func settled(_ database: ChronicleDatabase, count: Int) async throws -> Bool {
    let witness = FetchAll(Reminder.all, database: database)
    return try await eventually { witness.wrappedValue.count == count }
  }

  @Test("cancelling the awaiting task stops the observation, keeps the value and throws CancellationError; a later load observes again")
  func cancellingTheTaskStopsTheObservation() async throws {
    let directory = try TemporaryDirectory()
    let database = try await Self.seeded(directory)
    let reminders = FetchAll(Reminder.where { $0.id.eq(0) }, database: database)
    #expect(reminders.wrappedValue.isEmpty)
    let task = Task { try await reminders.load(Reminder.all).task }
    #expect(try await eventually { reminders.wrappedValue.map(\.id) == [1] })
    try await Self.addReminder(database, 2)
    #expect(try await eventually { reminders.wrappedValue.map(\.id) == [1, 2] })

    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    try await Self.addReminder(database, 3)
    #expect(try await Self.settled(database, count: 3))
    try await Task.sleep(for: .milliseconds(100))
    #expect(reminders.wrappedValue.map(\.id) == [1, 2])

    try await reminders.load(Reminder.all)
    #expect(reminders.wrappedValue.map(\.id) == [1, 2, 3])
    try await Self.addReminder(database, 4)
    #expect(try await eventually { reminders.wrappedValue.map(\.id) == [1, 2, 3, 4] })
  }

  @Test("cancel() stops the observation at once and ends every wait on task")
  func cancelStopsAndEndsTheWait() async throws {
    let directory = try TemporaryDirectory()
    let database = try await Self.seeded(directory)
    let count = FetchOne(wrappedValue: 0, Reminder.count(), database: database)
    let subscription = try await count.load(Reminder.where { !$0.isCompleted }.count(), default: 0)
    let waiting = Task { try await subscription.task }
    subscription.cancel()
    await #expect(throws: CancellationError.self) { try await waiting.value }
    await #expect(throws: CancellationError.self) { try await subscription.task }  // already cancelled: at once

    try await Self.addReminder(database, 2)
    #expect(try await Self.settled(database, count: 2))
    try await Task.sleep(for: .milliseconds(100))
    #expect(count.wrappedValue == 1)
    #expect(!count.isLoading && count.loadError == nil)
  }

  @Test("a subscription replaced by a later load does not stop the later observation")
  func aReplacedSubscriptionStopsNothing() async throws {
    let directory = try TemporaryDirectory()
    let database = try await Self.seeded(directory)
    let first = FetchOne<Reminder?>(database: database)
    let replaced = try await first.load(Reminder.where { $0.id.eq(1) })
    try await first.load(Reminder.order { $0.id.desc() }.limit(1))
    replaced.cancel()
    try await Self.addReminder(database, 2)
    #expect(try await eventually { first.wrappedValue?.id == 2 })
  }
}
