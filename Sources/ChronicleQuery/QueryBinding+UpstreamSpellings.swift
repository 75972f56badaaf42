import Foundation

// The names upstream's `QueryBinding` and `QueryDecodingError` give, for
// types of your own written as SQLiteData apps write them
// (`var queryBinding: QueryBinding { .int(hex) }`,
// `throw QueryDecodingError.missingRequiredColumn`).

extension QueryBinding {
  /// An integer: upstream's name for ``integer(_:)``.
  public static func int(_ value: Int64) -> Self { .integer(value) }

  /// A boolean, stored as the integer 0 or 1.
  public static func bool(_ value: Bool) -> Self { value.queryBinding }

  /// A date, stored as `Date` columns store it (UTC text).
  public static func date(_ value: Date) -> Self { value.queryBinding }

  /// A UUID, stored as `UUID` columns store it (lowercase text).
  public static func uuid(_ value: UUID) -> Self { value.queryBinding }

  /// A value that could not be made into one: running a statement that
  /// binds it fails with the error's description, and nothing is written.
  @_disfavoredOverload
  public static func invalid(_ error: any Error) -> Self { .invalid(String(describing: error)) }
}

extension QueryDecodingError {
  /// A NULL where the type being read allows none: what a type of your own
  /// throws from `init(decoder:)` when the column it read was NULL. (The
  /// decoder's own errors name the table and column; this one cannot.)
  public static var missingRequiredColumn: Self {
    var error = QueryDecodingError(
      table: nil, column: "(a column read by init(decoder:))", expected: "a value", found: "NULL", detail: nil)
    error.fix = "declare the property optional, or the column NOT NULL"
    return error
  }
}
