import Foundation

/// How SQLite stores a value of a type: the name a `CAST` converts to.
public enum SQLiteTypeAffinity: String, Sendable {
  case blob = "BLOB", integer = "INTEGER", numeric = "NUMERIC", real = "REAL", text = "TEXT"
}

/// A type that SQLite can convert an expression to with `CAST`.
public protocol SQLiteType: QueryBindable {
  /// The storage class `CAST(… AS …)` names for this type.
  static var typeAffinity: SQLiteTypeAffinity { get }
}

extension Bool: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .integer } }
extension Int: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .integer } }
extension Int64: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .integer } }
extension Int32: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .integer } }
extension Double: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .real } }
extension String: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .text } }
extension Data: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .blob } }
extension Optional: SQLiteType where Wrapped: SQLiteType {
  public static var typeAffinity: SQLiteTypeAffinity { Wrapped.typeAffinity }
}

extension QueryExpression {
  /// `CAST(self AS type)`: the value converted by SQLite's rules (text to a
  /// number reads its leading digits, a real to an integer drops the
  /// fraction). The type comes from the context when not given:
  ///
  /// ```swift
  /// Reminder.where { $0.priority.cast() > 1.5 }   // CAST("priority" AS REAL)
  /// Reminder.select { $0.isCompleted.cast(as: Int.self) }
  /// ```
  public func cast<Other: SQLiteType>(as type: Other.Type = Other.self) -> SQLQueryExpression<Other> {
    SQLQueryExpression(QueryFragment("CAST(") + queryFragment + QueryFragment(sql: " AS \(Other.typeAffinity.rawValue))"))
  }
}

extension UUID.BytesRepresentation: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .blob } }
extension UUID.UppercasedRepresentation: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .text } }
extension Date.UnixTimeRepresentation: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .integer } }
extension Date.JulianDayRepresentation: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .real } }
extension Date.ISO8601Representation: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .text } }
