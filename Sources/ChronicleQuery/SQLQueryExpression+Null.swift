extension SQLQueryExpression where QueryValue: QueryDecodable & _OptionalQueryValue {
  /// NULL in each of the value's columns (one for a column, each of a
  /// group's or a table's): what an optional member of `Columns(…)` takes
  /// when left out (`ItemWithTimestamp.Columns(timestamp: date)`).
  public static var null: Self {
    Self(QueryFragment(sql: repeatElement("NULL", count: QueryValue.queryColumnCount).joined(separator: ", ")))
  }
}

/// NULL in each of `Value`'s columns, each column on its own: what `@Table`
/// and `@Selection` give an optional member of `Columns(…)` left out, so
/// that a select names each (`NULL AS "title", NULL AS "quantity"`).
public struct _NullColumns<Value: QueryDecodable & _OptionalQueryValue>: QueryExpression, _ColumnList, Sendable {
  public typealias QueryValue = Value
  public init() {}
  public var _columnFragments: [QueryFragment] {
    Array(repeating: QueryFragment(sql: "NULL"), count: Value.queryColumnCount)
  }
  public var queryFragment: QueryFragment { SQLQueryExpression<Value>.null.queryFragment }
}
