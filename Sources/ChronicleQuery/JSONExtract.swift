// `json_extract` of a member of a JSON object, named by a key path as
// upstream spells it: `$0.value.jsonExtract(\.latitude)` is
// `json_extract("json_each"."value", '$."latitude"')`.

extension QueryExpression {
  /// The member of this JSON object at `member`, as its column type:
  /// `$0.author.jsonExtract(\.name)`.
  public func jsonExtract<Root: Codable, Member: QueryBindable>(_ member: KeyPath<Root, Member>) -> SQLQueryExpression<Member>
  where QueryValue == CodableJSONRepresentation<Root> {
    extracting(member)
  }

  /// The member of this JSON object at `member`, an object or array, as its JSON.
  @_disfavoredOverload
  public func jsonExtract<Root: Codable, Member: Codable>(_ member: KeyPath<Root, Member>) -> SQLQueryExpression<CodableJSONRepresentation<Member>>
  where QueryValue == CodableJSONRepresentation<Root> {
    extracting(member)
  }

  /// The member of this optional JSON object at `member` (NULL when the
  /// object is: the missing side of an outer join).
  public func jsonExtract<Root: Codable, Member: QueryBindable>(_ member: KeyPath<Root, Member>) -> SQLQueryExpression<Member.Optionalized>
  where QueryValue == CodableJSONRepresentation<Root>? {
    extracting(member)
  }

  private func extracting<V>(_ member: AnyKeyPath) -> SQLQueryExpression<V> {
    call("json_extract", [queryFragment, QueryFragment(binding: .text(jsonPath(member)))])
  }
}

/// The JSON path of a key path's stored properties: `\Author.links` is
/// `$."links"`, `\Photo.dimensions.width` is `$."dimensions"."width"`.
/// Members are named as Swift names them (a `CodingKeys` rename is not
/// followed). A key path through a subscript or a computed property has no
/// path: the path then names it, and SQLite rejects it ("bad JSON path").
func jsonPath(_ keyPath: AnyKeyPath) -> String {
  // Swift describes `\Root.a.b?.c` as written, the root by its unqualified name.
  let description = String(describing: keyPath)
  let root = "\\" + String(describing: type(of: keyPath).rootType) + "."
  guard description.hasPrefix(root), !description.contains("<") else { return "not a stored property: \(description)" }
  let members = description.dropFirst(root.count).split(separator: ".").map { $0.filter { $0 != "?" && $0 != "!" } }
  return "$" + members.map { ".\"\($0)\"" }.joined()
}
