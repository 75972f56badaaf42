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
  public let query: QueryFragment
  let decode: (inout SQLiteQueryDecoder) throws -> Row

  /// Rows of one value or several (a tuple).
  public init<each V: QueryBindable>(@InsertValuesBuilder<(repeat each V)> _ rows: () -> [(repeat each V)]) where Row == (repeat each V) {
    let rows = rows().map { row in
      var bindings: [QueryBinding] = []
      for value in repeat each row { bindings.append(value.queryBinding) }
      return bindings
    }
    var width = 0
    for _ in repeat (each V).self { width += 1 }
    self.init(rows: rows, width: width) { decoder in try decodeTuple(&decoder, repeat (each V).self) }
  }

  /// One row of expressions, as `SELECT` of them: `Values(Reminder.exists())`
  /// is `SELECT EXISTS (SELECT …)`; `Values(1, $0.title)` inside a trigger.
  /// Each value reads as its Swift type: a JSON column's value as the
  /// decoded value, not its representation.
  public init<each E: QueryExpression>(_ expressions: repeat each E)
  where Row == (repeat (each E).QueryValue.QueryOutput), repeat (each E).QueryValue: QueryRepresentable {
    var selected: [QueryFragment] = []
    for expression in repeat each expressions { selected.append(selectedFragment(expression)) }
    self.query = QueryFragment("SELECT ") + selected.joined(separator: ", ")
    self.decode = { decoder in try decodeOutputs(&decoder, repeat (each E).QueryValue.self) }
  }

  init(query: QueryFragment, decode: @escaping (inout SQLiteQueryDecoder) throws -> Row) {
    self.query = query
    self.decode = decode
  }

  public var tableName: String? { nil }

  public func decodeRow(_ decoder: inout SQLiteQueryDecoder) throws -> Row { try decode(&decoder) }

  /// Rows of bound values, `width` values each.
  init(rows: [[QueryBinding]], width: Int, decode: @escaping (inout SQLiteQueryDecoder) throws -> Row) {
    self.decode = decode
    // No rows: a select of as many columns that gives none (SQLite has no empty VALUES).
    guard !rows.isEmpty else {
      self.query = QueryFragment(sql: "SELECT " + Array(repeating: "NULL", count: width).joined(separator: ", ") + " WHERE 0")
      return
    }
    self.query = QueryFragment("VALUES ")
      + rows.map { QueryFragment("(") + $0.map(QueryFragment.init(binding:)).joined(separator: ", ") + QueryFragment(")") }
      .joined(separator: ", ")
  }
}

extension Values where Row: QueryBindable {
  /// Rows of one value each: `Values { "Hello"; "Goodbye" }`.
  public init(@InsertValuesBuilder<Row> _ rows: () -> [Row]) {
    self.init(rows: rows().map { [$0.queryBinding] }, width: 1) { decoder in try Row(decoder: &decoder) }
  }
}
