import Foundation

// Aggregate functions. Each takes an optional `filter:` (SQL's
// `FILTER (WHERE ...)`): `$0.count(filter: $0.isActive)`.

func aggregate<V>(
  _ name: String, distinct: Bool = false, _ arguments: [QueryFragment], order: QueryFragment? = nil, filter: (any QueryExpression<Bool>)?
) -> SQLQueryExpression<V> {
  var fragment = QueryFragment(sql: name + "(" + (distinct ? "DISTINCT " : "")) + arguments.joined(separator: ", ")
  if let order { fragment.append(QueryFragment(" ORDER BY ") + order) }
  fragment.append(")")
  if let filter { fragment.append(QueryFragment(" FILTER (WHERE ") + filter.queryFragment + QueryFragment(")")) }
  fragment.containsAggregate = true
  return SQLQueryExpression(fragment)
}

/// Number types and their optionals, which `sum` adds up.
public protocol _QueryNumericValue: QueryRepresentable {
  associatedtype NumericValue: QueryNumeric
}
extension Int: _QueryNumericValue { public typealias NumericValue = Int }
extension Int64: _QueryNumericValue { public typealias NumericValue = Int64 }
extension Int32: _QueryNumericValue { public typealias NumericValue = Int32 }
extension Double: _QueryNumericValue { public typealias NumericValue = Double }
extension Optional: _QueryNumericValue where Wrapped: QueryNumeric { public typealias NumericValue = Wrapped }

extension QueryExpression {
  /// `count(self)`: the rows where the expression is not NULL.
  public func count(distinct: Bool = false, filter: (any QueryExpression<Bool>)? = nil) -> SQLQueryExpression<Int> {
    aggregate("count", distinct: distinct, [queryFragment], filter: filter)
  }
}

extension QueryExpression where Self == SQLQueryExpression<Int> {
  /// `count(*)`, as a select closure names it without a table: `select { _ in .count() }`.
  public static func count(filter: (any QueryExpression<Bool>)? = nil) -> Self {
    aggregate("count", [QueryFragment("*")], filter: filter)
  }
}

extension TableDefinition {
  /// `count(*)`: the rows.
  public func count(filter: (any QueryExpression<Bool>)? = nil) -> SQLQueryExpression<Int> {
    aggregate("count", [QueryFragment("*")], filter: filter)
  }
}

extension PrimaryKeyedTableDefinition {
  /// `count(<primary key>)`: the rows (or distinct rows).
  public func count(distinct: Bool = false, filter: (any QueryExpression<Bool>)? = nil) -> SQLQueryExpression<Int> {
    aggregate("count", distinct: distinct, [countedKey], filter: filter)
  }
}

extension NullableColumns where Base: PrimaryKeyedTableDefinition {
  /// `count(<primary key>)`: the rows where the outer join found this table's side.
  public func count(distinct: Bool = false, filter: (any QueryExpression<Bool>)? = nil) -> SQLQueryExpression<Int> {
    aggregate("count", distinct: distinct, [base.countedKey], filter: filter)
  }
}

extension QueryExpression where QueryValue: _QueryNumericValue {
  /// `sum(self)`: NULL when there are no values.
  public func sum(distinct: Bool = false, filter: (any QueryExpression<Bool>)? = nil) -> SQLQueryExpression<QueryValue.NumericValue?> {
    aggregate("sum", distinct: distinct, [queryFragment], filter: filter)
  }

  /// `total(self)`: the sum as a Double, 0 when there are no values.
  public func total(distinct: Bool = false, filter: (any QueryExpression<Bool>)? = nil) -> SQLQueryExpression<Double> {
    aggregate("total", distinct: distinct, [queryFragment], filter: filter)
  }

  /// `avg(self)`: NULL when there are no values.
  public func avg(distinct: Bool = false, filter: (any QueryExpression<Bool>)? = nil) -> SQLQueryExpression<Double?> {
    aggregate("avg", distinct: distinct, [queryFragment], filter: filter)
  }
}

extension QueryExpression where QueryValue: QueryRepresentable {
  /// `max(self)`: NULL when there are no values.
  public func max(filter: (any QueryExpression<Bool>)? = nil) -> SQLQueryExpression<QueryValue.Optionalized> {
    aggregate("max", [queryFragment], filter: filter)
  }

  /// `min(self)`: NULL when there are no values.
  public func min(filter: (any QueryExpression<Bool>)? = nil) -> SQLQueryExpression<QueryValue.Optionalized> {
    aggregate("min", [queryFragment], filter: filter)
  }

  /// `json_group_array(self)`: the values as a JSON array, as text (for
  /// values that are not `Codable`; the `Codable` overload decodes them).
  @_disfavoredOverload
  public func jsonGroupArray(
    distinct: Bool = false, order: ((Self) -> any QueryExpression)? = nil, filter: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<String> {
    aggregate("json_group_array", distinct: distinct, [jsonElement], order: order.map { $0(self).queryFragment }, filter: filter)
  }

  /// `group_concat(self, separator)`: the non-NULL values joined; NULL
  /// when there are none.
  ///
  /// SQLite allows `distinct` only with the default separator (one
  /// argument), and `order` from SQLite 3.44 on.
  public func groupConcat(
    distinct: Bool = false, separator: String? = nil, order: ((Self) -> any QueryExpression)? = nil,
    filter: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<String?> {
    let arguments = [queryFragment] + (separator.map { [$0.queryFragment] } ?? [])
    return aggregate("group_concat", distinct: distinct, arguments, order: order.map { $0(self).queryFragment }, filter: filter)
  }

  /// `group_concat(self, separator)` with the separator an expression (a
  /// column, a literal) and the order a term, as upstream spells them:
  /// `$0.title.groupConcat("-", order: $0.title.desc())`.
  public func groupConcat(
    _ separator: some QueryExpression, order: (any QueryExpression)? = nil, filter: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<String?> {
    aggregate("group_concat", [queryFragment, separator.queryFragment], order: order?.queryFragment, filter: filter)
  }

  /// `group_concat(self)` ordered by a term: `groupConcat(order: $0.title.desc())`.
  public func groupConcat(
    distinct: Bool = false, order: any QueryExpression, filter: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<String?> {
    aggregate("group_concat", distinct: distinct, [queryFragment], order: order.queryFragment, filter: filter)
  }

  /// `json_group_array(self)` ordered by a term, as text: `jsonGroupArray(order: $0.title.desc())`.
  @_disfavoredOverload
  public func jsonGroupArray(
    distinct: Bool = false, order: any QueryExpression, filter: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<String> {
    aggregate("json_group_array", distinct: distinct, [jsonElement], order: order.queryFragment, filter: filter)
  }

  /// The expression as a JSON array element that decodes back to its Swift
  /// value: booleans as `true`/`false` (SQLite stores 0 and 1), Julian day
  /// numbers as date text.
  var jsonElement: QueryFragment {
    switch QueryValue.self {
    case is Bool.Type, is Bool?.Type:
      return QueryFragment("json(CASE ") + queryFragment + QueryFragment(" WHEN 0 THEN 'false' WHEN 1 THEN 'true' END)")
    case is Date.JulianDayRepresentation.Type, is Date.JulianDayRepresentation?.Type:
      return QueryFragment("strftime('%Y-%m-%d %H:%M:%f', ") + queryFragment + QueryFragment(")")
    default:
      return queryFragment
    }
  }
}

extension QueryExpression where QueryValue: QueryRepresentable, QueryValue.QueryOutput: Codable {
  /// `json_group_array(self)`: the values as a Swift array, as upstream
  /// types it: `$0.title.jsonGroupArray()` reads as `[String]`.
  public func jsonGroupArray(
    distinct: Bool = false, order: ((Self) -> any QueryExpression)? = nil, filter: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<[QueryValue.QueryOutput].JSONRepresentation> {
    aggregate("json_group_array", distinct: distinct, [jsonElement], order: order.map { $0(self).queryFragment }, filter: filter)
  }

  /// `json_group_array(self)` ordered by a term, as a Swift array:
  /// `jsonGroupArray(order: $0.title.desc())`.
  public func jsonGroupArray(
    distinct: Bool = false, order: any QueryExpression, filter: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<[QueryValue.QueryOutput].JSONRepresentation> {
    aggregate("json_group_array", distinct: distinct, [jsonElement], order: order.queryFragment, filter: filter)
  }
}

/// `json_object(key, value, ...)`: `jsonObject("id", $0.id, "name", $0.name)`.
public func jsonObject(_ keysAndValues: any QueryExpression...) -> SQLQueryExpression<String> {
  SQLQueryExpression(QueryFragment("json_object(") + keysAndValues.map(\.queryFragment).joined(separator: ", ") + QueryFragment(")"))
}
