/// A collating sequence: how text compares and sorts.
///
/// SQLite's own are ``NamedCollation/binary``, ``NamedCollation/nocase`` and
/// ``NamedCollation/rtrim``; one registered on the connection (GRDB's
/// `db.add(collation:)`) is named with ``NamedCollation``:
///
/// ```swift
/// extension Collation where Self == NamedCollation {
///   static var localized: Self { NamedCollation("localized") }
/// }
/// Reminder.order { $0.title.collate(.localized) }
/// // ORDER BY "reminders"."title" COLLATE "localized"
/// ```
public protocol Collation: Sendable {
  /// The name the connection knows the collating sequence by.
  var name: String { get }
}

/// A collating sequence known to the connection by name.
public struct NamedCollation: Collation {
  public let name: String

  public init(_ name: String) { self.name = name }

  /// The name of another collating sequence.
  public init(_ collation: some Collation) { self.name = collation.name }
}

extension Collation where Self == NamedCollation {
  /// Byte by byte (SQLite's default).
  public static var binary: Self { NamedCollation("BINARY") }
  /// ASCII letters compare without case.
  public static var nocase: Self { NamedCollation("NOCASE") }
  /// Trailing spaces are ignored.
  public static var rtrim: Self { NamedCollation("RTRIM") }
}

extension QueryExpression where QueryValue == String {
  /// `self COLLATE "name"`: compared and sorted by `collation`.
  public func collate(_ collation: some Collation) -> SQLQueryExpression<String> {
    SQLQueryExpression(queryFragment + QueryFragment(sql: " COLLATE \(quotedIdentifier(collation.name))"))
  }
}

extension QueryExpression where QueryValue == String? {
  /// `self COLLATE "name"`: compared and sorted by `collation`.
  public func collate(_ collation: some Collation) -> SQLQueryExpression<String?> {
    SQLQueryExpression(queryFragment + QueryFragment(sql: " COLLATE \(quotedIdentifier(collation.name))"))
  }
}
