import Foundation

/// A type that reads itself from result columns.
public protocol QueryDecodable {
  init(decoder: inout some QueryDecoder) throws
  /// How many result columns one value reads: 1 for a column's value, every
  /// column for a table row or a column group.
  static var queryColumnCount: Int { get }
}

extension QueryDecodable {
  public static var queryColumnCount: Int { 1 }
}

/// A Swift type stored in a column through another type (its
/// representation): `@Column(as: Representation.self)`. Every bindable type
/// represents itself.
public protocol QueryRepresentable<QueryOutput>: QueryDecodable {
  /// The Swift type of the model property.
  associatedtype QueryOutput
  init(queryOutput: QueryOutput)
  var queryOutput: QueryOutput { get }
  /// The database columns of a property named `name` stored through this
  /// type: `[name]`, or a column group's own columns.
  static func columnNames(forProperty name: String) -> [String]
  /// Appends the column values of `output` for an insert.
  static func appendColumns(named name: String, of output: QueryOutput, to values: inout [(column: String, value: QueryBinding)])
  /// Appends every column value of `output`, generated columns too, for a
  /// select of a row given in Swift (`Values(row)`). Defaults to
  /// ``appendColumns(named:of:to:)``.
  static func appendSelectedColumns(named name: String, of output: QueryOutput, to values: inout [(column: String, value: QueryBinding)])
  /// The JSON value `jsonObject()` writes for a property named `name`
  /// stored through this type, its columns qualified by `prefix`
  /// (`"reminders".`): `json_quote(column)`, a boolean as JSON's
  /// `true`/`false`, a JSON column as its JSON, a column group as an object
  /// of its own members.
  static func jsonObjectValue(named name: String, prefix: String) -> String
  /// Takes the value apart into SQLite values (see ``QueryEncoder``).
  func encode(to encoder: inout some QueryEncoder) throws(QueryEncodingError)
  /// The type of the value where it may be NULL: `Self?`, or `Self` when it
  /// is optional already (the columns of an outer join's nullable side).
  associatedtype Optionalized: QueryRepresentable = Self?
}

extension QueryRepresentable {
  @inlinable public static func columnNames(forProperty name: String) -> [String] { [name] }

  public static func appendSelectedColumns(named name: String, of output: QueryOutput, to values: inout [(column: String, value: QueryBinding)]) {
    appendColumns(named: name, of: output, to: &values)
  }

  public static func jsonObjectValue(named name: String, prefix: String) -> String {
    let columns = columnNames(forProperty: name)
    guard columns == [name] else {
      // Several columns with no member structure known: an object of them.
      return jsonObjectSQL(columns.map { ($0, "json_quote(\(prefix + quotedIdentifier($0)))") })
    }
    let column = prefix + quotedIdentifier(name)
    if Self.self == Bool.self || Self.self == Bool?.self {
      return "json(CASE \(column) WHEN 0 THEN 'false' WHEN 1 THEN 'true' END)"
    }
    if Self.self is any JSONText.Type { return "json(\(column))" }
    return "json_quote(\(column))"
  }
}

/// `json_object('key', value, …)` of SQL values. Used by the code `@Selection` generates.
public func jsonObjectSQL(_ members: [(key: String, value: String)]) -> String {
  "json_object(" + members.map { QueryBinding.text($0.key).sqlLiteral + ", " + $0.value }.joined(separator: ", ") + ")"
}

/// A value that can be bound to a statement and read back from a column:
/// Bool, the integer types, Double, String, Data, UUID, Date, optionals of
/// them, and `RawRepresentable` enums over them that declare conformance.
public protocol QueryBindable: QueryRepresentable, QueryExpression where QueryValue == Self {
  /// The value as bound to a statement.
  var queryBinding: QueryBinding { get }
}

extension QueryBindable {
  public var queryFragment: QueryFragment { QueryFragment(binding: queryBinding) }

  @inlinable
  public static func appendColumns(named name: String, of output: QueryOutput, to values: inout [(column: String, value: QueryBinding)]) {
    values.append((name, Self(queryOutput: output).queryBinding))
  }
}

extension QueryRepresentable where QueryOutput == Self {
  @inlinable public init(queryOutput: Self) { self = queryOutput }
  @inlinable public var queryOutput: Self { self }
}

extension Bool: QueryBindable {
  @inlinable public var queryBinding: QueryBinding { .integer(self ? 1 : 0) }
  @inlinable
  public init(decoder: inout some QueryDecoder) throws {
    guard let value = try decoder.decodeInteger(as: "Bool") else { throw decoder.unexpectedNull(expected: "Bool") }
    self = value != 0
  }
}

extension Int: QueryBindable {
  @inlinable public var queryBinding: QueryBinding { .integer(Int64(self)) }
  @inlinable
  public init(decoder: inout some QueryDecoder) throws {
    guard let value = try decoder.decodeInteger(as: "Int") else { throw decoder.unexpectedNull(expected: "Int") }
    self = Int(value)
  }
}

extension Int64: QueryBindable {
  @inlinable public var queryBinding: QueryBinding { .integer(self) }
  @inlinable
  public init(decoder: inout some QueryDecoder) throws {
    guard let value = try decoder.decodeInteger(as: "Int64") else { throw decoder.unexpectedNull(expected: "Int64") }
    self = value
  }
}

extension Int32: QueryBindable {
  @inlinable public var queryBinding: QueryBinding { .integer(Int64(self)) }
  @inlinable
  public init(decoder: inout some QueryDecoder) throws { self = try decodeNarrowInteger(&decoder, as: "Int32") }
}

extension Double: QueryBindable {
  @inlinable public var queryBinding: QueryBinding { .double(self) }
  @inlinable
  public init(decoder: inout some QueryDecoder) throws {
    guard let value = try decoder.decodeDouble(as: "Double") else { throw decoder.unexpectedNull(expected: "Double") }
    self = value
  }
}

extension String: QueryBindable {
  @inlinable public var queryBinding: QueryBinding { .text(self) }
  @inlinable
  public init(decoder: inout some QueryDecoder) throws {
    guard let value = try decoder.decodeText(as: "String") else { throw decoder.unexpectedNull(expected: "String") }
    self = value
  }
}

extension Data: QueryBindable {
  @inlinable public var queryBinding: QueryBinding { .blob(Array(self)) }
  @inlinable
  public init(decoder: inout some QueryDecoder) throws {
    guard let value = try decoder.decodeBlob(as: "Data") else { throw decoder.unexpectedNull(expected: "Data") }
    self = Data(value)
  }
}

/// Bytes, stored as a BLOB as `Data` is: `var thumbnail: [UInt8]`.
extension Array: QueryExpression, QueryDecodable, QueryRepresentable, QueryBindable where Element == UInt8 {
  public typealias QueryValue = Self
  @inlinable public var queryBinding: QueryBinding { .blob(self) }
  @inlinable
  public init(decoder: inout some QueryDecoder) throws {
    guard let value = try decoder.decodeBlob(as: "[UInt8]") else { throw decoder.unexpectedNull(expected: "[UInt8]") }
    self = value
  }
}

extension UUID: QueryBindable {
  /// Lowercase text, as `uuid()` makes them.
  @inlinable public var queryBinding: QueryBinding { .text(uuidString.lowercased()) }
  @inlinable
  public init(decoder: inout some QueryDecoder) throws {
    let probe = decoder
    guard let text = try decoder.decodeText(as: "UUID") else { throw decoder.unexpectedNull(expected: "UUID") }
    guard let uuid = UUID(uuidString: text) else { throw probe.mismatch(expected: "UUID", storage: "TEXT holding a UUID, not '\(text)'") }
    self = uuid
  }
}

extension Optional: QueryRepresentable where Wrapped: QueryRepresentable {
  public typealias QueryOutput = Wrapped.QueryOutput?
  public typealias Optionalized = Self
  @inlinable public init(queryOutput: Wrapped.QueryOutput?) { self = queryOutput.map(Wrapped.init(queryOutput:)) }
  @inlinable public var queryOutput: Wrapped.QueryOutput? { self?.queryOutput }

  @inlinable public static func columnNames(forProperty name: String) -> [String] { Wrapped.columnNames(forProperty: name) }

  @inlinable
  public static func appendColumns(named name: String, of output: Wrapped.QueryOutput?, to values: inout [(column: String, value: QueryBinding)]) {
    if let output {
      Wrapped.appendColumns(named: name, of: output, to: &values)
    } else {
      for column in Wrapped.columnNames(forProperty: name) { values.append((column, .null)) }
    }
  }

  public static func jsonObjectValue(named name: String, prefix: String) -> String {
    Wrapped.jsonObjectValue(named: name, prefix: prefix)
  }

  public static func appendSelectedColumns(named name: String, of output: Wrapped.QueryOutput?, to values: inout [(column: String, value: QueryBinding)]) {
    if let output {
      Wrapped.appendSelectedColumns(named: name, of: output, to: &values)
    } else {
      for column in Wrapped.columnNames(forProperty: name) { values.append((column, .null)) }
    }
  }
}

extension Optional: QueryDecodable where Wrapped: QueryDecodable {
  /// nil when every column of the value is NULL (a whole row: the missing
  /// side of an outer join).
  @inlinable
  public init(decoder: inout some QueryDecoder) throws {
    let count = Wrapped.queryColumnCount
    if count == 1 {
      guard decoder.nextIsNull else {
        self = try Wrapped(decoder: &decoder)
        return
      }
      decoder.skip()
      self = nil
    } else if decoder.nextAreNull(count) {
      for _ in 0..<count { decoder.skip() }
      self = nil
    } else {
      self = try Wrapped(decoder: &decoder)
    }
  }

  public static var queryColumnCount: Int { Wrapped.queryColumnCount }
}

extension Optional: QueryExpression where Wrapped: QueryBindable {
  public typealias QueryValue = Wrapped?
  public var queryFragment: QueryFragment { QueryFragment(binding: queryBinding) }
}

extension Optional: QueryBindable where Wrapped: QueryBindable {
  @inlinable public var queryBinding: QueryBinding { self?.queryBinding ?? .null }
}

extension QueryBindable where Self: RawRepresentable, RawValue: QueryBindable {
  @inlinable public var queryBinding: QueryBinding { rawValue.queryBinding }
  @inlinable
  public init(decoder: inout some QueryDecoder) throws {
    let probe = decoder
    let raw = try RawValue(decoder: &decoder)
    guard let value = Self(rawValue: raw) else {
      throw probe.mismatch(expected: "\(Self.self)", storage: "one of its raw values, not \(raw)")
    }
    self = value
  }
}
