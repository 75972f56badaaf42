import Dispatch
import Foundation
import Synchronization
import Testing

import ChronicleTestSupport

@testable import Chronicle

/// The fetch wrappers with `scheduler:`, as SQLiteData spells them: every
/// value, the first included, is delivered where the scheduler says.
@Suite("Observation: where a fetch wrapper's values are delivered")
struct ObservationSchedulerTests {
  /// Delivers on its queue, and counts what it delivered there.
  final class CountingQueueScheduler: ValueObservationScheduler, Sendable {
    let queue = DispatchQueue(label: "test.delivery")
    let key = DispatchSpecificKey<Bool>()
    let deliveries = Mutex(0)
    let deliveriesOffItsQueue = Mutex(0)

    init() { queue.setSpecific(key: key, value: true) }

    func immediateInitialValue() -> Bool { false }

    func schedule(_ action: @escaping @Sendable () -> Void) {
      queue.async { [self] in
        action()
        deliveries.withLock { $0 += 1 }
        if DispatchQueue.getSpecific(key: key) != true { deliveriesOffItsQueue.withLock { $0 += 1 } }
      }
    }
  }

  @Test func everyValueComesThroughTheSchedulerGivenAndLoadsKeepIt() async throws {
    let directory = try TemporaryDirectory()
    let database = try makeDatabase(directory)
    try await database.write { db in try RemindersList.insert { RemindersList(id: "home", title: "Home") }.execute(db) }
    let scheduler = CountingQueueScheduler()

    let lists = FetchAll(RemindersList.order(by: \.id), database: database, scheduler: scheduler)
    let count = FetchOne(wrappedValue: -1, RemindersList.count(), database: database, scheduler: scheduler)
    // Not delivered at once: the scheduler's first delivery brings the rows.
    #expect(try await eventually { lists.wrappedValue.map(\.id) == ["home"] && count.wrappedValue == 1 })
    let first = scheduler.deliveries.withLock { $0 }
    #expect(first >= 2)

    try await database.write { db in try RemindersList.insert { RemindersList(id: "work", title: "Work", position: 1) }.execute(db) }
    #expect(try await eventually { lists.wrappedValue.map(\.id) == ["home", "work"] && count.wrappedValue == 2 })
    #expect(scheduler.deliveries.withLock { $0 } >= first + 2)

    try await lists.load(RemindersList.where { $0.id == "work" })
    #expect(lists.wrappedValue.map(\.id) == ["work"])
    #expect(scheduler.deliveriesOffItsQueue.withLock { $0 } == 0)
  }

  @Test func gRDBsOwnSchedulersAreAccepted() async throws {
    let directory = try TemporaryDirectory()
    let database = try makeDatabase(directory)
    try await database.write { db in try RemindersList.insert { RemindersList(id: "home", title: "Home") }.execute(db) }
    let queue = DispatchQueue(label: "test.app")
    let onQueue = FetchAll(RemindersList.all, database: database, scheduler: .async(onQueue: queue))
    let onTasks = FetchOne(RemindersList.where { $0.id == "home" }, database: database, scheduler: .task)
    #expect(try await eventually { onQueue.wrappedValue.count == 1 && onTasks.wrappedValue?.title == "Home" })
    try await database.write { db in try RemindersList.find("home").update { $0.title = "House" }.execute(db) }
    #expect(try await eventually { onQueue.wrappedValue.first?.title == "House" && onTasks.wrappedValue?.title == "House" })
  }
}
