import Foundation

/// Dates are stored as UTC text, `yyyy-MM-dd HH:mm:ss.SSS`, the form SQLite's
/// date functions read and the form SQLiteData apps store. Reading also
/// accepts the ISO 8601 `T` separator with an optional `Z`, text without
/// milliseconds, and numbers (seconds since 1970).
extension Date: QueryBindable {
  public var queryBinding: QueryBinding { .text(SQLiteDateText.format(self)) }

  public init(decoder: inout some QueryDecoder) throws {
    let probe = decoder
    switch probe.storageName(at: probe.columnIndex) {
    case "INTEGER", "REAL":
      guard let seconds = try decoder.decodeDouble(as: "Date") else { throw probe.unexpectedNull(expected: "Date") }
      self = Date(timeIntervalSince1970: seconds)
    default:
      guard let text = try decoder.decodeText(as: "Date") else { throw probe.unexpectedNull(expected: "Date") }
      guard let date = SQLiteDateText.parse(text) else {
        throw probe.mismatch(expected: "Date", storage: "TEXT like '2026-01-31 12:00:00.000', not '\(text)'")
      }
      self = date
    }
  }
}

/// Formats and parses `yyyy-MM-dd HH:mm:ss.SSS` in UTC without Foundation's
/// formatters (fast, and independent of locale and time zone).
enum SQLiteDateText {
  static func format(_ date: Date) -> String {
    let totalMilliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    let days = floorDivide(totalMilliseconds, 86_400_000)
    let milliseconds = totalMilliseconds - days * 86_400_000
    let (year, month, day) = civilDate(fromDays: days)
    let hour = milliseconds / 3_600_000, minute = milliseconds / 60_000 % 60
    let second = milliseconds / 1000 % 60, millisecond = milliseconds % 1000
    return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + " "
      + pad(hour, 2) + ":" + pad(minute, 2) + ":" + pad(second, 2) + "." + pad(millisecond, 3)
  }

  static func parse(_ text: String) -> Date? {
    let bytes = Array(text.utf8)
    func number(_ range: Range<Int>) -> Int64? {
      guard range.upperBound <= bytes.count else { return nil }
      var value: Int64 = 0
      for byte in bytes[range] {
        guard (48...57).contains(byte) else { return nil }
        value = value * 10 + Int64(byte - 48)
      }
      return value
    }
    guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
          let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
          (1...12).contains(month), (1...31).contains(day)
    else { return nil }
    var hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0, fraction = 0.0
    var index = 10
    if bytes.count > 10 {
      guard bytes.count >= 16, bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), let h = number(11..<13), let m = number(14..<16)
      else { return nil }
      hour = h; minute = m; index = 16
      if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
        guard let s = number(17..<19) else { return nil }
        second = s; index = 19
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
          var scale = 0.1
          index += 1
          while index < bytes.count, (48...57).contains(bytes[index]) {
            fraction += Double(bytes[index] - 48) * scale
            scale /= 10
            index += 1
          }
        }
      }
      if index < bytes.count, bytes[index] == UInt8(ascii: "Z") { index += 1 }
      guard index == bytes.count, hour < 24, minute < 60, second < 61 else { return nil }
    }
    let days = daysFromCivil(year: year, month: month, day: day)
    let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second) + fraction
    return Date(timeIntervalSince1970: seconds)
  }

  private static func pad(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
  }

  private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
    a >= 0 ? a / b : -((-a + b - 1) / b)
  }

  // Howard Hinnant's civil-calendar algorithms (proleptic Gregorian).
  private static func civilDate(fromDays days: Int64) -> (Int64, Int64, Int64) {
    let z = days + 719_468
    let era = floorDivide(z, 146_097)
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = floorDivide(y, 400)
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }
}
