extension SQLQueryExpression where QueryValue: QueryDecodable & _OptionalQueryValue {
  /// NULL in each of the value's columns (one for a column, each of a
  /// group's or a table's): what an optional member of `Columns(…)` takes
  /// when left out (`ItemWithTimestamp.Columns(timestamp: date)`).
  public static var null: Self {
    Self(QueryFragment(sql: repeatElement("NULL", count: QueryValue.queryColumnCount).joined(separator: ", ")))
  }
}
