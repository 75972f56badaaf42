import Foundation
import GRDB

// `json_group_array` of whole rows: `$1.jsonGroupArray()` over a joined
// table reads as `[Tag]`, as upstream types it. Each row travels as a JSON
// array of its column values, `json_array("tags"."id", "tags"."title")`, and
// is decoded column by column as a row read from a table is: booleans,
// dates, UUIDs and representations read as they do anywhere else. BLOB
// columns cannot travel (SQLite: "JSON cannot hold BLOB values"), and REAL
// values keep the 15 significant digits SQLite's JSON writes.

extension TableDefinition where QueryValue: Codable {
  /// `json_group_array` of this table's rows, decoded as `[Row]`:
  /// `RemindersList.group(by: \.id).join(Reminder.all) { … }.select { ($0.title, $1.jsonGroupArray()) }`.
  public func jsonGroupArray(
    distinct: Bool = false, order: (any QueryExpression)? = nil, filter: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<[QueryValue].JSONRepresentation> {
    rowsJSONArray(distinct: distinct, order: order, filter: filter)
  }
}

extension TableDefinition {
  /// `json_group_array` of the rows of a table that is not `Codable`, as
  /// JSON text (each row an array of its column values). Declare the table
  /// `Codable` to read them back as `[Row]`.
  @_disfavoredOverload
  public func jsonGroupArray(
    distinct: Bool = false, order: (any QueryExpression)? = nil, filter: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<String> {
    rowsJSONArray(distinct: distinct, order: order, filter: filter)
  }

  /// One argument for all the columns: the generic value form would pass
  /// them as several, which SQLite refuses ("wrong number of arguments").
  func rowsJSONArray<V>(distinct: Bool, order: (any QueryExpression)?, filter: (any QueryExpression<Bool>)?) -> SQLQueryExpression<V> {
    aggregate(
      "json_group_array", distinct: distinct, [QueryFragment("json_array(") + queryFragment + QueryFragment(")")],
      order: order?.queryFragment, filter: filter)
  }
}

extension TableDefinition where QueryValue: Codable {
  /// The row as one JSON object, `json_object('id', "tags"."id", …)`,
  /// read back as the row: `Reminder.join(RemindersList.all) { … }.select { ($0, $1.jsonObject()) }`.
  /// Values keep their stored form (booleans as 0/1, dates as text), which
  /// is how the row is decoded.
  public func jsonObject() -> SQLQueryExpression<CodableJSONRepresentation<QueryValue>> {
    let prefix = QueryValue.columnPrefix(_qualifier)
    let members = Self.allColumns.flatMap(\.names).map { name in
      QueryBinding.text(name).sqlLiteral + ", " + prefix + quotedIdentifier(name)
    }
    return SQLQueryExpression(QueryFragment(sql: "json_object(" + members.joined(separator: ", ") + ")"))
  }
}

extension NullableColumns where Base: PrimaryKeyedTableDefinition, Base.QueryValue: Codable {
  /// `json_group_array` of the rows an outer join found, decoded as `[Row]`
  /// (empty when it found none): `$2.jsonGroupArray()` on a `leftJoin`'s side.
  public func jsonGroupArray(
    distinct: Bool = false, order: (any QueryExpression)? = nil, filter: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<[Base.QueryValue].JSONRepresentation> {
    foundRowsJSONArray(distinct: distinct, order: order, filter: filter)
  }
}

extension NullableColumns where Base: PrimaryKeyedTableDefinition {
  /// `json_group_array` of the rows an outer join found, of a table that is
  /// not `Codable`, as JSON text (`[]` when it found none).
  @_disfavoredOverload
  public func jsonGroupArray(
    distinct: Bool = false, order: (any QueryExpression)? = nil, filter: (any QueryExpression<Bool>)? = nil
  ) -> SQLQueryExpression<String> {
    foundRowsJSONArray(distinct: distinct, order: order, filter: filter)
  }

  func foundRowsJSONArray<V>(distinct: Bool, order: (any QueryExpression)?, filter: (any QueryExpression<Bool>)?) -> SQLQueryExpression<V> {
    let found = base.foundRowCondition
    let row = QueryFragment("CASE WHEN ") + found + QueryFragment(" THEN json_array(") + base.queryFragment + QueryFragment(") END")
    let condition = filter.map { found + QueryFragment(" AND (") + $0.queryFragment + QueryFragment(")") } ?? found
    return aggregate(
      "json_group_array", distinct: distinct, [row], order: order?.queryFragment,
      filter: SQLQueryExpression<Bool>(condition))
  }
}

/// An array of table rows, which ``CodableJSONRepresentation`` reads from
/// the JSON arrays of column values `jsonGroupArray()` writes.
protocol JSONTableRows {
  /// The rows, when `json` is an array of arrays; nil for any other JSON
  /// (rows a JSON column stored through `Codable`, as objects).
  static func decodeRows(fromJSON json: Data) throws -> Self?
}

extension Array: JSONTableRows where Element: Table {
  static func decodeRows(fromJSON json: Data) throws -> [Element]? {
    guard let rows = try? JSONDecoder().decode([[JSONScalar]].self, from: json) else { return nil }
    return try rows.map { row in
      var decoder = SQLiteQueryDecoder(arguments: row.map(\.databaseValue), function: "json_group_array of \(Element.tableName)")
      return try Element(decoder: &decoder)
    }
  }
}

extension Table {
  /// The row read from the JSON object `jsonObject()` writes: its members
  /// by column name, decoded as a row read from the table is; nil when
  /// `json` is not an object.
  static func decodeRow(fromJSON json: Data) throws -> Self? {
    guard let members = try? JSONDecoder().decode([String: JSONScalar].self, from: json) else { return nil }
    let values = TableColumns.allColumns.flatMap(\.names).map { members[$0]?.databaseValue ?? .null }
    var decoder = SQLiteQueryDecoder(arguments: values, function: "jsonObject of \(tableName)")
    return try Self(decoder: &decoder)
  }
}

/// One column value in a JSON row: what SQLite's `json_array` writes.
enum JSONScalar: Decodable {
  case null, integer(Int64), double(Double), text(String)

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Int64.self) {
      self = .integer(value)
    } else if let value = try? container.decode(Double.self) {
      self = .double(value)
    } else if let value = try? container.decode(Bool.self) {
      self = .integer(value ? 1 : 0)
    } else {
      self = .text(try container.decode(String.self))
    }
  }

  var databaseValue: DatabaseValue {
    switch self {
    case .null: return .null
    case .integer(let value): return value.databaseValue
    case .double(let value): return value.databaseValue
    case .text(let value): return value.databaseValue
    }
  }
}
