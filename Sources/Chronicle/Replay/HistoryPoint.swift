import Foundation
import GRDB

/// A point in a log's history: where a replay stops, or one side of a diff.
public enum HistoryPoint: Sendable, Hashable, CustomStringConvertible {
  /// Just after the event at this log position: the database as it was when
  /// that event had been appended (local or received).
  case position(Int64)
  /// Every event whose clock reading is at or before this one, in log order:
  /// the data as of that moment, across every peer this log has heard from.
  case time(HLCTimestamp)

  /// Resolves a reference as a user writes it:
  /// - a log position, `12`;
  /// - an event, `origin:sequence`, where origin is a peer id or a unique
  ///   prefix of one, `4f2c1a9e:3`;
  /// - an ISO 8601 time, `2026-11-21T10:00:00Z`, with optional fractional
  ///   seconds and an optional clock counter (`...123Z+2`, as the tools print
  ///   times), or a day, `2026-11-21` (its end: every event of that day, UTC).
  public static func parse(_ text: String, in log: EventLog) throws -> HistoryPoint {
    if let time = Self.time(text) { return .time(time) }
    let looksLikeEvent = Int64(text) != nil || text.split(separator: ":").count == 2 && Int64(text.split(separator: ":")[1]) != nil
    guard looksLikeEvent else { throw ChronicleError.invalidHistoryPoint(text) }
    return .position(try log.event(reference: text).id)
  }

  /// Parses an ISO 8601 time or day; nil when `text` is neither.
  static func time(_ text: String) -> HLCTimestamp? {
    var body = Substring(text)
    var counter: UInt16 = 0
    if let plus = body.lastIndex(of: "+"), body[..<plus].hasSuffix("Z"), let value = UInt16(body[body.index(after: plus)...]) {
      counter = value
      body = body[..<plus]
    }
    let formatter = ISO8601DateFormatter()
    for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime]] {
      formatter.formatOptions = options
      if let date = formatter.date(from: String(body)) {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard milliseconds >= 0 else { return nil }
        return HLCTimestamp(milliseconds: UInt64(milliseconds), counter: counter)
      }
    }
    formatter.formatOptions = [.withFullDate]
    if counter == 0, let day = formatter.date(from: String(body)) {
      let end = (day.timeIntervalSince1970 + 86_400) * 1000 - 1
      guard end >= 0 else { return nil }
      return HLCTimestamp(milliseconds: UInt64(end), counter: UInt16.max)
    }
    return nil
  }

  public var description: String {
    switch self {
    case .position(let position): "#\(position)"
    case .time(let time): time.description
    }
  }

  /// Whether `stored` is at or before this point.
  func includes(_ stored: StoredEvent) -> Bool {
    switch self {
    case .position(let position): stored.id <= position
    case .time(let time): stored.event.timestamp <= time
    }
  }

  /// The log positions that can hold events before this point.
  var positions: ClosedRange<Int64>? {
    if case .position(let position) = self { return Int64.min...position }
    return nil
  }
}
