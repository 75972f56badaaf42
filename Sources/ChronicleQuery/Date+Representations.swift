import Foundation

// Dates stored other than as text, for `@Column(as:)`: whole seconds since
// 1970 (INTEGER), a Julian day number (REAL), or the default text spelled
// out. `@Column(as: Date?.UnixTimeRepresentation.self)` stores an optional.

extension Date {
  /// A date stored as whole seconds since 1970 (INTEGER), rounded down.
  ///
  /// ```swift
  /// @Table struct Item {
  ///   let id: Int
  ///   @Column(as: Date.UnixTimeRepresentation.self) var createdAt: Date
  /// }
  /// Item.insert { $0.createdAt } values: { Date(timeIntervalSince1970: 1_517_212_800) }
  /// // INSERT INTO "items" ("createdAt") VALUES (1517212800)
  /// ```
  ///
  /// Reading accepts INTEGER and REAL values.
  public struct UnixTimeRepresentation: QueryBindable, Hashable, Sendable {
    public var queryOutput: Date

    public init(queryOutput: Date) {
      self.queryOutput = queryOutput
    }

    public var queryBinding: QueryBinding {
      .integer(Int64(queryOutput.timeIntervalSince1970.rounded(.down)))
    }

    public init(decoder: inout some QueryDecoder) throws {
      let probe = decoder
      guard let seconds = try decoder.decodeDouble(as: "Date (seconds since 1970)") else {
        throw probe.unexpectedNull(expected: "Date (seconds since 1970)")
      }
      queryOutput = Date(timeIntervalSince1970: seconds)
    }
  }

  /// A date stored as a Julian day number (REAL), the form SQLite's
  /// `julianday()` gives: `2440587.5` is 1970-01-01 00:00 UTC.
  public struct JulianDayRepresentation: QueryBindable, Hashable, Sendable {
    public var queryOutput: Date

    public init(queryOutput: Date) {
      self.queryOutput = queryOutput
    }

    public var queryBinding: QueryBinding {
      .double(Self.unixEpoch + queryOutput.timeIntervalSince1970 / 86_400)
    }

    public init(decoder: inout some QueryDecoder) throws {
      let probe = decoder
      guard let day = try decoder.decodeDouble(as: "Date (Julian day)") else {
        throw probe.unexpectedNull(expected: "Date (Julian day)")
      }
      queryOutput = Date(timeIntervalSince1970: (day - Self.unixEpoch) * 86_400)
    }

    /// The Julian day of 1970-01-01 00:00 UTC.
    static let unixEpoch = 2_440_587.5
  }

  /// A date stored as UTC text, `yyyy-MM-dd HH:mm:ss.SSS`: how a `Date`
  /// column is stored without `@Column(as:)`, for models that spell it out.
  public struct ISO8601Representation: QueryBindable, Hashable, Sendable {
    public var queryOutput: Date

    public init(queryOutput: Date) {
      self.queryOutput = queryOutput
    }

    public var queryBinding: QueryBinding { queryOutput.queryBinding }

    public init(decoder: inout some QueryDecoder) throws {
      queryOutput = try Date(decoder: &decoder)
    }
  }
}

extension Optional where Wrapped == Date {
  /// An optional date stored as seconds since 1970.
  public typealias UnixTimeRepresentation = Date.UnixTimeRepresentation?
  /// An optional date stored as a Julian day number.
  public typealias JulianDayRepresentation = Date.JulianDayRepresentation?
  /// An optional date stored as UTC text.
  public typealias ISO8601Representation = Date.ISO8601Representation?
}
