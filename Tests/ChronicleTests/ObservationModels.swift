import Chronicle
import Dependencies
import Foundation
import Observation
import Synchronization

/// A row of `reminders` in the ``makeDatabase(_:name:)`` schema.
@Table
struct Reminder: Equatable, Identifiable {
  let id: Int
  var title = ""
  var notes: String?
  var isCompleted = false
  var priority: Double?
  var attachment: Data?
  var listID: String
}

/// A row of `remindersLists` in the ``makeDatabase(_:name:)`` schema.
@Table
struct RemindersList: Equatable, Identifiable {
  let id: String
  var title = ""
  var position = 0
}

/// A reminder without `Equatable`, to check that observation notifies every
/// refetch of values it cannot compare.
@Table("reminders")
struct UncomparableReminder {
  let id: Int
  var title = ""
}

/// What a screen of open reminders shows, as an app would write it. (An app
/// would isolate it to the main actor; the tests read it from any thread,
/// and its wrappers are thread-safe.)
@Observable
final class OpenRemindersModel: @unchecked Sendable {
  @ObservationIgnored @FetchAll(Reminder.where { !$0.isCompleted }.order(by: \.title)) var open
  @ObservationIgnored @FetchOne(Reminder.where { !$0.isCompleted }.count()) var openCount = 0
  @ObservationIgnored @FetchOne(RemindersList.order(by: \.position)) var firstList: RemindersList?

  /// A model reading `database` (the app's would read the default database).
  static func reading(_ database: ChronicleDatabase) -> OpenRemindersModel {
    withDependencies { $0.defaultDatabase = database } operation: { OpenRemindersModel() }
  }
}

/// Counts the changes `withObservationTracking` reports for what `read`
/// reads, re-registering after each.
final class ObservationCounter: Sendable {
  private let changes = Mutex(0)
  private let read: @Sendable () -> Void

  init(_ read: @escaping @Sendable () -> Void) {
    self.read = read
    track()
  }

  var count: Int { changes.withLock { $0 } }

  private func track() {
    withObservationTracking(read) { [self] in
      changes.withLock { $0 += 1 }
      // onChange runs before the new value is stored: track again after it.
      DispatchQueue.global().async { self.track() }
    }
  }
}

/// Waits until `condition` holds, checking every 5 ms, for at most `seconds`.
func eventually(seconds: Double = 10, _ condition: () throws -> Bool) async throws -> Bool {
  let deadline = ContinuousClock.now + .seconds(seconds)
  while ContinuousClock.now < deadline {
    if try condition() { return true }
    try await Task.sleep(for: .milliseconds(5))
  }
  return try condition()
}
