extension QueryFragment: ExpressibleByStringInterpolation {
  /// Builds a fragment from a string literal: literal text is SQL,
  /// `\(value)` binds a value, `\(expression)` inlines a query expression,
  /// `\(Item.self)` names a table, `\(Item.columns)` lists its columns and
  /// `\(raw: text)` inserts text as SQL (never for user input).
  public struct StringInterpolation: StringInterpolationProtocol {
    var fragment = QueryFragment()

    public init(literalCapacity: Int, interpolationCount: Int) {}

    public mutating func appendLiteral(_ literal: String) { fragment.append(literal) }

    /// A bound value (`?`) or an expression's SQL.
    public mutating func appendInterpolation(_ expression: some QueryExpression) {
      fragment.append(expression.queryFragment)
    }

    /// Text inserted as SQL, unescaped: for identifiers and keywords the code chooses.
    public mutating func appendInterpolation(raw sql: String) { fragment.append(sql) }

    /// Any value's description inserted as SQL, unquoted: `DEFAULT \(raw: 0x4a99ef)`.
    @_disfavoredOverload
    public mutating func appendInterpolation(raw value: some CustomStringConvertible) { fragment.append(value.description) }

    /// A bound value, spelled out: `\(bind: "office")` (as `\(value)` binds).
    public mutating func appendInterpolation<Value: QueryBindable>(bind value: Value) {
      fragment.append(value.queryFragment)
    }

    /// A quoted identifier, `\(quote: name)`, or text literal,
    /// `\(quote: Base.tableName, delimiter: .text)`.
    public mutating func appendInterpolation(quote text: String, delimiter: QuoteDelimiter = .identifier) {
      fragment.append(delimiter.quote(text))
    }

    /// The table's quoted name, or its alias's for a table read under one:
    /// `\(Reminder.as(R.self))` is `"rs"`.
    public mutating func appendInterpolation<T: Table>(_ table: T.Type) {
      fragment.append(T.quotedReference)
    }

    /// The table's columns, qualified, as a select list.
    public mutating func appendInterpolation<Columns: TableDefinition>(_ columns: Columns) {
      fragment.append(Columns.QueryValue.selectList)
    }

    /// A statement, inlined as it is, without parentheses (as upstream):
    /// parenthesize it where SQL wants a subquery.
    ///
    /// ```swift
    /// let averageScore = Reminder.select { $0.score.avg() }
    /// Reminder.where { #sql("\($0.score) > (\(averageScore))") }
    /// #sql("DELETE FROM \(Tag.self) WHERE \(Tag.columns.title) IN (\(unusedTitles))")
    /// ```
    ///
    /// (Before 2026-11-26 Chronicle added the parentheses itself, so
    /// upstream's `IN (\(subquery))` became `IN ((SELECT …))`: a scalar
    /// subquery, which compared with its first row only.)
    public mutating func appendInterpolation(_ statement: some QueryStatement) {
      fragment.append(statement.query)
    }

    /// A select, or raw SQL written with `#sql`: inlined as it is (see
    /// ``appendInterpolation(_:)-(QueryStatement)``). Chosen over the
    /// expression form, which would parenthesize a select.
    public mutating func appendInterpolation<Q: QueryExpression & QueryStatement>(_ statement: Q) {
      fragment.append(statement.query)
    }

    /// Another fragment, as is.
    public mutating func appendInterpolation(_ other: QueryFragment) { fragment.append(other) }
  }

  public init(stringInterpolation: StringInterpolation) {
    self = stringInterpolation.fragment
  }
}
