// Rows picked by primary key, for a key of one column or of several (a
// `@Selection` type as the table's `id`, as SQLiteData's metadata keys).

extension PrimaryKeyedTableDefinition {
  /// `("t"."id" IN (?, …))`, or for a key of several columns a row value
  /// per key: `(("t"."a", "t"."b") IN ((?, ?), …))`; false for no keys.
  func hasPrimaryKey(in keys: some Sequence<PrimaryKey>) -> SQLQueryExpression<Bool> {
    let key = primaryKey
    let isRowValue = key.names.count != 1
    let rows = keys.map { value in
      let bound = boundRow(Self.primaryKeyValues(value.queryOutput, named: key.name))
      return isRowValue ? parenthesized(bound) : bound
    }
    guard !rows.isEmpty else { return SQLQueryExpression(QueryFragment(sql: "0")) }
    let columns = isRowValue ? parenthesized(key.queryFragment) : key.queryFragment
    return SQLQueryExpression(parenthesized(columns + QueryFragment(sql: " IN (") + rows.joined(separator: ", ") + QueryFragment(")")))
  }

  /// The key's column values, in column order.
  static func primaryKeyValues(_ key: PrimaryKey.QueryOutput, named name: String) -> [(column: String, value: QueryBinding)] {
    var values: [(column: String, value: QueryBinding)] = []
    PrimaryKey.appendColumns(named: name, of: key, to: &values)
    return values
  }

  /// What `count()` counts: the key column, or for a key of several
  /// columns (SQLite's `count` takes one argument) a JSON array of them,
  /// NULL where the first is (the missing side of an outer join).
  var countedKey: QueryFragment {
    let key = primaryKey
    guard key.names.count > 1 else { return key.queryFragment }
    return QueryFragment("CASE WHEN ") + foundRowCondition + QueryFragment(" THEN json_array(") + key.queryFragment + QueryFragment(") END")
  }

  /// `("t"."id" IS NOT NULL)`: the row is there (an outer join found it).
  /// For a key of several columns, its first column is tested.
  var foundRowCondition: QueryFragment {
    let key = primaryKey
    return QueryFragment(sql: "(\(QueryValue.columnPrefix(key.qualifier))\(quotedIdentifier(key.names[0])) IS NOT NULL)")
  }
}
