import Foundation
import GRDB

/// A value bound to a statement parameter (`?`).
public enum QueryBinding: Hashable, Sendable {
  case null
  case integer(Int64)
  case double(Double)
  case text(String)
  case blob([UInt8])
  /// A value that could not be made into one (a Codable value JSON could not
  /// encode): running a statement that binds it fails with this message,
  /// and nothing is written.
  case invalid(String)

  /// The value written as an SQL literal that SQLite reads back as the same
  /// value (NaN, which SQLite stores as NULL, is written NULL).
  public var sqlLiteral: String {
    switch self {
    case .null: return "NULL"
    case .integer(let value): return String(value)
    case .double(let value):
      if value.isNaN { return "NULL" }
      if value.isInfinite { return value < 0 ? "-1e999" : "1e999" }
      return "\(value)"
    case .text(let value): return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
    case .blob(let value): return "X'" + value.map { String(format: "%02X", $0) }.joined() + "'"
    // An identifier no table has: a view or trigger body holding it fails
    // with "no such column: cannot bind …" instead of storing a wrong value.
    case .invalid(let problem): return quotedIdentifier("cannot bind: \(problem)")
    }
  }
}

/// A piece of SQL with `?` placeholders and the values bound to them, in order.
public struct QueryFragment: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
  public private(set) var sql: String
  public private(set) var bindings: [QueryBinding]
  /// The fragment calls an aggregate function of the query builder
  /// (`max`, `sum`, `count`, a `@DatabaseFunction` aggregate), itself or in
  /// a fragment appended to it: `map` and `flatMap` on an optional leave
  /// their NULL test out around one, which would read a single row's value
  /// where the aggregate reads them all.
  var containsAggregate = false

  public init(sql: String = "", bindings: [QueryBinding] = []) {
    self.sql = sql
    self.bindings = bindings
  }

  public init(stringLiteral value: String) { self.init(sql: value) }

  /// A single `?` bound to `binding`.
  public init(binding: QueryBinding) { self.init(sql: "?", bindings: [binding]) }

  public var isEmpty: Bool { sql.isEmpty }

  public mutating func append(_ other: QueryFragment) {
    sql += other.sql
    bindings += other.bindings
    containsAggregate = containsAggregate || other.containsAggregate
  }

  public mutating func append(_ sql: String) { self.sql += sql }

  public static func + (lhs: QueryFragment, rhs: QueryFragment) -> QueryFragment {
    var result = lhs
    result.append(rhs)
    return result
  }

  /// The SQL with every binding written in place as a literal, a clause
  /// to a line (subqueries indented), as upstream's snapshots show it: for
  /// reading and snapshot tests, never for execution.
  public var description: String { SQLLayout.lines(inlinedSQL) }
}

extension Array where Element == QueryFragment {
  /// The fragments separated by `separator`.
  public func joined(separator: String) -> QueryFragment {
    var result = QueryFragment()
    for (index, fragment) in enumerated() {
      if index > 0 { result.append(separator) }
      result.append(fragment)
    }
    return result
  }
}

/// `name` as a quoted SQL identifier.
public func quotedIdentifier(_ name: String) -> String {
  guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"\(name)\"" }
  var quoted = "\""
  for character in name {
    if character == "\"" { quoted += "\"\"" } else { quoted.append(character) }
  }
  return quoted + "\""
}
