import GRDB

/// What an INSERT does when a row conflicts with a constraint.
public enum ConflictResolution: String, Sendable {
  case abort = "ABORT", fail = "FAIL", ignore = "IGNORE", replace = "REPLACE", rollback = "ROLLBACK"
}

/// Collects the rows of an insert: one value, several, or arrays of them.
@resultBuilder
public enum InsertValuesBuilder<Element> {
  public static func buildExpression(_ row: Element) -> [Element] { [row] }
  public static func buildExpression(_ rows: [Element]) -> [Element] { rows }
  public static func buildBlock(_ parts: [Element]...) -> [Element] { parts.flatMap { $0 } }
  public static func buildArray(_ parts: [[Element]]) -> [Element] { parts.flatMap { $0 } }
  public static func buildOptional(_ part: [Element]?) -> [Element] { part ?? [] }
  public static func buildEither(first: [Element]) -> [Element] { first }
  public static func buildEither(second: [Element]) -> [Element] { second }
}

/// An INSERT: `Item.insert { Item.Draft(title: "Milk") }`.
public struct Insert<Into: Table, Output>: QueryStatement, @unchecked Sendable {
  public typealias QueryValue = Output
  var resolution: ConflictResolution?
  var columns: [String]
  /// The values of each row, in column order.
  var rows: [[QueryBinding]]
  /// Rows that name other columns than `columns` (drafts that leave the
  /// primary key to its default beside rows that set it), each run of them
  /// a statement of its own after the first, in the order written.
  var laterRuns: [(columns: [String], rows: [[QueryBinding]])] = []
  /// Rows written as expressions (`#sql`, functions, plain values), each its
  /// values joined by commas, instead of `rows`.
  var expressionRows: [QueryFragment] = []
  var upsert: QueryFragment?
  var returning: QueryFragment?
  /// A SELECT that supplies the rows, instead of `rows`.
  var selection: QueryFragment?
  /// Why the insert cannot run, found while building it.
  var problem: String?
  let decode: (inout SQLiteQueryDecoder) throws -> Output

  init(
    resolution: ConflictResolution?, columns: [String], rows: [[QueryBinding]], upsert: QueryFragment?,
    returning: QueryFragment?, selection: QueryFragment? = nil, problem: String?, decode: @escaping (inout SQLiteQueryDecoder) throws -> Output
  ) {
    self.selection = selection
    self.resolution = resolution
    self.columns = columns
    self.rows = rows
    self.upsert = upsert
    self.returning = returning
    self.problem = problem
    self.decode = decode
  }

  public var tableName: String? { Into.tableName }
  public func decodeRow(_ decoder: inout SQLiteQueryDecoder) throws -> Output { try decode(&decoder) }

  /// The statement; rows that name other columns make one statement per
  /// run, separated by `;` (as a trigger body takes them).
  public var query: QueryFragment {
    guard !laterRuns.isEmpty else { return statement(rows: rows[...]) }
    return runs.map { $0.statement(rows: $0.rows[...]) }.joined(separator: "; ")
  }

  /// This insert as one insert per run of rows naming the same columns.
  private var runs: [Self] {
    var first = self
    first.laterRuns = []
    return [first] + laterRuns.map { run in
      var insert = first
      insert.columns = run.columns
      insert.rows = run.rows
      return insert
    }
  }

  /// Rows a statement inserts at most. SQLite prepares a statement of
  /// thousands of rows slowly (its SQL is as long as the rows are many):
  /// with the 6,553 rows of five columns that SQLite's binding limit allows,
  /// 20,000 rows took 1.23–1.38x the time of hand-written GRDB.
  static var rowsPerStatement: Int { 256 }

  /// Inserts of more rows than a statement takes (``rowsPerStatement``, or
  /// fewer when SQLite's binding limit says so) run as several statements;
  /// rows that name other columns run as statements of their own.
  public func parts(maxBindings: Int) -> [QueryFragment] {
    guard laterRuns.isEmpty else { return runs.flatMap { $0.parts(maxBindings: maxBindings) } }
    if rows.isEmpty, expressionRows.isEmpty, selection == nil { return [] }
    if !expressionRows.isEmpty { return expressionParts(maxBindings: maxBindings) }
    // DEFAULT VALUES makes one row per statement.
    if columns.isEmpty, selection == nil, rows.count > 1 { return Array(repeating: query, count: rows.count) }
    let perRow = max(columns.count, 1)
    let fixed = (upsert?.bindings.count ?? 0) + (returning?.bindings.count ?? 0)
    let rowsPerPart = min(max((maxBindings - fixed) / perRow, 1), Self.rowsPerStatement)
    guard rows.count > rowsPerPart else { return [query] }
    return stride(from: 0, to: rows.count, by: rowsPerPart).map { start in
      statement(rows: rows[start..<min(start + rowsPerPart, rows.count)])
    }
  }

  /// Expression rows in statements of at most `maxBindings` values each
  /// (a row with more runs alone).
  private func expressionParts(maxBindings: Int) -> [QueryFragment] {
    let fixed = (upsert?.bindings.count ?? 0) + (returning?.bindings.count ?? 0)
    var parts: [QueryFragment] = []
    var start = 0
    var bindings = fixed
    for (index, row) in expressionRows.enumerated() {
      if index > start, bindings + row.bindings.count > maxBindings {
        parts.append(expressionStatement(rows: expressionRows[start..<index]))
        start = index
        bindings = fixed
      }
      bindings += row.bindings.count
    }
    parts.append(expressionStatement(rows: expressionRows[start...]))
    return parts
  }

  private func expressionStatement(rows: ArraySlice<QueryFragment>) -> QueryFragment {
    var sql = QueryFragment("INSERT")
    if let resolution { sql.append(" OR \(resolution.rawValue)") }
    sql.append(" INTO \(Into.qualifiedSource) (" + columns.map(quotedIdentifier).joined(separator: ", ") + ") VALUES ")
    sql.append(rows.map { QueryFragment("(") + $0 + QueryFragment(")") }.joined(separator: ", "))
    if let upsert { sql.append(upsert) }
    if let returning { sql.append(QueryFragment(" RETURNING ") + returning) }
    return sql
  }

  private func statement(rows: ArraySlice<[QueryBinding]>) -> QueryFragment {
    if !expressionRows.isEmpty { return expressionStatement(rows: expressionRows[...]) }
    if let selection {
      var sql = QueryFragment("INSERT")
      if let resolution { sql.append(" OR \(resolution.rawValue)") }
      sql.append(" INTO \(Into.qualifiedSource) (" + columns.map(quotedIdentifier).joined(separator: ", ") + ") ")
      if let upsert {
        // SQLite reads the ON of a conflict clause after a SELECT without
        // WHERE as a join's: the select goes in a subquery with one.
        sql.append(QueryFragment("SELECT * FROM (") + selection + QueryFragment(") WHERE 1") + upsert)
      } else {
        sql.append(selection)
      }
      if let returning { sql.append(QueryFragment(" RETURNING ") + returning) }
      return sql
    }
    guard !rows.isEmpty else { return QueryFragment("") }  // nothing to insert: no statement, as upstream
    var sql = QueryFragment("INSERT")
    if let resolution { sql.append(" OR \(resolution.rawValue)") }
    sql.append(" INTO \(Into.qualifiedSource) ")
    if columns.isEmpty {
      sql.append("DEFAULT VALUES")
    } else {
      sql.append("(" + columns.map(quotedIdentifier).joined(separator: ", ") + ") VALUES ")
      let placeholders = "(" + repeatElement("?", count: columns.count).joined(separator: ", ") + ")"
      var text = placeholders
      text.reserveCapacity((placeholders.utf8.count + 2) * rows.count)
      for _ in 1..<rows.count { text += ", " + placeholders }
      var bindings: [QueryBinding] = []
      bindings.reserveCapacity(columns.count * rows.count)
      for row in rows { bindings += row }
      sql.append(QueryFragment(sql: text, bindings: bindings))
    }
    if let upsert { sql.append(upsert) }
    if let returning { sql.append(QueryFragment(" RETURNING ") + returning) }
    return sql
  }

  public func validate() throws {
    if let problem { throw InsertError(table: Into.tableName, problem: problem) }
  }

  /// The same insert, returning `columns` of each inserted row.
  func returning<NewOutput>(_ columns: [QueryFragment], decode: @escaping (inout SQLiteQueryDecoder) throws -> NewOutput) -> Insert<Into, NewOutput> {
    var insert = Insert<Into, NewOutput>(
      resolution: resolution, columns: self.columns, rows: rows, upsert: upsert,
      returning: columns.joined(separator: ", "), selection: selection, problem: problem, decode: decode)
    insert.expressionRows = expressionRows
    insert.laterRuns = laterRuns
    return insert
  }
}

/// An insert that cannot be built as asked.
public struct InsertError: Error, Equatable, Sendable, CustomStringConvertible {
  public var table: String
  public var problem: String
  public var description: String { "cannot insert into \(table): \(problem)" }
}

extension Insert where Output == Void {
  /// Rows given as column/value lists. Drafts may leave out the primary
  /// key; each run of rows that names the same columns is one statement.
  init(resolution: ConflictResolution?, valueLists: [[(column: String, value: QueryBinding)]]) {
    var runs: [(columns: [String], rows: [[QueryBinding]])] = []
    var columns = valueLists.first.map { $0.map(\.column) } ?? []
    var rows: [[QueryBinding]] = []
    rows.reserveCapacity(valueLists.count)
    for list in valueLists {
      if !list.elementsEqual(columns, by: { $0.column == $1 }) {
        runs.append((columns, rows))
        columns = list.map(\.column)
        rows = []
      }
      rows.append(list.map(\.value))
    }
    runs.append((columns, rows))
    self.init(
      resolution: resolution, columns: runs[0].columns, rows: runs[0].rows,
      upsert: nil, returning: nil, problem: nil, decode: { _ in })
    laterRuns = Array(runs.dropFirst())
  }

  /// Rows of expressions for `columns`, each its values joined by commas.
  init(resolution: ConflictResolution?, columns: [String], expressionRows: [QueryFragment]) {
    self.init(resolution: resolution, columns: columns, rows: [], upsert: nil, returning: nil, problem: nil, decode: { _ in })
    self.expressionRows = expressionRows
  }

  /// `INSERT INTO table (columns) SELECT ...`.
  init(resolution: ConflictResolution?, columns: [String], selection: QueryFragment) {
    self.init(
      resolution: resolution, columns: columns, rows: [], upsert: nil, returning: nil,
      selection: selection, problem: nil, decode: { _ in })
  }

  /// This insert, failing when `condition` (an update's `where:`) is not
  /// empty: there is no update for it to guard.
  func unguardedUpdateCondition(_ condition: [QueryFragment]) -> Self {
    guard !condition.isEmpty else { return self }
    var copy = self
    copy.problem = copy.problem ?? "an update condition (`where:`) was given without an update. "
      + "Fix: add `onConflictDoUpdate:` before it, or drop the condition."
    return copy
  }

  /// Adds `ON CONFLICT [(target) [WHERE conflictFilter]] DO UPDATE SET ... [WHERE updateFilter]`,
  /// or `DO NOTHING` when there are no updates.
  func onConflict(target: [QueryFragment], condition: [QueryFragment] = [], updates: Updates<Into>, updateCondition: [QueryFragment] = []) -> Self {
    var copy = self
    var clause = QueryFragment(" ON CONFLICT")
    if !target.isEmpty {
      clause.append(QueryFragment(" (") + target.joined(separator: ", ") + QueryFragment(")"))
      if !condition.isEmpty { clause.append(QueryFragment(" WHERE ") + conjunction(condition)) }
    } else if !condition.isEmpty {
      copy.problem = copy.problem ?? "a conflict condition (`where:` after `onConflict:`) needs conflict target columns. "
        + "Fix: name the columns of the unique index in `onConflict:`."
    }
    if updates.assignments.isEmpty {
      clause.append(" DO NOTHING")
      if !updateCondition.isEmpty {
        copy.problem = copy.problem ?? "an update condition (`where:` after `doUpdate:`) was given without updates. "
          + "Fix: assign at least one column in `doUpdate:`, or drop the condition."
      }
    } else {
      clause.append(QueryFragment(" DO UPDATE SET ") + updates.setClause)
      if !updateCondition.isEmpty { clause.append(QueryFragment(" WHERE ") + conjunction(updateCondition)) }
    }
    copy.upsert = clause
    return copy
  }
}

extension InsertValuesBuilder where Element: TableRowDraft {
  /// A whole row among drafts: `insert { Reminder(id: 12, …); Reminder.Draft(…) }`.
  /// Disfavored: an insert of rows alone stays an insert of rows, which
  /// binds them without making a draft of each.
  @_disfavoredOverload
  public static func buildExpression(_ row: Element.Base) -> [Element] { [Element(row)] }

  /// Whole rows among drafts.
  @_disfavoredOverload
  public static func buildExpression(_ rows: [Element.Base]) -> [Element] { rows.map { Element($0) } }
}
