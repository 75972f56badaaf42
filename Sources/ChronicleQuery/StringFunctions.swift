// SQLite's string functions on text expressions.

/// `value` with LIKE's wildcards escaped by backslash.
func escapedForLike(_ value: String) -> String {
  var result = ""
  for character in value {
    if character == "%" || character == "_" || character == "\\" { result.append("\\") }
    result.append(character)
  }
  return result
}

extension QueryExpression where QueryValue == String {
  public func upper() -> SQLQueryExpression<String> { call("upper", [queryFragment]) }
  public func lower() -> SQLQueryExpression<String> { call("lower", [queryFragment]) }
  /// `trim(self)`, or of `characters` when given.
  public func trim(_ characters: String? = nil) -> SQLQueryExpression<String> {
    call("trim", [queryFragment] + (characters.map { [$0.queryFragment] } ?? []))
  }
  public func ltrim(_ characters: String? = nil) -> SQLQueryExpression<String> {
    call("ltrim", [queryFragment] + (characters.map { [$0.queryFragment] } ?? []))
  }
  public func rtrim(_ characters: String? = nil) -> SQLQueryExpression<String> {
    call("rtrim", [queryFragment] + (characters.map { [$0.queryFragment] } ?? []))
  }
  /// `substr(self, start, length)`; `start` counts from 1.
  public func substr(_ start: some QueryExpression<Int>, _ length: (some QueryExpression<Int>)? = Int?.none) -> SQLQueryExpression<String> {
    call("substr", [queryFragment, start.queryFragment] + (length.map { [$0.queryFragment] } ?? []))
  }
  public func replace(_ pattern: some QueryExpression<String>, _ replacement: some QueryExpression<String>) -> SQLQueryExpression<String> {
    call("replace", [queryFragment, pattern.queryFragment, replacement.queryFragment])
  }
  /// `length(self)`, in characters.
  public func length() -> SQLQueryExpression<Int> { call("length", [queryFragment]) }
  /// `instr(self, other)`: 1-based position of `other`, 0 when absent.
  public func instr(_ other: some QueryExpression<String>) -> SQLQueryExpression<Int> {
    call("instr", [queryFragment, other.queryFragment])
  }
  /// `self LIKE pattern` (ASCII case-insensitive; `%` and `_` are wildcards).
  public func like(_ pattern: some QueryExpression<String>, escape: Character? = nil) -> SQLQueryExpression<Bool> {
    var fragment = queryFragment + QueryFragment(" LIKE ") + pattern.queryFragment
    if let escape { fragment.append(" ESCAPE " + String(escape).queryBinding.sqlLiteral) }
    return SQLQueryExpression(parenthesized(fragment))
  }
  /// `self GLOB pattern` (case-sensitive; `*`, `?` and `[…]` are wildcards).
  public func glob(_ pattern: some QueryExpression<String>) -> SQLQueryExpression<Bool> {
    binary(queryFragment, "GLOB", pattern.queryFragment)
  }
}

extension QueryExpressionSyntax where QueryValue == String {
  /// Whether the text holds `substring` (LIKE, ASCII case-insensitive); a
  /// `Substring` does as well as a `String` (`searchText.dropFirst()`).
  public func contains(_ substring: some StringProtocol) -> SQLQueryExpression<Bool> {
    like("%" + escapedForLike(String(substring)) + "%", escape: "\\")
  }
  /// Whether the text starts with `prefix` (LIKE, ASCII case-insensitive).
  public func hasPrefix(_ prefix: some StringProtocol) -> SQLQueryExpression<Bool> {
    like(escapedForLike(String(prefix)) + "%", escape: "\\")
  }
  /// Whether the text ends with `suffix` (LIKE, ASCII case-insensitive).
  public func hasSuffix(_ suffix: some StringProtocol) -> SQLQueryExpression<Bool> {
    like("%" + escapedForLike(String(suffix)), escape: "\\")
  }
}
