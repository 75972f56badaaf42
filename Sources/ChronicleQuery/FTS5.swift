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

/// The FTS5 table's hidden column of its own name, which `MATCH` and the
/// auxiliary functions take: `"reminderTexts"`, or through an alias
/// `"found"."reminderTexts"` (SQLite knows no column `"found"`).
private func ftsTable(_ qualifier: String, _ tableName: String) -> String {
  qualifier == tableName ? quotedIdentifier(tableName) : "\(quotedIdentifier(qualifier)).\(quotedIdentifier(tableName))"
}

extension TableDefinition where QueryValue: FTS5 {
  /// `table MATCH pattern`: the rows that match an FTS5 query (`"milk"`,
  /// `"milk OR eggs"`, `"title: milk"`, `"mil*"`).
  public func match(_ pattern: some QueryExpression<String>) -> SQLQueryExpression<Bool> {
    SQLQueryExpression(QueryFragment(sql: "(\(ftsTable(_qualifier, QueryValue.tableName)) MATCH ") + pattern.queryFragment + QueryFragment(")"))
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

  fileprivate func bm25Call(_ weights: [Double]) -> SQLQueryExpression<Double> {
    let arguments = [QueryFragment(sql: ftsTable(_qualifier, QueryValue.tableName))] + weights.map(\.queryFragment)
    return SQLQueryExpression(QueryFragment(sql: "bm25(") + arguments.joined(separator: ", ") + QueryFragment(")"))
  }

  /// The `rank` column of an FTS5 query: `bm25` with the table's default
  /// weights, or the ranking function the table was configured with; lower
  /// is better. Only in a query with ``match(_:)``.
  public var rank: SQLQueryExpression<Double?> {
    SQLQueryExpression(QueryFragment(sql: QueryValue.columnPrefix(_qualifier) + "\"rank\""))
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
    let head = [QueryFragment(sql: ftsTable(qualifier, Root.tableName)), index.queryFragment]
    return SQLQueryExpression(QueryFragment(sql: "\(function)(") + (head + arguments).joined(separator: ", ") + QueryFragment(")"))
  }
}

// On the side of an outer join that may be missing (`$1` of
// `Reminder.leftJoin(ReminderText.all) { … }`): the same functions, NULL
// where the row is missing. SQLite 3.40 fails an auxiliary function called
// on a missing row ("no such cursor"), so the call is guarded:
// `CASE WHEN "reminderTexts"."rowid" IS NULL THEN NULL ELSE highlight(…) END`.

/// `call`, or NULL where the FTS5 row named `qualifier` is missing.
private func unlessMissing<Value>(_ qualifier: String, _ call: some QueryExpression) -> SQLQueryExpression<Value> {
  SQLQueryExpression(
    QueryFragment(sql: "CASE WHEN \(quotedIdentifier(qualifier)).\"rowid\" IS NULL THEN NULL ELSE ") + call.queryFragment + QueryFragment(" END"))
}
extension NullableColumns {
  /// An FTS5 table's text column, whose `highlight` and `snippet` read as optional.
  public subscript<Root: FTS5>(dynamicMember keyPath: KeyPath<Base, TableColumn<Root, String>>) -> NullableColumns<TableColumn<Root, String>> {
    NullableColumns<TableColumn<Root, String>>(base[keyPath: keyPath])
  }

  /// ``TableColumn/highlight(_:_:)``, NULL where the row is missing.
  public func highlight<Root: FTS5>(_ open: String, _ close: String) -> SQLQueryExpression<String?> where Base == TableColumn<Root, String> {
    unlessMissing(base.qualifier, base.highlight(open, close))
  }

  /// ``TableColumn/snippet(_:_:_:_:)``, NULL where the row is missing.
  public func snippet<Root: FTS5>(_ open: String, _ close: String, _ ellipsis: String, _ tokens: Int) -> SQLQueryExpression<String?>
  where Base == TableColumn<Root, String> {
    unlessMissing(base.qualifier, base.snippet(open, close, ellipsis, tokens))
  }

  /// ``TableColumn/match(_:)`` on the column.
  public func match<Root: FTS5>(_ pattern: some QueryExpression<String>) -> SQLQueryExpression<Bool> where Base == TableColumn<Root, String> {
    base.match(pattern)
  }
}

extension NullableColumns where Base: TableDefinition, Base.QueryValue: FTS5 {
  /// ``TableDefinition/match(_:)`` on the table.
  public func match(_ pattern: some QueryExpression<String>) -> SQLQueryExpression<Bool> { base.match(pattern) }
  /// ``TableDefinition/bm25(_:)-(Double...)``, NULL where the row is missing.
  public func bm25(_ weights: Double...) -> SQLQueryExpression<Double?> {
    unlessMissing(base._qualifier, base.bm25Call(weights))
  }
  /// The `rank` column.
  public var rank: SQLQueryExpression<Double?> { base.rank }
}

/// An alias of an FTS5 table searches it too: `ReminderText.as(Found.self)`.
extension TableAlias: FTS5 where Base: FTS5 {}
