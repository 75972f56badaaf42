/// A table type over an FTS5 virtual table, for full-text search:
///
/// ```swift
/// @Table struct ReminderText: FTS5 {
///   let rowid: Int
///   let title: String
///   let notes: String
/// }
/// // In a migration:
/// // CREATE VIRTUAL TABLE "reminderTexts" USING fts5("title", "notes", tokenize = 'trigram')
///
/// ReminderText.where { $0.match("milk") }
///   .order { $0.bm25() }
///   .select { ($0.rowid, $0.title.highlight("<b>", "</b>"), $0.notes.snippet("<b>", "</b>", "…", 16)) }
/// ```
///
/// Declare `rowid` first, then the FTS5 table's columns in the order of its
/// `CREATE VIRTUAL TABLE`: ``TableColumn/highlight(_:_:)`` and
/// ``TableColumn/snippet(_:_:_:_:)`` name a column by its position.
public protocol FTS5: Table {}

extension TableDefinition where QueryValue: FTS5 {
  /// `table MATCH pattern`: the rows that match an FTS5 query (`"milk"`,
  /// `"milk OR eggs"`, `"title: milk"`, `"mil*"`).
  public func match(_ pattern: some QueryExpression<String>) -> SQLQueryExpression<Bool> {
    SQLQueryExpression(QueryFragment(sql: "(\(quotedIdentifier(QueryValue.tableName)) MATCH ") + pattern.queryFragment + QueryFragment(")"))
  }

  /// `bm25(table)`: how well the row matches the query, lower is better;
  /// order by it ascending for the best matches first. `weights` weigh the
  /// columns, in order (1 each by default). Only in a query with
  /// ``match(_:)``.
  public func bm25(_ weights: Double...) -> SQLQueryExpression<Double> {
    bm25Call(weights)
  }

  /// `bm25(table, weights…)` with weights named by column, as upstream
  /// spells it: `$0.bm25([\.title: 10, \.notes: 0.5])`; a column not named
  /// weighs 1. The weights are written in the order of the type's columns
  /// (declare them as the `CREATE VIRTUAL TABLE` does).
  public func bm25(_ rankings: KeyValuePairs<PartialKeyPath<Self>, Double>) -> SQLQueryExpression<Double> {
    var weights: [String: Double] = [:]
    for (keyPath, weight) in rankings {
      guard let column = self[keyPath: keyPath] as? any TableColumnExpression else { continue }
      weights[column.name] = weight
    }
    let columns = QueryValue.TableColumns.allColumns.flatMap(\.names).filter { $0 != "rowid" }
    return bm25Call(columns.map { weights[$0] ?? 1 })
  }

  private func bm25Call(_ weights: [Double]) -> SQLQueryExpression<Double> {
    let arguments = [QueryFragment(sql: quotedIdentifier(QueryValue.tableName))] + weights.map(\.queryFragment)
    return SQLQueryExpression(QueryFragment(sql: "bm25(") + arguments.joined(separator: ", ") + QueryFragment(")"))
  }

  /// The `rank` column of an FTS5 query: `bm25` with the table's default
  /// weights, or the ranking function the table was configured with; lower
  /// is better. Only in a query with ``match(_:)``.
  public var rank: SQLQueryExpression<Double?> {
    SQLQueryExpression(QueryFragment(sql: "\(quotedIdentifier(QueryValue.tableName)).\"rank\""))
  }
}

extension TableColumn where Root: FTS5, Value == String {
  /// `column MATCH pattern`: rows whose text in this column matches.
  public func match(_ pattern: some QueryExpression<String>) -> SQLQueryExpression<Bool> {
    SQLQueryExpression(QueryFragment("(") + queryFragment + QueryFragment(" MATCH ") + pattern.queryFragment + QueryFragment(")"))
  }

  /// `highlight(table, column, open, close)`: the column's whole text, each
  /// matched term between `open` and `close`. Only in a query with a match.
  public func highlight(_ open: String, _ close: String) -> SQLQueryExpression<String> {
    auxiliary("highlight", [open.queryFragment, close.queryFragment])
  }

  /// `snippet(table, column, open, close, ellipsis, tokens)`: a short
  /// excerpt of at most `tokens` tokens (1 to 64) around the matched terms,
  /// marked as by ``highlight(_:_:)``, with `ellipsis` where text is left
  /// out. Only in a query with a match.
  public func snippet(_ open: String, _ close: String, _ ellipsis: String, _ tokens: Int) -> SQLQueryExpression<String> {
    auxiliary("snippet", [open.queryFragment, close.queryFragment, ellipsis.queryFragment, tokens.queryFragment])
  }

  /// An FTS5 auxiliary function call on this column, named by its position
  /// among the table's columns (`rowid` is not one).
  private func auxiliary(_ function: String, _ arguments: [QueryFragment]) -> SQLQueryExpression<String> {
    let columns = Root.TableColumns.allColumns.flatMap(\.names).filter { $0 != "rowid" }
    // A name that is not a column of the table cannot come from a
    // TableColumn of it; -1 makes SQLite report it rather than crash here.
    let index = columns.firstIndex(of: name) ?? -1
    let head = [QueryFragment(sql: quotedIdentifier(qualifier)), index.queryFragment]
    return SQLQueryExpression(QueryFragment(sql: "\(function)(") + (head + arguments).joined(separator: ", ") + QueryFragment(")"))
  }
}
