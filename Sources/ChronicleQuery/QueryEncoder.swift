import Foundation

/// A type that takes a row (or any value a column holds) apart into SQLite
/// values, as upstream's encoders do: the values of each column in
/// declaration order, a column group's columns each in turn, and one
/// ``encodeNull()`` per column of a value that is absent.
///
/// ```swift
/// struct ColumnRecorder: QueryEncoder {
///   var names: [[String]] = []
///   mutating func encode(_ value: String) { … }   // and the other values
///   mutating func encode<Column: _TableColumnExpression>(
///     _ column: @autoclosure () -> Column, _ value: Column.Value.QueryOutput
///   ) throws(QueryEncodingError) where Column.Value: QueryEncodable {
///     names.append(column()._names)
///     try Column.Value(queryOutput: value).encode(to: &self)
///   }
/// }
/// try reminder.encode(to: &recorder)
/// ```
public protocol QueryEncoder {
  /// Encodes a BLOB.
  mutating func encode(_ value: [UInt8]) throws(QueryEncodingError)
  /// Encodes a boolean.
  mutating func encode(_ value: Bool) throws(QueryEncodingError)
  /// Encodes a date.
  mutating func encode(_ value: Date) throws(QueryEncodingError)
  /// Encodes a REAL.
  mutating func encode(_ value: Double) throws(QueryEncodingError)
  /// Encodes an integer.
  mutating func encode(_ value: Int) throws(QueryEncodingError)
  /// Encodes a 64-bit integer.
  mutating func encode(_ value: Int64) throws(QueryEncodingError)
  /// Encodes TEXT.
  mutating func encode(_ value: String) throws(QueryEncodingError)
  /// Encodes an unsigned 64-bit integer.
  mutating func encode(_ value: UInt64) throws(QueryEncodingError)
  /// Encodes a UUID.
  mutating func encode(_ value: UUID) throws(QueryEncodingError)
  /// Encodes an absent value: once per column of an absent optional value.
  mutating func encodeNull() throws(QueryEncodingError)
  /// Encodes a row's value for one of its columns. The default encodes the
  /// value and leaves the column; an encoder of a keyed format names the
  /// value with the column's names (`column()._names`).
  mutating func encode<Column: _TableColumnExpression>(
    _ column: @autoclosure () -> Column,
    _ value: Column.Value.QueryOutput
  ) throws(QueryEncodingError) where Column.Value: QueryEncodable
}

extension QueryEncoder {
  public mutating func encode<Column: _TableColumnExpression>(
    _ column: @autoclosure () -> Column,
    _ value: Column.Value.QueryOutput
  ) throws(QueryEncodingError) where Column.Value: QueryEncodable {
    try Column.Value(queryOutput: value).encode(to: &self)
  }

  /// Encodes a value as it is bound to a statement.
  mutating func encode(binding: QueryBinding) throws(QueryEncodingError) {
    switch binding {
    case .null: try encodeNull()
    case .integer(let value): try encode(value)
    case .double(let value): try encode(value)
    case .text(let value): try encode(value)
    case .blob(let value): try encode(value)
    case .invalid(let message): throw .other(InvalidQueryValue(message: message))
    }
  }
}

/// An error an encoder throws, or that a value throws when it cannot be
/// encoded.
public enum QueryEncodingError: Error {
  /// A value was corrupted or otherwise invalid.
  case dataCorrupted
  /// Another error, while encoding a column.
  case other(any Error)
}

/// A value that has no SQLite form (a `Codable` value JSON cannot encode).
struct InvalidQueryValue: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}

/// Upstream's name for what an encoder takes apart: every value a column
/// holds (``QueryRepresentable``) is one.
public typealias QueryEncodable = QueryRepresentable

/// A table column, as an encoder sees it: the type it holds and the
/// database columns it spans.
public protocol _TableColumnExpression {
  /// The type the column holds.
  associatedtype Value: QueryRepresentable
  /// The database columns: one, or a column group's.
  var _names: [String] { get }
}

extension TableColumn: _TableColumnExpression {
  public var _names: [String] { names }
}

/// A member of a `@Selection` group, as an encoder sees it (what the
/// macro's `encode(to:)` hands over for each member).
public struct _GroupMemberColumn<Value: QueryRepresentable>: _TableColumnExpression {
  public let _names: [String]
  public init(_ name: String) { _names = Value.columnNames(forProperty: name) }
}

/// One database column of a column group, with its value as bound.
struct GroupMemberColumn: _TableColumnExpression {
  typealias Value = BoundColumnValue
  let _names: [String]
}

/// A value as bound to a statement, for a group member's encoding.
struct BoundColumnValue: QueryBindable {
  let queryBinding: QueryBinding
  init(_ binding: QueryBinding) { queryBinding = binding }
  init(decoder: inout some QueryDecoder) throws {
    throw QueryDecodingError(
      table: nil, column: "a column group's member", expected: "nothing: this value is only encoded", found: "a read", detail: nil, fix: nil)
  }
}
