extension SQLQueryExpression where QueryValue: QueryRepresentable {
  /// `value` bound in each of its columns (one for a column, each of a
  /// group's): what a member of `Columns(…)` whose property has a default
  /// takes when left out (`Row.Columns(title: $0.title)` for
  /// `var createdAt = Date(timeIntervalSince1970: 0)`).
  public init(value: QueryValue.QueryOutput) {
    var values: [(column: String, value: QueryBinding)] = []
    QueryValue.appendColumns(named: "", of: value, to: &values)
    self.init(values.map { QueryFragment(binding: $0.value) }.joined(separator: ", "))
  }
}
