import Foundation

// SQLite's date and time functions on date columns, whatever their storage:
// components (`$0.startsAt.year`), formatting (`strftime`), and dates moved
// by modifiers (`$0.createdAt(.startOfDay.days(-7))`, `.now(.days(7))`).
//
// SQLite reads a stored date through its time-value arguments: text and
// Julian days as they are, Unix times with the 'unixepoch' modifier. A
// modified date keeps its arguments, so modifying it again or reading a
// component of it extends one call rather than nesting two.

/// How a date is stored, for SQLite's date and time functions: what reads
/// it as a time value, and which function gives a date back in that storage.
public protocol _SQLiteDateRepresentation: QueryRepresentable where QueryOutput == Date {
  /// The modifiers that make SQLite read a stored value as a time value.
  static var _timeValueModifiers: [QueryFragment] { get }
  /// The SQL that gives a date in this storage from time-value arguments.
  static func _dateStorage(_ arguments: [QueryFragment]) -> QueryFragment
}

extension Date: _SQLiteDateRepresentation {
  public static var _timeValueModifiers: [QueryFragment] { [] }
  /// `strftime('%Y-%m-%d %H:%M:%f', …)`, the text `Date` columns hold, to
  /// the millisecond. (Upstream writes `datetime(…, 'subsec')`, which needs
  /// SQLite 3.42; Debian 12 has 3.40, and both give the same text.)
  public static func _dateStorage(_ arguments: [QueryFragment]) -> QueryFragment {
    QueryFragment("strftime(") + ([QueryFragment("'%Y-%m-%d %H:%M:%f'")] + arguments).joined(separator: ", ") + QueryFragment(")")
  }
}

extension Date.UnixTimeRepresentation: _SQLiteDateRepresentation {
  public static var _timeValueModifiers: [QueryFragment] { [QueryFragment("'unixepoch'")] }
  public static func _dateStorage(_ arguments: [QueryFragment]) -> QueryFragment {
    QueryFragment("unixepoch(") + arguments.joined(separator: ", ") + QueryFragment(")")
  }
}

extension Date.JulianDayRepresentation: _SQLiteDateRepresentation {
  public static var _timeValueModifiers: [QueryFragment] { [] }
  public static func _dateStorage(_ arguments: [QueryFragment]) -> QueryFragment {
    QueryFragment("julianday(") + arguments.joined(separator: ", ") + QueryFragment(")")
  }
}

extension QueryExpression where QueryValue: _SQLiteDateRepresentation {
  /// This date moved by `modifier`, in the same storage: written as a call
  /// of the date, `$0.createdAt(.days(-7))`.
  ///
  /// ```swift
  /// Reminder.select { $0.createdAt(.startOfDay.days(-7)) }
  /// // SELECT strftime('%Y-%m-%d %H:%M:%f', "reminders"."createdAt", 'start of day', '-7 days') FROM "reminders"
  /// ```
  public func callAsFunction(_ modifier: DateTimeModifier) -> _ModifiedDate<QueryValue> {
    _ModifiedDate(arguments: timeValueArguments + modifier.fragments)
  }

  /// This date as text, formatted by `format` (`%Y-%m-%d`, `%H:%M`, … as
  /// SQLite's `strftime` reads them); NULL for a value that is not a date.
  public func strftime(_ format: String) -> SQLQueryExpression<String?> {
    SQLQueryExpression(QueryFragment("strftime(") + ([format.queryFragment] + timeValueArguments).joined(separator: ", ") + QueryFragment(")"))
  }

  /// The year (`%Y`).
  public var year: SQLQueryExpression<Int> { component("%Y") }
  /// The month, 1 to 12 (`%m`).
  public var month: SQLQueryExpression<Int> { component("%m") }
  /// The day of the month (`%d`).
  public var day: SQLQueryExpression<Int> { component("%d") }
  /// The hour, 0 to 23 (`%H`).
  public var hour: SQLQueryExpression<Int> { component("%H") }
  /// The minute (`%M`).
  public var minute: SQLQueryExpression<Int> { component("%M") }
  /// The whole second (`%S`).
  public var second: SQLQueryExpression<Int> { component("%S") }
  /// The second with its fraction (`%f`).
  public var fractionalSecond: SQLQueryExpression<Double> { component("%f", as: "REAL") }
  /// The day of the week, 0 (Sunday) to 6 (`%w`).
  public var weekday: SQLQueryExpression<Int> { component("%w") }
  /// The day of the year, 1 to 366 (`%j`).
  public var dayOfYear: SQLQueryExpression<Int> { component("%j") }

  /// What SQLite reads this date from: the expression and its storage's
  /// modifiers, or a modified date's own arguments.
  var timeValueArguments: [QueryFragment] {
    (self as? any _TimeValue)?.timeValueArguments ?? [queryFragment] + QueryValue._timeValueModifiers
  }

  private func component<T>(_ format: String, as type: String = "INTEGER") -> SQLQueryExpression<T> {
    SQLQueryExpression(
      QueryFragment(sql: "CAST(strftime('\(format)', ") + timeValueArguments.joined(separator: ", ") + QueryFragment(sql: ") AS \(type))"))
  }
}

/// A date given by time-value arguments: `'now'`, or a stored date, moved by
/// modifiers.
protocol _TimeValue {
  var timeValueArguments: [QueryFragment] { get }
}

/// A date moved by modifiers, in the storage `QueryValue` (see
/// ``DateTimeModifier``): `unixepoch(…)`, `julianday(…)` or the text of a
/// `Date` column.
public struct _ModifiedDate<QueryValue: _SQLiteDateRepresentation>: QueryExpressionSyntax, _TimeValue {
  var arguments: [QueryFragment] = [QueryFragment("'now'")]

  var timeValueArguments: [QueryFragment] { arguments }

  public var queryFragment: QueryFragment { QueryValue._dateStorage(arguments) }
}

extension QueryExpression where Self == _ModifiedDate<Date> {
  /// The current date and time (UTC), as text: `.now(.days(7))` a week on.
  public static var now: Self { Self() }
}

extension QueryExpression where Self == _ModifiedDate<Date.UnixTimeRepresentation> {
  /// The current date and time, in seconds since 1970.
  public static var now: Self { Self() }
}

extension QueryExpression where Self == _ModifiedDate<Date.JulianDayRepresentation> {
  /// The current date and time, as a Julian day.
  public static var now: Self { Self() }
}
