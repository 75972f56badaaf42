import Foundation

// How each kind of value takes itself apart for a ``QueryEncoder``.

extension QueryRepresentable {
  /// Any value: its columns' values as an insert binds them, each through
  /// the column it goes to.
  public func encode(to encoder: inout some QueryEncoder) throws(QueryEncodingError) {
    var values: [(column: String, value: QueryBinding)] = []
    Self.appendColumns(named: "", of: queryOutput, to: &values)
    if values.count == 1 { return try encoder.encode(binding: values[0].value) }
    for (column, value) in values { try encoder.encode(GroupMemberColumn(_names: [column]), BoundColumnValue(value)) }
  }
}

extension QueryBindable {
  /// A value of one column: as it is bound to a statement.
  public func encode(to encoder: inout some QueryEncoder) throws(QueryEncodingError) {
    try encoder.encode(binding: queryBinding)
  }
}

extension Table {
  /// A row: each column in declaration order, with its value.
  public func encode(to encoder: inout some QueryEncoder) throws(QueryEncodingError) {
    for column in TableColumns.allColumns { try column.encode(of: self, to: &encoder) }
  }
}

extension Optional where Wrapped: QueryRepresentable {
  /// The value, or one ``QueryEncoder/encodeNull()`` per column it would have.
  public func encode(to encoder: inout some QueryEncoder) throws(QueryEncodingError) {
    guard let self else {
      for _ in Wrapped.columnNames(forProperty: "") { try encoder.encodeNull() }
      return
    }
    try self.encode(to: &encoder)
  }
}

extension Bool {
  public func encode(to encoder: inout some QueryEncoder) throws(QueryEncodingError) { try encoder.encode(self) }
}

extension Int {
  public func encode(to encoder: inout some QueryEncoder) throws(QueryEncodingError) { try encoder.encode(self) }
}

extension Int64 {
  public func encode(to encoder: inout some QueryEncoder) throws(QueryEncodingError) { try encoder.encode(self) }
}

extension UInt64 {
  public func encode(to encoder: inout some QueryEncoder) throws(QueryEncodingError) { try encoder.encode(self) }
}

extension Double {
  public func encode(to encoder: inout some QueryEncoder) throws(QueryEncodingError) { try encoder.encode(self) }
}

extension String {
  public func encode(to encoder: inout some QueryEncoder) throws(QueryEncodingError) { try encoder.encode(self) }
}

extension UUID {
  public func encode(to encoder: inout some QueryEncoder) throws(QueryEncodingError) { try encoder.encode(self) }
}

extension Date {
  public func encode(to encoder: inout some QueryEncoder) throws(QueryEncodingError) { try encoder.encode(self) }
}
