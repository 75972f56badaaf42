// What a fetch groups its rows into sections by, as SQLiteData's
// `@FetchAll(query, sectionBy: …)` takes it: a text expression of the
// table's columns, or an ordering of one.

/// The expression rows are grouped into sections by, and how sections are
/// ordered: `\.category`, `{ $0.category.desc() }`.
public struct Sectioning: Sendable {
  /// What names each row's section (its value as text).
  package let name: QueryFragment
  /// The ORDER BY term that puts sections in order, before the query's own.
  package let order: QueryFragment

  /// Sections by the value of `expression`, ascending.
  public init(_ expression: some QueryExpression<String>) {
    name = expression.queryFragment
    order = expression.queryFragment
  }

  /// Sections by the value of `expression`, ascending, rows where it is
  /// NULL in a section named nil.
  public init(_ expression: some QueryExpression<String?>) {
    name = expression.queryFragment
    order = expression.queryFragment
  }

  /// Sections by what `term` orders by, in its direction: `$0.category.desc()`.
  public init(_ term: OrderingTerm) {
    name = term.base
    order = term.queryFragment
  }
}

/// Builds a ``Sectioning`` from a closure: an expression, an ordering, or
/// none (`if grouped { $0.category }`: no sections when it gives none).
@resultBuilder
public enum SectioningBuilder {
  public static func buildExpression(_ expression: some QueryExpression<String>) -> Sectioning? { Sectioning(expression) }
  public static func buildExpression(_ expression: some QueryExpression<String?>) -> Sectioning? { Sectioning(expression) }
  public static func buildExpression(_ term: OrderingTerm) -> Sectioning? { Sectioning(term) }
  public static func buildExpression(_ sectioning: Sectioning) -> Sectioning? { sectioning }
  public static func buildBlock() -> Sectioning? { nil }
  public static func buildBlock(_ component: Sectioning?) -> Sectioning? { component }
  public static func buildOptional(_ component: Sectioning??) -> Sectioning? { component ?? nil }
  public static func buildEither(first component: Sectioning?) -> Sectioning? { component }
  public static func buildEither(second component: Sectioning?) -> Sectioning? { component }
}

/// A select with each row's section name after its own values, in
/// section order first and the select's own order within a section. The
/// name is the sectioning value as text (`CAST(… AS TEXT)`), so any value
/// names a section as SQLite writes it.
package struct SectionedSelect<Row>: SelectStatement, @unchecked Sendable {
  package typealias QueryValue = (Row, String?)
  package let query: QueryFragment
  package let tableName: String?
  private let decodeBase: (inout SQLiteQueryDecoder) throws -> Row

  init(query: QueryFragment, tableName: String?, decodeBase: @escaping (inout SQLiteQueryDecoder) throws -> Row) {
    self.query = query
    self.tableName = tableName
    self.decodeBase = decodeBase
  }

  package func decodeRow(_ decoder: inout SQLiteQueryDecoder) throws -> (Row, String?) {
    (try decodeBase(&decoder), try String?(decoder: &decoder))
  }
}

extension SelectClausesProvider where Self: QueryStatement {
  /// This select in sections by `sectioning`.
  func sectionedSelect(by sectioning: Sectioning) -> SectionedSelect<QueryValue> {
    var clauses = clauses
    clauses.resultColumns.append(QueryFragment("CAST(") + sectioning.name + QueryFragment(" AS TEXT)"))
    clauses.ordering.insert(sectioning.order, at: 0)
    return SectionedSelect(query: clauses.query, tableName: tableName, decodeBase: decodeRow)
  }
}

extension Select {
  /// This select in sections by what `sectioning` gives for its table's
  /// columns (as the select names them: its alias too); nil when it gives none.
  package func sectioned(by sectioning: (From.TableColumns) -> Sectioning?) -> SectionedSelect<Output>? {
    sectioning(fromColumns).map(sectionedSelect(by:))
  }
}
