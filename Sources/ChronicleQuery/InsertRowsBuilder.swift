/// Collects the rows of `insert { columns } values: { … }`: each row is
/// Swift values of the columns' types (`("Milk", 2, .high)`), or expressions
/// (`#sql("datetime()")`, `$0`-free functions, plain values), mixed freely.
/// `Columns` is the columns' stored types, a tuple for several columns; the
/// rows' forms for each width are generated beside the inserts.
@resultBuilder
public enum InsertRowsBuilder<Columns> {
  public static func buildBlock(_ parts: [QueryFragment]...) -> [QueryFragment] { parts.flatMap { $0 } }
  public static func buildArray(_ parts: [[QueryFragment]]) -> [QueryFragment] { parts.flatMap { $0 } }
  public static func buildOptional(_ part: [QueryFragment]?) -> [QueryFragment] { part ?? [] }
  public static func buildEither(first: [QueryFragment]) -> [QueryFragment] { first }
  public static func buildEither(second: [QueryFragment]) -> [QueryFragment] { second }
}

/// A row of Swift values as the statement binds them, joined by commas.
func boundRow(_ values: [(column: String, value: QueryBinding)]) -> QueryFragment {
  QueryFragment(sql: repeatElement("?", count: values.count).joined(separator: ", "), bindings: values.map(\.value))
}
