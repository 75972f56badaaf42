// A select of expressions that reads no table, as upstream spells it:
// `Select(Case(5).when(2, then: 0).else(1))` is `SELECT CASE 5 WHEN 2 THEN 0 ELSE 1 END`.

/// What a select of expressions alone reads: no table. `Select(expression)`
/// is a `Select<NoTable, …>`; it has no rows of its own and no columns.
public enum NoTable: Table {
  public static var tableName: String { "" }
  public static var columns: TableColumns { TableColumns(qualifier: "") }

  public init(decoder: inout some QueryDecoder) throws {
    throw QueryDecodingError(
      table: nil, column: "no table", expected: "no row", found: "a row",
      detail: "a select that reads no table has no rows of its own: select expressions, as in Select(expression)")
  }

  /// No columns.
  public struct TableColumns: TableDefinition {
    public typealias QueryValue = NoTable
    public let _qualifier: String
    public init(qualifier: String) { _qualifier = qualifier }
    public var queryFragment: QueryFragment { QueryFragment() }
    public static var allColumns: [any TableColumnExpression<NoTable>] { [] }
  }
}

extension Select where From == NoTable {
  /// `SELECT` of expressions, reading no table: `Select(Reminder.exists())`,
  /// `Select(Case(5).when(2, then: 0).else(1))`. Each value reads as its
  /// Swift type, as with ``Values``.
  public init<each E: QueryExpression>(_ expressions: repeat each E)
  where Output == (repeat (each E).QueryValue.QueryOutput), repeat (each E).QueryValue: QueryRepresentable {
    var selected: [QueryFragment] = []
    for expression in repeat each expressions { selected.append(expression.queryFragment) }
    self.init(clauses: SelectClauses(resultColumns: selected, from: QueryFragment()), fromColumns: NoTable.columns) { decoder in
      try decodeOutputs(&decoder, repeat (each E).QueryValue.self)
    }
  }
}
