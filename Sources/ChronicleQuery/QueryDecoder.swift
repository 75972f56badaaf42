import Foundation
import GRDB
import GRDBSQLite

/// Reads the columns of the current result row, left to right, or the
/// arguments of a call to a Swift database function: what
/// `init(decoder: inout some QueryDecoder)` reads, as upstream spells it.
///
/// Generated `init(decoder:)` implementations read each column in the order
/// the columns were selected; a type of your own usually reads through a
/// type it is stored as (`self.init(hex: try Int(decoder: &decoder))`), or
/// as upstream's do, through `decode(_:)`, nil for a NULL.
public protocol QueryDecoder {
  /// The next column to read.
  var columnIndex: Int32 { get }
  /// Whether the next column is NULL (does not advance).
  var nextIsNull: Bool { get }
  /// Whether the next `count` columns are all NULL (does not advance).
  func nextAreNull(_ count: Int) -> Bool
  /// Skips the next column.
  mutating func skip()
  /// The storage class of column `index` of the current row, as SQLite
  /// names it: INTEGER, REAL, TEXT, BLOB or NULL.
  func storageName(at index: Int32) -> String
  /// The next column as an integer; nil when NULL. `swiftType` names the
  /// type being read, for the error when the column holds something else.
  mutating func decodeInteger(as swiftType: String) throws -> Int64?
  /// The next column as a double (INTEGER values convert); nil when NULL.
  mutating func decodeDouble(as swiftType: String) throws -> Double?
  /// The next column as text; nil when NULL.
  mutating func decodeText(as swiftType: String) throws -> String?
  /// The next column as bytes; nil when NULL.
  mutating func decodeBlob(as swiftType: String) throws -> [UInt8]?
  /// The error for the current column holding something else than `expected`.
  func mismatch(expected: String, storage: String?) -> QueryDecodingError
  /// The error for a row of an enum selection (`@Selection enum`) whose
  /// cases' columns, from this column on, are all NULL.
  func noCase(of type: String, cases: [String]) -> QueryDecodingError
  /// The error for a NULL where `expected` allows none.
  func unexpectedNull(expected: String) -> QueryDecodingError
}

extension QueryDecoder {
  /// Decodes the next column (or columns, for a group or a row) as `T`'s
  /// Swift value; nil when it is NULL (every column of a group or row NULL),
  /// as upstream's `decode` reads:
  /// `guard let hex = try decoder.decode(Int.self) else { throw QueryDecodingError.missingRequiredColumn }`.
  @inlinable
  public mutating func decode<T: QueryRepresentable>(_ columnType: T.Type) throws -> T.QueryOutput? {
    try T?(decoder: &self)?.queryOutput
  }

  /// Decodes the next column (or columns) as `T`, its type inferred; nil
  /// when it is NULL.
  @inlinable
  public mutating func decode<T: QueryRepresentable<T>>(_ columnType: T.Type = T.self) throws -> T? {
    try T?(decoder: &self)
  }

  /// Decodes one value of each type, left to right, none of them optional
  /// unless its type is: `let (id, title) = try decoder.decodeColumns((Int, String).self)`.
  /// A NULL a type cannot hold fails, naming the column.
  @inlinable
  public mutating func decodeColumns<each T: QueryRepresentable>(
    _ columnTypes: (repeat each T).Type
  ) throws -> (repeat (each T).QueryOutput) {
    (repeat try (each T)(decoder: &self).queryOutput)
  }

  /// The error for the current column holding something else than `expected`.
  public func mismatch(expected: String) -> QueryDecodingError {
    mismatch(expected: expected, storage: nil)
  }
}

/// The ``QueryDecoder`` of a statement's result row or a database
/// function's arguments, through SQLite's C API.
public struct SQLiteQueryDecoder: QueryDecoder {
  @usableFromInline let statement: OpaquePointer?
  /// The function arguments read, when not a statement's columns.
  @usableFromInline let arguments: [DatabaseValue]?
  /// The table being read, for error messages.
  @usableFromInline let tableName: String?
  @usableFromInline var index: Int32 = 0

  /// The next column to read.
  public var columnIndex: Int32 { index }

  @usableFromInline
  init(statement: OpaquePointer, tableName: String?) {
    self.statement = statement
    self.arguments = nil
    self.tableName = tableName
  }

  /// A decoder of a database function's arguments; `function` names it in errors.
  init(arguments: [DatabaseValue], function: String) {
    self.statement = nil
    self.arguments = arguments
    self.tableName = function
  }

  /// The SQLite storage class of column (or argument) `index`.
  @inlinable
  func storageClass(at index: Int32) -> Int32 {
    if let arguments {
      guard Int(index) < arguments.count else { return SQLITE_NULL }
      switch arguments[Int(index)].storage {
      case .null: return SQLITE_NULL
      case .int64: return SQLITE_INTEGER
      case .double: return SQLITE_FLOAT
      case .string: return SQLITE_TEXT
      case .blob: return SQLITE_BLOB
      }
    }
    return sqlite3_column_type(statement, index)
  }

  /// Whether the next column is NULL (does not advance).
  @inlinable
  public var nextIsNull: Bool { storageClass(at: index) == SQLITE_NULL }

  /// Whether the next `count` columns are all NULL (does not advance).
  @inlinable
  public func nextAreNull(_ count: Int) -> Bool {
    (0..<Int32(count)).allSatisfy { storageClass(at: index + $0) == SQLITE_NULL }
  }

  /// Skips the next column.
  @inlinable
  public mutating func skip() { index += 1 }

  /// The next column as an integer; nil when NULL.
  @inlinable
  public mutating func decodeInteger(as swiftType: String) throws -> Int64? {
    defer { index += 1 }
    if let arguments { return try argument(arguments, expected: swiftType, storage: "INTEGER") { if case .int64(let v) = $0 { v } else { nil } } }
    switch sqlite3_column_type(statement, index) {
    case SQLITE_NULL: return nil
    case SQLITE_INTEGER: return sqlite3_column_int64(statement, index)
    default: throw mismatch(expected: swiftType, storage: "INTEGER")
    }
  }

  /// The next column as a double (INTEGER values convert); nil when NULL.
  @inlinable
  public mutating func decodeDouble(as swiftType: String) throws -> Double? {
    defer { index += 1 }
    if let arguments {
      return try argument(arguments, expected: swiftType, storage: "REAL") {
        switch $0 { case .double(let v): v; case .int64(let v): Double(v); default: nil }
      }
    }
    switch sqlite3_column_type(statement, index) {
    case SQLITE_NULL: return nil
    case SQLITE_FLOAT, SQLITE_INTEGER: return sqlite3_column_double(statement, index)
    default: throw mismatch(expected: swiftType, storage: "REAL")
    }
  }

  /// The next column as text; nil when NULL.
  @inlinable
  public mutating func decodeText(as swiftType: String) throws -> String? {
    defer { index += 1 }
    if let arguments { return try argument(arguments, expected: swiftType, storage: "TEXT") { if case .string(let v) = $0 { v } else { nil } } }
    switch sqlite3_column_type(statement, index) {
    case SQLITE_NULL: return nil
    case SQLITE_TEXT:
      guard let bytes = sqlite3_column_text(statement, index) else { return "" }
      let count = Int(sqlite3_column_bytes(statement, index))
      return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    default: throw mismatch(expected: swiftType, storage: "TEXT")
    }
  }

  /// The next column as bytes; nil when NULL.
  @inlinable
  public mutating func decodeBlob(as swiftType: String) throws -> [UInt8]? {
    defer { index += 1 }
    if let arguments { return try argument(arguments, expected: swiftType, storage: "BLOB") { if case .blob(let v) = $0 { Array(v) } else { nil } } }
    switch sqlite3_column_type(statement, index) {
    case SQLITE_NULL: return nil
    case SQLITE_BLOB:
      let count = Int(sqlite3_column_bytes(statement, index))
      guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return [] }
      return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    default: throw mismatch(expected: swiftType, storage: "BLOB")
    }
  }

  /// The current argument converted by `value`; nil when NULL (or absent).
  @usableFromInline
  func argument<T>(
    _ arguments: [DatabaseValue], expected: String, storage: String, _ value: (DatabaseValue.Storage) -> T?
  ) throws -> T? {
    guard Int(index) < arguments.count else { return nil }
    let argument = arguments[Int(index)]
    if argument.isNull { return nil }
    guard let converted = value(argument.storage) else { throw mismatch(expected: expected, storage: storage) }
    return converted
  }

  public func storageName(at index: Int32) -> String {
    switch storageClass(at: index) {
    case SQLITE_INTEGER: return "INTEGER"
    case SQLITE_FLOAT: return "REAL"
    case SQLITE_TEXT: return "TEXT"
    case SQLITE_BLOB: return "BLOB"
    default: return "NULL"
    }
  }

  var columnName: String {
    if arguments != nil { return "argument \(index + 1)" }
    return sqlite3_column_name(statement, index).map { String(cString: $0) } ?? "#\(index + 1)"
  }

  /// The error for the current column holding something else than `expected`.
  public func mismatch(expected: String, storage: String?) -> QueryDecodingError {
    QueryDecodingError(
      table: tableName, column: columnName, expected: expected,
      found: storageName(at: index), detail: storage.map { "\(expected) is stored as \($0)" })
  }

  /// The error for a row of an enum selection (`@Selection enum`) whose
  /// cases' columns, from this column on, are all NULL.
  public func noCase(of type: String, cases: [String]) -> QueryDecodingError {
    var error = QueryDecodingError(
      table: tableName, column: columnName, expected: type, found: "NULL", detail: "the columns of every case (\(cases.joined(separator: ", "))) are NULL")
    error.fix = "store one case's value in the row, or declare the property optional (\(type)?)"
    return error
  }

  /// The error for a NULL where `expected` allows none.
  public func unexpectedNull(expected: String) -> QueryDecodingError {
    QueryDecodingError(table: tableName, column: columnName, expected: expected, found: "NULL", detail: "declare the property optional (\(expected)?) or the column NOT NULL")
  }
}

/// A result column that does not hold what the Swift type needs.
public struct QueryDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
  public var table: String?
  public var column: String
  public var expected: String
  public var found: String
  public var detail: String?
  /// How to fix it, when it is not making the types agree.
  public var fix: String?

  public var description: String {
    let place = table.map { "\($0).\(column)" } ?? column
    var message = "cannot decode column \(place): expected \(expected), found \(found)"
    if let detail { message += " (\(detail))" }
    return message + ". Fix: \(fix ?? "make the column's declared type and the Swift property's type agree")."
  }
}

/// Decodes one value of each type, left to right.
func decodeTuple<each V: QueryDecodable>(_ decoder: inout SQLiteQueryDecoder, _ types: repeat (each V).Type) throws -> (repeat each V) {
  (repeat try (each V)(decoder: &decoder))
}

/// The Swift values of representations read one after another.
func decodeOutputs<each V: QueryRepresentable>(_ decoder: inout SQLiteQueryDecoder, _ types: repeat (each V).Type) throws -> (repeat (each V).QueryOutput) {
  (repeat try (each V)(decoder: &decoder).queryOutput)
}
