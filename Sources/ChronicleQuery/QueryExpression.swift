/// An SQL expression whose value has the Swift type `QueryValue`.
public protocol QueryExpression<QueryValue> {
  associatedtype QueryValue
  /// The expression's SQL.
  var queryFragment: QueryFragment { get }
}

/// An expression written as SQL, typed by the caller.
public struct SQLQueryExpression<QueryValue>: QueryExpression, Sendable {
  public let queryFragment: QueryFragment
  /// The call that made this expression when it is a JSON edit
  /// (`json_set(…)`), so that the next edit by the same function joins it.
  let jsonEdit: JSONEditCall?

  public init(_ fragment: QueryFragment, as type: QueryValue.Type = QueryValue.self) {
    self.queryFragment = fragment
    self.jsonEdit = nil
  }

  init(jsonEdit: JSONEditCall) {
    self.queryFragment = jsonEdit.queryFragment
    self.jsonEdit = jsonEdit
  }

  public init(_ expression: some QueryExpression<QueryValue>) {
    self.queryFragment = expression.queryFragment
    self.jsonEdit = (expression as? SQLQueryExpression<QueryValue>)?.jsonEdit
  }
}

/// `(lhs op rhs)`.
func binary<V>(_ lhs: QueryFragment, _ op: String, _ rhs: QueryFragment) -> SQLQueryExpression<V> {
  SQLQueryExpression(parenthesized(lhs + QueryFragment(sql: " \(op) ") + rhs))
}

/// `name(arguments...)`.
func call<V>(_ name: String, _ arguments: [QueryFragment]) -> SQLQueryExpression<V> {
  SQLQueryExpression(QueryFragment(sql: "\(name)(") + arguments.joined(separator: ", ") + QueryFragment(")"))
}

/// Wraps a fragment in parentheses.
func parenthesized(_ fragment: QueryFragment) -> QueryFragment {
  QueryFragment("(") + fragment + QueryFragment(")")
}

/// Conditions joined by AND, each in parentheses unless it is alone or
/// wrapped already, so that a condition written as SQL (`#sql("a OR b")`)
/// keeps its meaning beside the others.
func conjunction(_ conditions: [QueryFragment]) -> QueryFragment {
  guard conditions.count > 1 else { return conditions.first ?? QueryFragment() }
  return conditions.map(wrapped).joined(separator: " AND ")
}

/// `fragment` in parentheses, unless it is wrapped already.
func wrapped(_ fragment: QueryFragment) -> QueryFragment {
  isWrappedInParentheses(fragment.sql) ? fragment : parenthesized(fragment)
}

/// Whether `sql` is one parenthesized term: its first character opens a
/// parenthesis that its last character closes (quoted text skipped).
func isWrappedInParentheses(_ sql: String) -> Bool {
  guard sql.utf8.first == UInt8(ascii: "("), sql.utf8.last == UInt8(ascii: ")") else { return false }
  var depth = 0
  var quote: UInt8?
  let bytes = Array(sql.utf8)
  for (index, byte) in bytes.enumerated() {
    if let open = quote {
      if byte == open { quote = nil }
      continue
    }
    switch byte {
    case UInt8(ascii: "'"), UInt8(ascii: "\""): quote = byte
    case UInt8(ascii: "("): depth += 1
    case UInt8(ascii: ")"):
      depth -= 1
      if depth == 0 { return index == bytes.count - 1 }
    default: break
    }
  }
  return false
}
