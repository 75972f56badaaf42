// What `@Table`'s generated extension calls to read and write a column's
// value. The extension sits at file scope, where a type nested beside the
// table (`enum Namespace { struct Sibling; @Table struct Trip }`) does not
// resolve by its own name; the table's `TableColumns` (generated inside the
// table) names each column's type, so the extension takes the type from a
// column expression that is never evaluated.

extension QueryDecoder {
  /// Decodes the next column (or columns) as `column`'s value; a NULL the
  /// value cannot hold fails, naming the column. What generated
  /// `init(decoder:)`s call. `column` is never evaluated: it only names the type.
  @inlinable
  public mutating func decodeColumn<Root, Value>(_ column: @autoclosure () -> TableColumn<Root, Value>) throws -> Value.QueryOutput {
    try Value(decoder: &self).queryOutput
  }

  /// Decodes the next column (or columns) as `column`'s value; nil when it
  /// is NULL, as upstream's `decode(_:)` of a column reads.
  @inlinable
  public mutating func decode<Root, Value>(_ column: @autoclosure () -> TableColumn<Root, Value>) throws -> Value.QueryOutput? {
    try Value?(decoder: &self)?.queryOutput
  }
}

extension TableColumn {
  /// Appends `output`, the value of a column of `Value`'s type named `name`,
  /// to an insert's values. `column` is never evaluated: it only names the type.
  @inlinable
  public static func appendColumns(
    as column: @autoclosure () -> TableColumn<Root, Value>, named name: String, of output: Value.QueryOutput,
    to values: inout [(column: String, value: QueryBinding)]
  ) {
    Value.appendColumns(named: name, of: output, to: &values)
  }
}
