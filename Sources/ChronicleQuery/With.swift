/// A query with common tables (`WITH`): named selects that the final query
/// reads like tables.
///
/// ```swift
/// With {
///   Item.where { $0.price > 1000 }
/// } query: { expensive in
///   expensive.order(by: \.price).limit(10)
/// }
/// ```
///
/// A common table's rows have the columns of a table type: a table's own
/// rows, or a `@Table @Selection` type's `Columns(...)`. It is named after
/// that type's table, or `<table>CTE` when its select reads that table.
/// A recursive one (`recursiveUnion:`) walks trees: its second select joins
/// the common table to find the next rows.
public struct With<Output>: SelectStatement, @unchecked Sendable {
  public typealias QueryValue = Output
  let tables: [QueryFragment]
  let isRecursive: Bool
  let final: QueryFragment
  let decode: (inout SQLiteQueryDecoder) throws -> Output

  public var tableName: String? { nil }
  public func decodeRow(_ decoder: inout SQLiteQueryDecoder) throws -> Output { try decode(&decoder) }

  public var query: QueryFragment {
    QueryFragment(sql: isRecursive ? "WITH RECURSIVE " : "WITH ") + tables.joined(separator: ", ") + QueryFragment(" ") + final
  }

  init(tables: [QueryFragment], isRecursive: Bool, final: some QueryStatement<Output>) {
    self.tables = tables
    self.isRecursive = isRecursive
    self.final = final.query
    self.decode = { decoder in try final.decodeRow(&decoder) }
  }

  /// One common table, read by `query`.
  public init<T: Table>(_ table: () -> some SelectStatement<T>, query: (Select<T, T>) -> some SelectStatement<Output>) {
    let first = CommonTable<T>(table(), taken: [])
    self.init(tables: [first.definition], isRecursive: false, final: query(first.reference))
  }

  /// Two common tables, read by `query`.
  public init<T: Table, U: Table>(
    _ table: () -> some SelectStatement<T>, with second: () -> some SelectStatement<U>,
    query: (Select<T, T>, Select<U, U>) -> some SelectStatement<Output>
  ) {
    let first = CommonTable<T>(table(), taken: [])
    let other = CommonTable<U>(second(), taken: [first.name])
    self.init(tables: [first.definition, other.definition], isRecursive: false, final: query(first.reference, other.reference))
  }

  /// A recursive common table: `base` rows, then the rows `recursiveUnion`
  /// selects from the rows found so far, until it finds no new ones (UNION:
  /// rows already found are dropped, so cycles end).
  public init<T: Table>(
    _ base: () -> some SelectStatement<T>, recursiveUnion step: (Select<T, T>) -> some SelectStatement<T>,
    query: (Select<T, T>) -> some SelectStatement<Output>
  ) {
    self.init(base, step, all: false, query: query)
  }

  /// A recursive common table with UNION ALL: every row the steps find,
  /// duplicates included (faster; the steps must end by themselves).
  public init<T: Table>(
    _ base: () -> some SelectStatement<T>, recursiveUnionAll step: (Select<T, T>) -> some SelectStatement<T>,
    query: (Select<T, T>) -> some SelectStatement<Output>
  ) {
    self.init(base, step, all: true, query: query)
  }

  private init<T: Table>(
    _ base: () -> some SelectStatement<T>, _ step: (Select<T, T>) -> some SelectStatement<T>, all: Bool,
    query: (Select<T, T>) -> some SelectStatement<Output>
  ) {
    var table = CommonTable<T>(base(), taken: [])
    table.body = table.body + QueryFragment(sql: all ? " UNION ALL " : " UNION ") + step(table.reference).compoundOperand
    self.init(tables: [table.definition], isRecursive: true, final: query(table.reference))
  }
}

/// A common table in the making: its name, its select, and the select that reads it.
struct CommonTable<T: Table> {
  let name: String
  var body: QueryFragment

  /// Named after its table type, as upstream's `With { … } query: { … }`
  /// names it: the final statement reads it through that type.
  /// Its body is the statement as written (a compound whose right side reads
  /// the common table itself is recursive, and must not become a subquery).
  init(namedAfterItsType select: some SelectStatement<T>) {
    self.name = T.tableName
    self.body = select.query
  }

  init(_ select: some SelectStatement<T>, taken: Set<String>) {
    var name = T.tableName
    if select.query.sql.contains(quotedIdentifier(name)) { name += "CTE" }
    var unique = name
    var index = 2
    while taken.contains(unique) {
      unique = name + String(index)
      index += 1
    }
    self.name = unique
    self.body = select.compoundOperand
  }

  /// `"name"("column", ...) AS (select)`.
  var definition: QueryFragment {
    let columns = T.TableColumns.allColumns.flatMap(\.names).map(quotedIdentifier).joined(separator: ", ")
    return QueryFragment(sql: "\(quotedIdentifier(name))(\(columns)) AS ") + parenthesized(body)
  }

  /// Every row of the common table, as a select to refine or join.
  var reference: Select<T, T> {
    let columns = T.TableColumns(qualifier: name)
    return Select(
      clauses: SelectClauses(resultColumns: [columns.queryFragment], from: QueryFragment(sql: quotedIdentifier(name))),
      fromColumns: columns, decode: { decoder in try T(decoder: &decoder) })
  }
}
