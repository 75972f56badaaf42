/// Modifiers that move a date, applied by calling a date expression, and
/// chained with dot syntax:
///
/// ```swift
/// Reminder.where { $0.dueDate < .now(.startOfDay.days(7)) }
/// // … WHERE ("reminders"."dueDate" < strftime('%Y-%m-%d %H:%M:%f', 'now', 'start of day', '7 days'))
/// ```
///
/// Each is one of SQLite's date modifiers (https://sqlite.org/lang_datefunc.html#modifiers).
/// (Upstream's overflow rules, `.months(1, .floor)`, need SQLite 3.46; Debian 12 has 3.40.)
@dynamicMemberLookup
public struct DateTimeModifier: Sendable {
  var fragments: [QueryFragment] = []

  /// Moves the date by `count` years.
  public static func years(_ count: Int) -> Self { Self().years(count) }
  /// Moves the date by `count` months.
  public static func months(_ count: Int) -> Self { Self().months(count) }
  /// Moves the date by `count` days.
  public static func days(_ count: Int) -> Self { Self().days(count) }
  /// Moves the date by `count` hours.
  public static func hours(_ count: Int) -> Self { Self().hours(count) }
  /// Moves the date by `count` minutes.
  public static func minutes(_ count: Int) -> Self { Self().minutes(count) }
  /// Moves the date by `count` seconds (finite).
  public static func seconds(_ count: Double) -> Self { Self().seconds(count) }
  /// Moves the date by `count` milliseconds.
  public static func milliseconds(_ count: Int) -> Self { Self().milliseconds(count) }
  /// Back to the start of the date's day.
  public static var startOfDay: Self { Self().startOfDay }
  /// Back to the start of the date's month.
  public static var startOfMonth: Self { Self().startOfMonth }
  /// Back to the start of the date's year.
  public static var startOfYear: Self { Self().startOfYear }
  /// On to the next day whose weekday is `day` (0 is Sunday), or the date itself if it is one.
  public static func weekday(_ day: Int) -> Self { Self().weekday(day) }

  /// Then moves the date by `count` years.
  public func years(_ count: Int) -> Self { appending("'\(count) years'") }
  /// Then moves the date by `count` months.
  public func months(_ count: Int) -> Self { appending("'\(count) months'") }
  /// Then moves the date by `count` days.
  public func days(_ count: Int) -> Self { appending("'\(count) days'") }
  /// Then moves the date by `count` hours.
  public func hours(_ count: Int) -> Self { appending("'\(count) hours'") }
  /// Then moves the date by `count` minutes.
  public func minutes(_ count: Int) -> Self { appending("'\(count) minutes'") }
  /// Then moves the date by `count` seconds, which must be finite: with
  /// infinity or NaN the statement fails when run ("no such column"), its
  /// message naming the problem.
  public func seconds(_ count: Double) -> Self {
    guard count.isFinite else {
      return appending(quotedIdentifier("DateTimeModifier.seconds needs a finite number of seconds, not \(count)"))
    }
    return appending("'\(count) seconds'")
  }
  /// Then moves the date by `count` milliseconds (`'-1.500 seconds'`).
  public func milliseconds(_ count: Int) -> Self {
    let fraction = String(count.magnitude % 1000 + 1000).dropFirst()
    return appending("'\(count < 0 ? "-" : "")\(count.magnitude / 1000).\(fraction) seconds'")
  }
  /// Then back to the start of the day.
  public var startOfDay: Self { appending("'start of day'") }
  /// Then back to the start of the month.
  public var startOfMonth: Self { appending("'start of month'") }
  /// Then back to the start of the year.
  public var startOfYear: Self { appending("'start of year'") }
  /// Then on to the next day whose weekday is `day`.
  public func weekday(_ day: Int) -> Self { appending("'weekday \(day)'") }

  /// Chains a modifier named by a static member (`.startOfMonth.months(1)`)
  /// or an app's own (`static let endOfMonth = Self.startOfMonth.months(1).days(-1)`).
  public subscript(dynamicMember keyPath: KeyPath<Self.Type, Self>) -> Self {
    Self(fragments: fragments + Self.self[keyPath: keyPath].fragments)
  }

  private func appending(_ literal: String) -> Self {
    Self(fragments: fragments + [QueryFragment(sql: literal)])
  }
}
