// SQLite's `json_each` table-valued function as a table of rows (`key`,
// `value`), over a JSON column's array or object, as upstream spells it:
//
//     Trip.where { $0.geofence.jsonEach().where { $0.value.jsonExtract(\.latitude) < 0 }.exists() }
//     Trip.select { ($0.title, $0.geofence.jsonEach().count()) }
//     Trip.join(Trip.columns.geofence.jsonEach()) { _, _ in true }.select { ($0.title, $1.value) }

/// A row of `json_each`: an element of a JSON array (`key` its index) or a
/// member of a JSON object (`key` its name), and its value. A value that is
/// a number, text or boolean reads as that; an object or array reads as its
/// JSON (`Element` is then a ``CodableJSONRepresentation``).
public struct JSONEach<Key: QueryBindable, Element: QueryRepresentable>: Table, Sendable
where Key: Sendable, Key.QueryOutput == Key, Element.QueryOutput: Sendable {
  public var key: Key
  public var value: Element.QueryOutput

  public init(key: Key, value: Element.QueryOutput) {
    self.key = key
    self.value = value
  }

  public init(decoder: inout some QueryDecoder) throws {
    key = try Key(decoder: &decoder)
    value = try Element(decoder: &decoder).queryOutput
  }

  public static var tableName: String { "json_each" }
  public static var columns: TableColumns { TableColumns(qualifier: tableName) }

  /// The columns of `json_each`: `key` and `value`.
  public struct TableColumns: TableDefinition {
    public typealias QueryValue = JSONEach
    public let key: TableColumn<JSONEach, Key>
    public let value: TableColumn<JSONEach, Element>
    public let _qualifier: String

    public init(qualifier: String) {
      _qualifier = qualifier
      key = TableColumn("key", qualifier: qualifier, keyPath: \JSONEach.key)
      value = TableColumn("value", qualifier: qualifier, keyPath: \JSONEach.value)
    }

    public var queryFragment: QueryFragment { key.queryFragment + QueryFragment(", ") + value.queryFragment }

    public static var allColumns: [any TableColumnExpression<JSONEach>] {
      let columns = TableColumns(qualifier: JSONEach.tableName)
      return [columns.key, columns.value]
    }
  }

  /// The rows of `json_each(json[, path])`, to narrow, count, select from
  /// or join like a table's.
  static func rows(of json: QueryFragment, path: QueryFragment?) -> Select<JSONEach, JSONEach> {
    var arguments = [json]
    if let path { arguments.append(path) }
    let source = QueryFragment(sql: "json_each(") + arguments.joined(separator: ", ") + QueryFragment(")")
    return Select(clauses: SelectClauses(resultColumns: [columns.queryFragment], from: source), fromColumns: columns) { decoder in
      try JSONEach(decoder: &decoder)
    }
  }
}

// `jsonEach()` on a JSON array column: a row per element, keyed by index.
extension QueryExpression {
  /// The elements of this JSON array, a row each: `$0.tags.jsonEach()`.
  public func jsonEach<Element: Codable & QueryBindable & Sendable>() -> Select<JSONEach<Int, Element>, JSONEach<Int, Element>>
  where QueryValue == CodableJSONRepresentation<[Element]> {
    JSONEach.rows(of: queryFragment, path: nil)
  }

  /// The elements of this JSON array of objects or arrays, a row each,
  /// each value the element's JSON: `$0.geofence.jsonEach()`.
  @_disfavoredOverload
  public func jsonEach<Element: Codable & Sendable>() -> Select<JSONEach<Int, CodableJSONRepresentation<Element>>, JSONEach<Int, CodableJSONRepresentation<Element>>>
  where QueryValue == CodableJSONRepresentation<[Element]> {
    JSONEach.rows(of: queryFragment, path: nil)
  }

  /// The elements of this optional JSON array (none when it is NULL).
  public func jsonEach<Element: Codable & QueryBindable & Sendable>() -> Select<JSONEach<Int, Element>, JSONEach<Int, Element>>
  where QueryValue == CodableJSONRepresentation<[Element]>? {
    JSONEach.rows(of: queryFragment, path: nil)
  }

  /// The elements of this optional JSON array of objects or arrays (none when it is NULL).
  @_disfavoredOverload
  public func jsonEach<Element: Codable & Sendable>() -> Select<JSONEach<Int, CodableJSONRepresentation<Element>>, JSONEach<Int, CodableJSONRepresentation<Element>>>
  where QueryValue == CodableJSONRepresentation<[Element]>? {
    JSONEach.rows(of: queryFragment, path: nil)
  }
}

// `jsonEach()` on a JSON object column (a dictionary): a row per member, keyed by name.
extension QueryExpression {
  /// The members of this JSON object, a row each: `$0.reactions.jsonEach()`.
  public func jsonEach<Value: Codable & QueryBindable & Sendable>() -> Select<JSONEach<String, Value>, JSONEach<String, Value>>
  where QueryValue == CodableJSONRepresentation<[String: Value]> {
    JSONEach.rows(of: queryFragment, path: nil)
  }

  /// The members of this JSON object whose values are objects or arrays, a row each.
  @_disfavoredOverload
  public func jsonEach<Value: Codable & Sendable>() -> Select<JSONEach<String, CodableJSONRepresentation<Value>>, JSONEach<String, CodableJSONRepresentation<Value>>>
  where QueryValue == CodableJSONRepresentation<[String: Value]> {
    JSONEach.rows(of: queryFragment, path: nil)
  }
}

// `jsonEach(\.path)`: the array or object at a place inside a JSON document.
extension QueryExpression {
  /// The elements of the JSON array at `path`: `$0.writer.jsonEach(\.tags)`
  /// (`json_each("posts"."writer", '$."tags"')`).
  public func jsonEach<Root: Codable, Element: Codable & QueryBindable & Sendable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<[Element]>>
  ) -> Select<JSONEach<Int, Element>, JSONEach<Int, Element>>
  where QueryValue == CodableJSONRepresentation<Root> {
    JSONEach.rows(of: queryFragment, path: JSONPath.argument(path))
  }

  /// The elements of the JSON array of objects or arrays at `path`: `$0.author.jsonEach(\.links)`.
  @_disfavoredOverload
  public func jsonEach<Root: Codable, Element: Codable & Sendable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<[Element]>>
  ) -> Select<JSONEach<Int, CodableJSONRepresentation<Element>>, JSONEach<Int, CodableJSONRepresentation<Element>>>
  where QueryValue == CodableJSONRepresentation<Root> {
    JSONEach.rows(of: queryFragment, path: JSONPath.argument(path))
  }

  /// The members of the JSON object at `path`: `$0.writer.jsonEach(\.scores)`.
  public func jsonEach<Root: Codable, Value: Codable & QueryBindable & Sendable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<[String: Value]>>
  ) -> Select<JSONEach<String, Value>, JSONEach<String, Value>>
  where QueryValue == CodableJSONRepresentation<Root> {
    JSONEach.rows(of: queryFragment, path: JSONPath.argument(path))
  }
}
