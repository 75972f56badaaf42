/// A row of a table given in Swift, as a select of its values named as the
/// table names its columns: upstream's table values used as statements.
///
/// ```swift
/// Values(Item(title: "Phone", quantity: 1))
/// // SELECT 'Phone' AS "title", 1 AS "quantity"
/// Values(Item?.none)
/// // SELECT NULL AS "title", NULL AS "quantity"   -- reads back nil
/// ```
extension Values where Row: Table {
  /// The row's values, one column each (a column group's columns one by one).
  public init(_ row: Row) {
    self.init(namedValues: Row.selectedValues(of: row)) { decoder in try Row(decoder: &decoder) }
  }
}

extension Values {

  /// The row's values, or NULL for each of the table's columns; a row of
  /// NULLs reads back as nil.
  public init<T: Table>(_ row: T?) where Row == T? {
    var values: [(column: String, value: QueryBinding)] = []
    T?.appendSelectedColumns(named: T.tableName, of: row, to: &values)
    self.init(namedValues: values) { decoder in try T?(decoder: &decoder) }
  }

  init(namedValues: [(column: String, value: QueryBinding)], decode: @escaping (inout SQLiteQueryDecoder) throws -> Row) {
    self.init(query: rowSelect(namedValues), decode: decode)
  }
}

/// `SELECT ? AS "column", …`: values named as the columns they belong to.
func rowSelect(_ namedValues: [(column: String, value: QueryBinding)]) -> QueryFragment {
  let values = namedValues.map { column, value in
    QueryFragment(binding: value) + QueryFragment(sql: " AS \(quotedIdentifier(column))")
  }
  return QueryFragment("SELECT ") + values.joined(separator: ", ")
}

extension Table {
  /// Every column's value in `row`, generated columns too (an insert's
  /// values leave them out): what a select of the row reads back.
  static func selectedValues(of row: Self) -> [(column: String, value: QueryBinding)] {
    var values: [(column: String, value: QueryBinding)] = []
    appendSelectedColumns(named: tableName, of: row, to: &values)
    return values
  }
}
