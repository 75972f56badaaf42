import Foundation
import GRDB

// `json_group_array` of whole rows: `$1.jsonGroupArray()` over a joined
// table reads as `[Tag]`, as upstream types it. Each row travels as the
// JSON object `jsonObject()` writes, as upstream's does,
// `json_object('id', json_quote("tags"."id"), 'title', json_quote("tags"."title"))`,
// and is decoded column by column as a row read from a table is: booleans,
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
  /// JSON text (each row an object of its columns). Declare the table
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
    aggregate("json_group_array", distinct: distinct, [rowJSONObject], order: order?.queryFragment, filter: filter)
  }

  /// The row as the JSON object of its columns (see ``jsonObject()``).
  var rowJSONObject: QueryFragment {
    let prefix = QueryValue.columnPrefix(_qualifier)
    return QueryFragment(sql: jsonObjectSQL(Self.allColumns.map { ($0.name, $0.jsonObjectValue(prefix: prefix)) }))
  }
}

extension TableDefinition where QueryValue: Codable {
  /// The row as one JSON object, read back as the row, as upstream writes
  /// it: `json_object('id', json_quote("tags"."id"), …)`, booleans as JSON's
  /// `true`/`false`, a JSON column as its JSON, a column group as an object
  /// of its own: `Reminder.join(RemindersList.all) { … }.select { ($0, $1.jsonObject()) }`.
  public func jsonObject() -> SQLQueryExpression<CodableJSONRepresentation<QueryValue>> {
    SQLQueryExpression(rowJSONObject)
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
    let row = QueryFragment("CASE WHEN ") + found + QueryFragment(" THEN ") + base.rowJSONObject + QueryFragment(" END")
    let condition = filter.map { found + QueryFragment(" AND (") + $0.queryFragment + QueryFragment(")") } ?? found
    return aggregate(
      "json_group_array", distinct: distinct, [row], order: order?.queryFragment,
      filter: SQLQueryExpression<Bool>(condition))
  }
}

/// An array of table rows, which ``CodableJSONRepresentation`` reads from
/// the JSON objects `jsonGroupArray()` writes, column by column.
protocol JSONTableRows {
  /// The rows, when `json` is an array of objects (or of arrays of column
  /// values, in column order); nil for any other JSON.
  static func decodeRows(fromJSON json: Data) throws -> Self?
}

extension Array: JSONTableRows where Element: Table {
  static func decodeRows(fromJSON json: Data) throws -> [Element]? {
    if let rows = try? JSONDecoder().decode([[JSONScalar]].self, from: json) {
      return try rows.map { row in
        var decoder = SQLiteQueryDecoder(arguments: row.map(\.databaseValue), function: "json_group_array of \(Element.tableName)")
        return try Element(decoder: &decoder)
      }
    }
    guard let values = try? JSONDecoder().decode([JSONValue].self, from: json) else { return nil }
    var rows: [Element] = []
    for value in values {
      guard case .object(let members) = value else { return nil }
      rows.append(try Element.decodeRow(members))
    }
    return rows
  }
}

extension Table {
  /// The row read from the JSON object `jsonObject()` writes, decoded as a
  /// row read from the table is: its columns by name, a column group's
  /// from the object it nests, a boolean as 1 or 0, a JSON column's value
  /// as its JSON text; nil when `json` is not an object.
  static func decodeRow(fromJSON json: Data) throws -> Self? {
    guard case .object(let members)? = try? JSONDecoder().decode(JSONValue.self, from: json) else { return nil }
    return try decodeRow(members)
  }

  /// The row from the members of a `jsonObject()` object.
  static func decodeRow(_ members: [String: JSONValue]) throws -> Self {
    let names = TableColumns.allColumns.flatMap(\.names)
    var columns: [String: DatabaseValue] = [:]
    try JSONValue.collectColumns(members, named: Set(names), into: &columns)
    var decoder = SQLiteQueryDecoder(arguments: names.map { columns[$0] ?? .null }, function: "jsonObject of \(tableName)")
    return try Self(decoder: &decoder)
  }
}

/// Any JSON value, to take a `jsonObject()` object apart.
enum JSONValue: Codable {
  case null, bool(Bool), integer(Int64), double(Double), string(String)
  case array([JSONValue]), object([String: JSONValue])

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Int64.self) {
      self = .integer(value)
    } else if let value = try? container.decode(Double.self) {
      self = .double(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([JSONValue].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .integer(let value): try container.encode(value)
    case .double(let value): try container.encode(value)
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }

  /// The column values among `members`: a member named as a column is its
  /// value (an object or array as its JSON text: a JSON column); any other
  /// object is a column group, whose members are columns in turn.
  static func collectColumns(_ members: [String: JSONValue], named columns: Set<String>, into values: inout [String: DatabaseValue]) throws {
    for (key, value) in members {
      switch value {
      case .object(let nested) where !columns.contains(key):
        try collectColumns(nested, named: columns, into: &values)
      case .object, .array:
        values[key] = String(decoding: try JSONCoding.encoder().encode(value), as: UTF8.self).databaseValue
      case .null: values[key] = .null
      case .bool(let flag): values[key] = (flag ? 1 : 0).databaseValue
      case .integer(let number): values[key] = number.databaseValue
      case .double(let number): values[key] = number.databaseValue
      case .string(let text): values[key] = text.databaseValue
      }
    }
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
