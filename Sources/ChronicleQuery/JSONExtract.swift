// `json_extract` of a place inside a JSON value, named by a key path as
// upstream spells it: `$0.value.jsonExtract(\.latitude)` is
// `json_extract("json_each"."value", '$."latitude"')`, and
// `$0.author.jsonExtract(\.links[0].homepage)` reaches into an array.

extension QueryExpression {
  /// The value at `path` in this JSON document, as its column type:
  /// `$0.author.jsonExtract(\.name)`. NULL where the document has nothing
  /// there (a member reached through an optional one is optional).
  public func jsonExtract<Root: Codable, Member: QueryBindable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<Member>>
  ) -> SQLQueryExpression<Member>
  where QueryValue == CodableJSONRepresentation<Root> {
    extracting(JSONPath.argument(path))
  }

  /// The object or array at `path` in this JSON document, as its JSON:
  /// `$0.author.jsonExtract(\.links)` reads as `[Link]`.
  @_disfavoredOverload
  public func jsonExtract<Root: Codable, Member: Codable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<Member>>
  ) -> SQLQueryExpression<CodableJSONRepresentation<Member>>
  where QueryValue == CodableJSONRepresentation<Root> {
    extracting(JSONPath.argument(path))
  }

  /// The value at `path` in this optional JSON document (NULL when the
  /// document is: an optional column, the missing side of an outer join).
  public func jsonExtract<Root: Codable, Member: QueryBindable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<Member>>
  ) -> SQLQueryExpression<Member.Optionalized>
  where QueryValue == CodableJSONRepresentation<Root>? {
    extracting(JSONPath.argument(path))
  }

  private func extracting<V>(_ path: QueryFragment) -> SQLQueryExpression<V> {
    call("json_extract", [queryFragment, path])
  }
}
