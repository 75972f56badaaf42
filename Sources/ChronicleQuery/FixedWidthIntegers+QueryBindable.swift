// The integer types besides Int, Int64 and Int32, and Float: stored as
// INTEGER and REAL; a stored value outside the type's range fails to decode
// with an error naming it, and a UInt64 too large for SQLite's INTEGER
// fails the statement that binds it (nothing is written).

extension Int8: QueryBindable {
  @inlinable public var queryBinding: QueryBinding { .integer(Int64(self)) }
  @inlinable public init(decoder: inout some QueryDecoder) throws { self = try decodeNarrowInteger(&decoder, as: "Int8") }
}

extension Int16: QueryBindable {
  @inlinable public var queryBinding: QueryBinding { .integer(Int64(self)) }
  @inlinable public init(decoder: inout some QueryDecoder) throws { self = try decodeNarrowInteger(&decoder, as: "Int16") }
}

extension UInt8: QueryBindable {
  @inlinable public var queryBinding: QueryBinding { .integer(Int64(self)) }
  @inlinable public init(decoder: inout some QueryDecoder) throws { self = try decodeNarrowInteger(&decoder, as: "UInt8") }
}

extension UInt16: QueryBindable {
  @inlinable public var queryBinding: QueryBinding { .integer(Int64(self)) }
  @inlinable public init(decoder: inout some QueryDecoder) throws { self = try decodeNarrowInteger(&decoder, as: "UInt16") }
}

extension UInt32: QueryBindable {
  @inlinable public var queryBinding: QueryBinding { .integer(Int64(self)) }
  @inlinable public init(decoder: inout some QueryDecoder) throws { self = try decodeNarrowInteger(&decoder, as: "UInt32") }
}

extension UInt64: QueryBindable {
  public var queryBinding: QueryBinding {
    guard let value = Int64(exactly: self) else {
      return .invalid("the UInt64 \(self) is larger than SQLite's INTEGER holds (\(Int64.max) at most); store it as text, or as Int64(bitPattern:)")
    }
    return .integer(value)
  }
  @inlinable public init(decoder: inout some QueryDecoder) throws { self = try decodeNarrowInteger(&decoder, as: "UInt64") }
}

extension UInt: QueryBindable {
  public var queryBinding: QueryBinding { UInt64(self).queryBinding }
  @inlinable public init(decoder: inout some QueryDecoder) throws { self = try decodeNarrowInteger(&decoder, as: "UInt") }
}

extension Float: QueryBindable {
  @inlinable public var queryBinding: QueryBinding { .double(Double(self)) }
  @inlinable
  public init(decoder: inout some QueryDecoder) throws {
    guard let value = try decoder.decodeDouble(as: "Float") else { throw decoder.unexpectedNull(expected: "Float") }
    self = Float(value)
  }
}

/// The next column as an integer of type `T`, which must hold its value.
@inlinable
func decodeNarrowInteger<T: FixedWidthInteger>(_ decoder: inout some QueryDecoder, as name: String) throws -> T {
  let probe = decoder
  guard let value = try decoder.decodeInteger(as: name) else { throw decoder.unexpectedNull(expected: name) }
  guard let narrow = T(exactly: value) else {
    throw probe.mismatch(expected: name, storage: "INTEGER within \(name)'s range, not \(value)")
  }
  return narrow
}

extension Int8: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .integer } }
extension Int16: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .integer } }
extension UInt8: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .integer } }
extension UInt16: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .integer } }
extension UInt32: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .integer } }
extension UInt64: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .integer } }
extension UInt: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .integer } }
extension Float: SQLiteType { public static var typeAffinity: SQLiteTypeAffinity { .real } }
