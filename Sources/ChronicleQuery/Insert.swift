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
  var rows: [[QueryFragment]]
  var upsert: QueryFragment?
  var returning: QueryFragment?
  /// Why the insert cannot run, found while building it.
  var problem: String?
  let decode: (inout QueryDecoder) throws -> Output

  init(
    resolution: ConflictResolution?, columns: [String], rows: [[QueryFragment]], upsert: QueryFragment?,
    returning: QueryFragment?, problem: String?, decode: @escaping (inout QueryDecoder) throws -> Output
  ) {
    self.resolution = resolution
    self.columns = columns
    self.rows = rows
    self.upsert = upsert
    self.returning = returning
    self.problem = problem
    self.decode = decode
  }

  public var tableName: String? { Into.tableName }
  public func decodeRow(_ decoder: inout QueryDecoder) throws -> Output { try decode(&decoder) }

  public var query: QueryFragment {
    guard !rows.isEmpty else { return QueryFragment("SELECT NULL WHERE 0") }  // nothing to insert
    var sql = QueryFragment("INSERT")
    if let resolution { sql.append(" OR \(resolution.rawValue)") }
    sql.append(" INTO \(quotedIdentifier(Into.tableName)) ")
    if columns.isEmpty {
      sql.append("DEFAULT VALUES")
    } else {
      sql.append("(" + columns.map(quotedIdentifier).joined(separator: ", ") + ") VALUES ")
      sql.append(rows.map { QueryFragment("(") + $0.joined(separator: ", ") + QueryFragment(")") }.joined(separator: ", "))
    }
    if let upsert { sql.append(upsert) }
    if let returning { sql.append(QueryFragment(" RETURNING ") + returning) }
    return sql
  }

  public func validate() throws {
    if let problem { throw InsertError(table: Into.tableName, problem: problem) }
  }

  /// The same insert, returning `columns` of each inserted row.
  func returning<NewOutput>(_ columns: [QueryFragment], decode: @escaping (inout QueryDecoder) throws -> NewOutput) -> Insert<Into, NewOutput> {
    Insert<Into, NewOutput>(
      resolution: resolution, columns: self.columns, rows: rows, upsert: upsert,
      returning: columns.joined(separator: ", "), problem: problem, decode: decode)
  }
}

/// An insert that cannot be built as asked.
public struct InsertError: Error, Equatable, Sendable, CustomStringConvertible {
  public var table: String
  public var problem: String
  public var description: String { "cannot insert into \(table): \(problem)" }
}

extension Insert where Output == Void {
  /// Rows given as column/value lists; drafts may leave out the primary key,
  /// but all rows of one statement must name the same columns.
  init(resolution: ConflictResolution?, valueLists: [[(column: String, value: QueryBinding)]]) {
    let columns = valueLists.first.map { $0.map(\.column) } ?? []
    var problem: String?
    if valueLists.contains(where: { $0.map(\.column) != columns }) {
      problem = "some drafts set the primary key and others leave it to its default. "
        + "Fix: insert the two kinds in separate statements."
    }
    self.init(
      resolution: resolution, columns: columns,
      rows: valueLists.map { $0.map { QueryFragment(binding: $0.value) } },
      upsert: nil, returning: nil, problem: problem, decode: { _ in })
  }

  /// Adds `ON CONFLICT (target) [WHERE ...] DO UPDATE SET ...`.
  func onConflict(target: [QueryFragment], condition: QueryFragment?, updates: Updates<Into>) -> Self {
    var copy = self
    var clause = QueryFragment(" ON CONFLICT")
    if !target.isEmpty {
      clause.append(QueryFragment(" (") + target.joined(separator: ", ") + QueryFragment(")"))
      if let condition { clause.append(QueryFragment(" WHERE ") + condition) }
    }
    if updates.assignments.isEmpty {
      clause.append(" DO NOTHING")
    } else {
      clause.append(QueryFragment(" DO UPDATE SET ") + updates.setClause)
    }
    copy.upsert = clause
    return copy
  }
}
