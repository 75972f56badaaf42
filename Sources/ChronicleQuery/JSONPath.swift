/// A place inside a JSON value of type `Value`, written as a key path from
/// the document's root: `\.name`, `\.links[0].homepage`, `\.scores["swift"]`.
///
/// ```swift
/// Profile.select { $0.author.jsonExtract(\.links[0].homepage) }
/// // SELECT json_extract("profiles"."author", '$."links"[0]."homepage"') FROM "profiles"
/// ```
///
/// Members are named as Swift names them, which is how `Codable` writes
/// them unless the type renames its `CodingKeys` (a rename is not followed).
/// A member reached through an optional one, an array's element and a
/// dictionary's member are optional. A key path through a computed property
/// has no place in the JSON: the statement then fails when run, naming it.
@dynamicMemberLookup
public struct JSONPath<Value>: Sendable {
  /// The path as SQLite's JSON functions take it: `$."links"[0]."homepage"`.
  public let text: String
  /// Why the path reaches no place in the document (a computed property), if it does not.
  let problem: String?

  init(text: String, problem: String? = nil) {
    self.text = text
    self.problem = problem
  }

  /// The member of this object: `\.author.name`.
  public subscript<Member>(dynamicMember member: KeyPath<Value, Member>) -> JSONPath<Member> {
    appending(member)
  }

  /// The member of this optional object, absent when the object is.
  public subscript<Wrapped, Member>(dynamicMember member: KeyPath<Wrapped, Member>) -> JSONPath<Member?>
  where Value == Wrapped? {
    appending(member)
  }

  /// The optional member of this optional object.
  public subscript<Wrapped, Member>(dynamicMember member: KeyPath<Wrapped, Member?>) -> JSONPath<Member?>
  where Value == Wrapped? {
    appending(member)
  }

  private func appending<Other>(_ member: AnyKeyPath) -> JSONPath<Other> {
    guard problem == nil else { return JSONPath<Other>(text: text, problem: problem) }
    guard let component = jsonMemberComponent(member) else {
      return JSONPath<Other>(
        text: text,
        problem: "the JSON path \(text) goes on through \(member), which is not a stored property and has no place in "
          + "the document. Fix: name stored properties only, or extract the stored ones it is computed from")
    }
    return JSONPath<Other>(text: text + component)
  }

  /// The element of this array at `index` (from 0): optional, as there is
  /// none past the array's end.
  public subscript<Element>(index: Int) -> JSONPath<Element?> where Value == [Element] {
    JSONPath<Element?>(text: text + "[\(index)]", problem: problem)
  }

  /// The element of this optional array at `index`.
  public subscript<Element>(index: Int) -> JSONPath<Element?> where Value == [Element]? {
    JSONPath<Element?>(text: text + "[\(index)]", problem: problem)
  }

  /// The member of this dictionary's object named `key`: `\.scores["swift"]`.
  /// SQLite's paths cannot name a key holding `"`: such a path fails the
  /// statement when run, saying so.
  public subscript<Member>(key: String) -> JSONPath<Member?> where Value == [String: Member] {
    guard problem == nil, key.contains("\"") else {
      return JSONPath<Member?>(text: text + "." + quotedJSONKey(key), problem: problem)
    }
    return JSONPath<Member?>(
      text: text,
      problem: "the JSON path \(text) goes on to the key \(key.debugDescription), which SQLite's JSON paths cannot name "
        + "(a quoted key ends at the next \"). Fix: read the object whole and pick the key in Swift")
  }

  /// The path a key path from the root reaches, as a statement binds it:
  /// `\.links[0]` is `'$."links"[0]'`; a path through a computed property
  /// is a value the statement refuses to run with, naming it.
  static func argument<Root>(_ path: KeyPath<JSONPath<Root>, JSONPath<Value>>, appending suffix: String = "") -> QueryFragment {
    let reached = JSONPath<Root>(text: "$")[keyPath: path]
    return QueryFragment(binding: reached.problem.map(QueryBinding.invalid) ?? .text(reached.text + suffix))
  }
}

/// `."name"` for a key path of stored properties, as Swift describes it
/// (`\Author.name`); nil for a computed property, which has no name there.
func jsonMemberComponent(_ member: AnyKeyPath) -> String? {
  let description = String(describing: member)
  let root = "\\" + String(describing: type(of: member).rootType) + "."
  guard description.hasPrefix(root) else { return nil }
  let members = description.dropFirst(root.count)
  // A computed component reads `<computed 0x… (Type)>`.
  guard !members.contains("<") else { return nil }
  return members.split(separator: ".")
    .map { "." + quotedJSONKey(String($0.filter { $0 != "?" && $0 != "!" })) }
    .joined()
}

/// A JSON path key, quoted: `"name"`. SQLite reads a quoted key up to the
/// next `"`, with no escapes.
func quotedJSONKey(_ key: String) -> String { "\"" + key + "\"" }
