// JSON documents changed in place by SQLite's `json_set`, `json_insert`,
// `json_replace` and `json_remove`, as upstream spells them, to assign in
// an update or select:
//
//   Profile.update {
//     $0.author = $0.author.jsonSet(\.name, "Blob, Esq.").jsonSet(\.isVerified, true)
//   }
//   // UPDATE "profiles"
//   // SET "author" = json_set("profiles"."author", '$."name"', 'Blob, Esq.', '$."isVerified"', json('true'))
//
// Consecutive edits with the same function make one call (SQLite applies
// its paths left to right, so the result is the same).

/// A call of one of SQLite's JSON editing functions: the document, then
/// its path and value arguments. A class, so that every other
/// ``SQLQueryExpression`` carries one word for it.
final class JSONEditCall: Sendable {
  let function: String
  let document: QueryFragment
  let arguments: [QueryFragment]

  init(function: String, document: QueryFragment, arguments: [QueryFragment]) {
    self.function = function
    self.document = document
    self.arguments = arguments
  }

  var queryFragment: QueryFragment {
    QueryFragment(sql: function + "(") + ([document] + arguments).joined(separator: ", ") + QueryFragment(")")
  }
}

extension QueryExpression {
  /// This document edited by `function` with `arguments`; one call with
  /// the arguments after this one's when this is an edit by the same function.
  fileprivate func edited<Root>(_ function: String, _ arguments: [QueryFragment]) -> SQLQueryExpression<CodableJSONRepresentation<Root>>
  where QueryValue == CodableJSONRepresentation<Root> {
    if let edit = (self as? SQLQueryExpression<QueryValue>)?.jsonEdit, edit.function == function {
      return SQLQueryExpression(jsonEdit: JSONEditCall(function: function, document: edit.document, arguments: edit.arguments + arguments))
    }
    return SQLQueryExpression(jsonEdit: JSONEditCall(function: function, document: queryFragment, arguments: arguments))
  }
}

// MARK: json_set: a value at a path, made if it is not there

extension QueryExpression {
  /// This document with `value` at `path`, the member made if it is not
  /// there (`json_set`): `$0.author.jsonSet(\.name, "Blob")`.
  public func jsonSet<Root: Codable, Member: QueryBindable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<Member>>, _ value: some QueryExpression<Member>
  ) -> SQLQueryExpression<CodableJSONRepresentation<Root>> where QueryValue == CodableJSONRepresentation<Root> {
    edited("json_set", [JSONPath.argument(path), jsonValue(value)])
  }

  /// This document with `value` at an optional member's `path`.
  public func jsonSet<Root: Codable, Member: QueryBindable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<Member?>>, _ value: some QueryExpression<Member>
  ) -> SQLQueryExpression<CodableJSONRepresentation<Root>> where QueryValue == CodableJSONRepresentation<Root> {
    edited("json_set", [JSONPath.argument(path), jsonValue(value)])
  }

  /// This document with an object or array at `path`, written as its JSON:
  /// `$0.author.jsonSet(\.links, [Link(homepage: "…")])`.
  @_disfavoredOverload
  public func jsonSet<Root: Codable, Member: Codable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<Member>>, _ value: Member
  ) -> SQLQueryExpression<CodableJSONRepresentation<Root>> where QueryValue == CodableJSONRepresentation<Root> {
    edited("json_set", [JSONPath.argument(path), encodedJSON(value)])
  }

  /// This document with the JSON an expression holds at `path` (another
  /// JSON column, a `jsonExtract`): `$0.author.jsonSet(\.links, $0.archive)`.
  public func jsonSet<Root: Codable, Member: Codable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<Member>>, _ value: some QueryExpression<CodableJSONRepresentation<Member>>
  ) -> SQLQueryExpression<CodableJSONRepresentation<Root>> where QueryValue == CodableJSONRepresentation<Root> {
    edited("json_set", [JSONPath.argument(path), jsonValue(value)])
  }
}

// MARK: json_insert: a value where there is none

extension QueryExpression {
  /// This document with `value` at an optional member's `path` if the
  /// member is not there (`json_insert`): `$0.author.jsonInsert(\.nickname, "Blobby")`.
  public func jsonInsert<Root: Codable, Member: QueryBindable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<Member?>>, _ value: some QueryExpression<Member>
  ) -> SQLQueryExpression<CodableJSONRepresentation<Root>> where QueryValue == CodableJSONRepresentation<Root> {
    edited("json_insert", [JSONPath.argument(path), jsonValue(value)])
  }

  /// This document with an object or array at an optional member's `path`
  /// if the member is not there.
  @_disfavoredOverload
  public func jsonInsert<Root: Codable, Member: Codable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<Member?>>, _ value: Member
  ) -> SQLQueryExpression<CodableJSONRepresentation<Root>> where QueryValue == CodableJSONRepresentation<Root> {
    edited("json_insert", [JSONPath.argument(path), encodedJSON(value)])
  }

  /// This document with the JSON an expression holds at an optional
  /// member's `path` if the member is not there.
  public func jsonInsert<Root: Codable, Member: Codable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<Member?>>, _ value: some QueryExpression<CodableJSONRepresentation<Member>>
  ) -> SQLQueryExpression<CodableJSONRepresentation<Root>> where QueryValue == CodableJSONRepresentation<Root> {
    edited("json_insert", [JSONPath.argument(path), jsonValue(value)])
  }

  /// This document with `element` after the last element of the array at
  /// `path` (`json_insert` at `[#]`): `$0.author.jsonAppend(\.links, link)`.
  public func jsonAppend<Root: Codable, Element: QueryBindable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<[Element]>>, _ element: some QueryExpression<Element>
  ) -> SQLQueryExpression<CodableJSONRepresentation<Root>> where QueryValue == CodableJSONRepresentation<Root> {
    edited("json_insert", [JSONPath.argument(path, appending: "[#]"), jsonValue(element)])
  }

  /// This document with an object or array appended to the array at `path`.
  @_disfavoredOverload
  public func jsonAppend<Root: Codable, Element: Codable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<[Element]>>, _ element: Element
  ) -> SQLQueryExpression<CodableJSONRepresentation<Root>> where QueryValue == CodableJSONRepresentation<Root> {
    edited("json_insert", [JSONPath.argument(path, appending: "[#]"), encodedJSON(element)])
  }

  /// This document with the JSON an expression holds appended to the array at `path`.
  public func jsonAppend<Root: Codable, Element: Codable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<[Element]>>, _ element: some QueryExpression<CodableJSONRepresentation<Element>>
  ) -> SQLQueryExpression<CodableJSONRepresentation<Root>> where QueryValue == CodableJSONRepresentation<Root> {
    edited("json_insert", [JSONPath.argument(path, appending: "[#]"), jsonValue(element)])
  }

  /// This JSON array with `element` after its last: `$0.tags.jsonAppend("new")`
  /// (`json_insert("reminders"."tags", '$[#]', 'new')`).
  public func jsonAppend<Element: QueryBindable>(_ element: some QueryExpression<Element>) -> SQLQueryExpression<CodableJSONRepresentation<[Element]>>
  where QueryValue == CodableJSONRepresentation<[Element]> {
    edited("json_insert", [QueryFragment(binding: .text("$[#]")), jsonValue(element)])
  }

  /// This JSON array with an object or array after its last element.
  @_disfavoredOverload
  public func jsonAppend<Element: Codable>(_ element: Element) -> SQLQueryExpression<CodableJSONRepresentation<[Element]>>
  where QueryValue == CodableJSONRepresentation<[Element]> {
    edited("json_insert", [QueryFragment(binding: .text("$[#]")), encodedJSON(element)])
  }
}

// MARK: json_replace: a value where there is one

extension QueryExpression {
  /// This document with `value` at `path` if something is there
  /// (`json_replace`): `$0.author.jsonReplace(\.links[0].homepage, "…")`.
  public func jsonReplace<Root: Codable, Member: QueryBindable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<Member>>, _ value: some QueryExpression<Member>
  ) -> SQLQueryExpression<CodableJSONRepresentation<Root>> where QueryValue == CodableJSONRepresentation<Root> {
    edited("json_replace", [JSONPath.argument(path), jsonValue(value)])
  }

  /// This document with `value` at an optional member's `path` if it is there.
  public func jsonReplace<Root: Codable, Member: QueryBindable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<Member?>>, _ value: some QueryExpression<Member>
  ) -> SQLQueryExpression<CodableJSONRepresentation<Root>> where QueryValue == CodableJSONRepresentation<Root> {
    edited("json_replace", [JSONPath.argument(path), jsonValue(value)])
  }

  /// This document with an object or array at `path` if something is there.
  @_disfavoredOverload
  public func jsonReplace<Root: Codable, Member: Codable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<Member>>, _ value: Member
  ) -> SQLQueryExpression<CodableJSONRepresentation<Root>> where QueryValue == CodableJSONRepresentation<Root> {
    edited("json_replace", [JSONPath.argument(path), encodedJSON(value)])
  }

  /// This document with the JSON an expression holds at `path` if
  /// something is there.
  public func jsonReplace<Root: Codable, Member: Codable>(
    _ path: KeyPath<JSONPath<Root>, JSONPath<Member>>, _ value: some QueryExpression<CodableJSONRepresentation<Member>>
  ) -> SQLQueryExpression<CodableJSONRepresentation<Root>> where QueryValue == CodableJSONRepresentation<Root> {
    edited("json_replace", [JSONPath.argument(path), jsonValue(value)])
  }
}

// MARK: json_remove

extension QueryExpression {
  /// This document without what is at `path` (`json_remove`): an optional
  /// member (`\.nickname`), an element (`\.links[0]`, the later ones move
  /// down), a dictionary's member (`\.scores["swift"]`). Removing a member
  /// the type requires leaves a document that no longer decodes as it.
  public func jsonRemove<Root: Codable, Member>(_ path: KeyPath<JSONPath<Root>, JSONPath<Member>>) -> SQLQueryExpression<CodableJSONRepresentation<Root>>
  where QueryValue == CodableJSONRepresentation<Root> {
    edited("json_remove", [JSONPath.argument(path)])
  }
}

// MARK: Arguments

/// A value as SQLite's JSON functions should write it to keep the document
/// decodable: a Swift `Bool` as `json('true')` (SQLite would write 1), a
/// boolean expression through `CASE`, a JSON column or value through
/// `json(…)` (an object, not a string holding one), anything else as it is.
private func jsonValue<Value: QueryExpression>(_ value: Value) -> QueryFragment {
  if let bool = value as? Bool { return QueryFragment(sql: bool ? "json('true')" : "json('false')") }
  if Value.QueryValue.self == Bool.self || Value.QueryValue.self == Bool?.self {
    return QueryFragment("json(CASE ") + value.queryFragment + QueryFragment(" WHEN 0 THEN 'false' WHEN 1 THEN 'true' END)")
  }
  if Value.QueryValue.self is any JSONText.Type {
    return QueryFragment("json(") + value.queryFragment + QueryFragment(")")
  }
  return value.queryFragment
}

/// `json(?)` of a Swift value's JSON, as a JSON column stores it.
private func encodedJSON<Value: Codable>(_ value: Value) -> QueryFragment {
  QueryFragment("json(") + QueryFragment(binding: CodableJSONRepresentation(queryOutput: value).queryBinding) + QueryFragment(")")
}

/// A type stored as JSON text: ``CodableJSONRepresentation``, optional or not.
protocol JSONText {}
extension CodableJSONRepresentation: JSONText {}
extension Optional: JSONText where Wrapped: JSONText {}
