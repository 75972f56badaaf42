import Chronicle
import Foundation
import Synchronization

/// The seeds' mode: the most frequent priority of a group (nil when none).
@DatabaseFunction
func mode(priority priorities: some Sequence<Reminder.Priority?>) -> Reminder.Priority? {
  var occurrences: [Reminder.Priority: Int] = [:]
  for priority in priorities {
    guard let priority else { continue }
    occurrences[priority, default: 0] += 1
  }
  return occurrences.max { ($0.value, $0.key.rawValue) < ($1.value, $1.key.rawValue) }?.key
}

/// The seeds' median.
@DatabaseFunction("median_of", isDeterministic: true)
func median(values: [Double?]) -> Double? {
  let sorted = values.compactMap { $0 }.sorted()
  guard !sorted.isEmpty else { return nil }
  let middle = sorted.count / 2
  return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
}

/// A scalar function of a whole row (its columns are the arguments).
@DatabaseFunction
func isPastDue(reminder: Reminder, now: Date) -> Bool {
  !reminder.isCompleted && (reminder.dueDate.map { $0 < now } ?? false)
}

enum TextFunctions {
  /// A static method, with an unlabeled parameter, that throws.
  @DatabaseFunction(isDeterministic: true)
  static func initials(_ title: String) throws -> String {
    guard !title.isEmpty else { throw InitialsError() }
    return String(title.split(separator: " ").compactMap(\.first))
  }

  struct InitialsError: Error, CustomStringConvertible {
    var description: String { "initials of an empty title" }
  }
}

/// The titles `noteCompleted(title:)` was called with, in order.
let completedTitles = Mutex<[String]>([])

/// A function called for what it does, returning nothing (SQL NULL), as the
/// Reminders example's status handler is.
@DatabaseFunction
func noteCompleted(title: String) {
  completedTitles.withLock { $0.append(title) }
}

/// An aggregate over two columns: each row's text and the separator
/// written before it (upstream's multiple-argument aggregate).
@DatabaseFunction
func joined(_ parts: some Sequence<(String, separator: String)>) -> String? {
  var iterator = parts.makeIterator()
  guard var (result, _) = iterator.next() else { return nil }
  while let (text, separator) = iterator.next() {
    result += separator + text
  }
  return result
}

/// Sums a group's values, wrapping on overflow.
@DatabaseFunction
func sumAll(_ values: some Sequence<Int>) -> Int {
  values.reduce(0, &+)
}

/// Reads one value of the group and stops there.
@DatabaseFunction
func firstValue(_ values: some Sequence<Int>) -> Int? {
  var iterator = values.makeIterator()
  return iterator.next()
}

/// Aggregates and scalars that are instance methods: a struct's `$name`
/// holds the value it was made from.
struct Weights {
  let factor: Int

  @DatabaseFunction
  func weightedSum(_ values: some Sequence<Int>) -> Int {
    values.reduce(0) { $0 + $1 * factor }
  }

  @DatabaseFunction
  func weighted(_ value: Int) -> Int {
    value * factor
  }
}

/// A class's `$name` holds it weakly, as upstream does.
final class MessageLog: Sendable {
  let messages = Mutex<[String]>([])

  @DatabaseFunction
  func log(_ message: String) {
    messages.withLock { $0.append(message) }
  }
}
