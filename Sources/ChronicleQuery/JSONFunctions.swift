// SQLite's JSON functions on values stored as JSON text
// (`CodableJSONRepresentation`), as upstream spells them.

extension QueryExpression {
  /// `json_patch(self, other)`: this JSON object with `other`'s members
  /// merged in (RFC 7396), the same JSON type.
  public func jsonPatch<Value: Codable>(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<QueryValue>
  where QueryValue == CodableJSONRepresentation<Value> {
    SQLQueryExpression(QueryFragment("json_patch(") + queryFragment + QueryFragment(", ") + other.queryFragment + QueryFragment(")"))
  }

  /// `json_array_length(self)`: the number of elements of a JSON array
  /// (`$0.tags.jsonArrayLength()`, `$0.title.jsonGroupArray().jsonArrayLength()`).
  public func jsonArrayLength<Element: Codable>() -> SQLQueryExpression<Int>
  where QueryValue == CodableJSONRepresentation<[Element]> {
    SQLQueryExpression(QueryFragment("json_array_length(") + queryFragment + QueryFragment(")"))
  }

  /// `json_array_length(self, path)`: the number of elements of the JSON
  /// array at `path` in this document: `$0.author.jsonArrayLength(\.links)`.
  public func jsonArrayLength<Root: Codable, Element>(_ path: KeyPath<JSONPath<Root>, JSONPath<[Element]>>) -> SQLQueryExpression<Int>
  where QueryValue == CodableJSONRepresentation<Root> {
    arrayLength(at: JSONPath.argument(path))
  }

  /// The number of elements of an optional JSON array at `path`, NULL where
  /// the document has none.
  public func jsonArrayLength<Root: Codable, Element>(_ path: KeyPath<JSONPath<Root>, JSONPath<[Element]?>>) -> SQLQueryExpression<Int?>
  where QueryValue == CodableJSONRepresentation<Root> {
    arrayLength(at: JSONPath.argument(path))
  }

  private func arrayLength<V>(at path: QueryFragment) -> SQLQueryExpression<V> {
    call("json_array_length", [queryFragment, path])
  }
}
