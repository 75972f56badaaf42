/// A `VALUES` statement: rows of values given in Swift, read back as rows.
///
/// ```swift
/// Values {
///   (1, "Hello", true)
///   (2, "Goodbye", false)
/// }
/// // VALUES (1, 'Hello', 1), (2, 'Goodbye', 0)
/// ```
///
/// Rows are one value or a tuple of values; `for` and `if` choose them.
/// With no rows it selects nothing.
public struct Values<Row>: SelectStatement, @unchecked Sendable {
  public typealias QueryValue = Row
  let rows: [[QueryBinding]]
  /// Values in each row (what an empty statement still selects, as NULLs).
  let width: Int
  let decode: (inout QueryDecoder) throws -> Row

  /// Rows of one value or several (a tuple).
  public init<each V: QueryBindable>(@InsertValuesBuilder<(repeat each V)> _ rows: () -> [(repeat each V)]) where Row == (repeat each V) {
    self.rows = rows().map { row in
      var bindings: [QueryBinding] = []
      for value in repeat each row { bindings.append(value.queryBinding) }
      return bindings
    }
    var width = 0
    for _ in repeat (each V).self { width += 1 }
    self.width = width
    self.decode = { decoder in try decodeTuple(&decoder, repeat (each V).self) }
  }

  public var tableName: String? { nil }

  public func decodeRow(_ decoder: inout QueryDecoder) throws -> Row { try decode(&decoder) }

  init(rows: [[QueryBinding]], width: Int, decode: @escaping (inout QueryDecoder) throws -> Row) {
    self.rows = rows
    self.width = width
    self.decode = decode
  }

  public var query: QueryFragment {
    // No rows: a select of as many columns that gives none (SQLite has no empty VALUES).
    guard !rows.isEmpty else { return QueryFragment(sql: "SELECT " + Array(repeating: "NULL", count: width).joined(separator: ", ") + " WHERE 0") }
    return QueryFragment("VALUES ")
      + rows.map { QueryFragment("(") + $0.map(QueryFragment.init(binding:)).joined(separator: ", ") + QueryFragment(")") }
      .joined(separator: ", ")
  }
}

extension Values where Row: QueryBindable {
  /// Rows of one value each: `Values { "Hello"; "Goodbye" }`.
  public init(@InsertValuesBuilder<Row> _ rows: () -> [Row]) {
    self.init(rows: rows().map { [$0.queryBinding] }, width: 1) { decoder in try decoder.decode(Row.self) }
  }
}
