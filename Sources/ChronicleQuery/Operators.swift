// Comparison, logic and arithmetic between expressions. Plain Swift values
// (String, Int, ...) are expressions too: `$0.title == "Milk"` binds "Milk".
// The left operand must be a builder expression (a column, a function...),
// so that these operators never compete with Swift's own on plain values.

// MARK: Equality
// `==` and `!=` keep Swift's meaning: when a side may be NULL they compare
// with `IS`/`IS NOT`, so `nil == nil` holds and the result is never NULL (a
// selected `$0.priority == 3` always decodes as a Bool). `eq` and `neq` are
// SQL's `=` and `<>`, as upstream writes them; `is` and `isNot` are `IS`.

public func == <T: QueryBindable>(lhs: some QueryExpressionSyntax<T>, rhs: some QueryExpression<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, T.self is any _OptionalQueryValue.Type ? "IS" : "=", rhs.queryFragment)
}
public func != <T: QueryBindable>(lhs: some QueryExpressionSyntax<T>, rhs: some QueryExpression<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, T.self is any _OptionalQueryValue.Type ? "IS NOT" : "<>", rhs.queryFragment)
}
public func == <T: QueryBindable>(lhs: some QueryExpressionSyntax<T?>, rhs: some QueryExpression<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "IS", rhs.queryFragment)
}
public func != <T: QueryBindable>(lhs: some QueryExpressionSyntax<T?>, rhs: some QueryExpression<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "IS NOT", rhs.queryFragment)
}

// MARK: Comparisons with nil
// Swift's own `== nil` takes any value, a column included, and answers
// false (it is not an Optional): `.where { $0.notes == nil }` would select
// nothing. These, exact for a nil literal, say `IS NULL` instead.

/// `self IS NULL`: `$0.notes == nil`.
public func == <T: QueryBindable>(lhs: some QueryExpressionSyntax<T?>, rhs: _OptionalNilComparisonType) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "IS", QueryFragment(sql: "NULL"))
}
/// `self IS NOT NULL`: `$0.notes != nil`.
public func != <T: QueryBindable>(lhs: some QueryExpressionSyntax<T?>, rhs: _OptionalNilComparisonType) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "IS NOT", QueryFragment(sql: "NULL"))
}
/// `expression IS NULL`: `nil == $0.notes`.
public func == <T: QueryBindable>(lhs: _OptionalNilComparisonType, rhs: some QueryExpressionSyntax<T?>) -> SQLQueryExpression<Bool> {
  rhs == lhs
}
/// `expression IS NOT NULL`: `nil != $0.notes`.
public func != <T: QueryBindable>(lhs: _OptionalNilComparisonType, rhs: some QueryExpressionSyntax<T?>) -> SQLQueryExpression<Bool> {
  rhs != lhs
}

/// `self IS NULL` for a column read in an update closure (a plain
/// ``SQLQueryExpression``): `Case().when($0.notes == nil, then: …)`.
public func == <T: QueryBindable>(lhs: SQLQueryExpression<T?>, rhs: _OptionalNilComparisonType) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "IS", QueryFragment(sql: "NULL"))
}
/// `self IS NOT NULL` for a column read in an update closure.
public func != <T: QueryBindable>(lhs: SQLQueryExpression<T?>, rhs: _OptionalNilComparisonType) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "IS NOT", QueryFragment(sql: "NULL"))
}

// MARK: Ordering comparisons

public func < <T: QueryBindable>(lhs: some QueryExpressionSyntax<T>, rhs: some QueryExpression<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "<", rhs.queryFragment)
}
public func <= <T: QueryBindable>(lhs: some QueryExpressionSyntax<T>, rhs: some QueryExpression<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "<=", rhs.queryFragment)
}
public func > <T: QueryBindable>(lhs: some QueryExpressionSyntax<T>, rhs: some QueryExpression<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, ">", rhs.queryFragment)
}
public func >= <T: QueryBindable>(lhs: some QueryExpressionSyntax<T>, rhs: some QueryExpression<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, ">=", rhs.queryFragment)
}

extension QueryExpression where QueryValue: QueryBindable {
  /// `self = other` (never true when a side is NULL: see ``is(_:)``).
  public func eq(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<Bool> {
    binary(queryFragment, "=", other.queryFragment)
  }
  /// `self <> other` (never true when a side is NULL: see ``isNot(_:)``).
  public func neq(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<Bool> {
    binary(queryFragment, "<>", other.queryFragment)
  }
  /// `self IS other`: equal, or both NULL.
  @_disfavoredOverload
  public func `is`(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<Bool> {
    binary(queryFragment, "IS", other.queryFragment)
  }
  /// `self IS NOT other`: different, or one of them NULL.
  @_disfavoredOverload
  public func isNot(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<Bool> {
    binary(queryFragment, "IS NOT", other.queryFragment)
  }
  public func lt(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<Bool> { binary(queryFragment, "<", other.queryFragment) }
  public func lte(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<Bool> { binary(queryFragment, "<=", other.queryFragment) }
  public func gt(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<Bool> { binary(queryFragment, ">", other.queryFragment) }
  public func gte(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<Bool> { binary(queryFragment, ">=", other.queryFragment) }

  /// `self BETWEEN lower AND upper`.
  public func between(_ lower: some QueryExpression<QueryValue>, and upper: some QueryExpression<QueryValue>) -> SQLQueryExpression<Bool> {
    SQLQueryExpression(parenthesized(queryFragment + QueryFragment(" BETWEEN ") + lower.queryFragment + QueryFragment(" AND ") + upper.queryFragment))
  }

  /// `self IN (values...)`; false for no values.
  public func `in`(_ values: some Sequence<QueryValue>) -> SQLQueryExpression<Bool> {
    membership("IN", values, whenEmpty: "0")
  }

  /// `self IN (subquery)`.
  public func `in`(_ subquery: some QueryStatement<QueryValue>) -> SQLQueryExpression<Bool> {
    membership("IN", subquery.query)
  }

  /// `self NOT IN (values...)`; true for no values.
  public func notIn(_ values: some Sequence<QueryValue>) -> SQLQueryExpression<Bool> {
    membership("NOT IN", values, whenEmpty: "1")
  }

  /// `self NOT IN (subquery)`.
  public func notIn(_ subquery: some QueryStatement<QueryValue>) -> SQLQueryExpression<Bool> {
    membership("NOT IN", subquery.query)
  }

  func membership(_ op: String, _ values: some Sequence<QueryValue>, whenEmpty: String) -> SQLQueryExpression<Bool> {
    let list = values.map(\.queryFragment)
    guard !list.isEmpty else { return SQLQueryExpression(QueryFragment(sql: whenEmpty)) }
    return membership(op, list.joined(separator: ", "))
  }

  private func membership(_ op: String, _ list: QueryFragment) -> SQLQueryExpression<Bool> {
    SQLQueryExpression(parenthesized(queryFragment + QueryFragment(sql: " \(op) (") + list + QueryFragment(")")))
  }
}

extension QueryExpression where QueryValue: _OptionalQueryValue {
  /// `self IS NULL`: `$0.notes.is(nil)`.
  public func `is`(_ null: _Null) -> SQLQueryExpression<Bool> {
    SQLQueryExpression(parenthesized(queryFragment + QueryFragment(" IS NULL")))
  }
  /// `self IS NOT NULL`.
  public func isNot(_ null: _Null) -> SQLQueryExpression<Bool> {
    SQLQueryExpression(parenthesized(queryFragment + QueryFragment(" IS NOT NULL")))
  }
}

/// The `nil` of `is(nil)` and `isNot(nil)`.
public struct _Null: ExpressibleByNilLiteral {
  public init(nilLiteral: ()) {}
}

/// Optional types, to tell nullable expressions apart.
public protocol _OptionalQueryValue {
  associatedtype Wrapped
}
extension Optional: _OptionalQueryValue {}

// MARK: Logic

public func && (lhs: some QueryExpression<Bool>, rhs: some QueryExpression<Bool>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "AND", rhs.queryFragment)
}
public func || (lhs: some QueryExpression<Bool>, rhs: some QueryExpression<Bool>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "OR", rhs.queryFragment)
}
public prefix func ! (operand: some QueryExpression<Bool>) -> SQLQueryExpression<Bool> {
  SQLQueryExpression(QueryFragment("NOT ") + parenthesized(operand.queryFragment))
}

// MARK: Arithmetic and concatenation

/// Number types that SQL arithmetic applies to.
public protocol QueryNumeric: QueryBindable {}
extension Int: QueryNumeric {}
extension Int64: QueryNumeric {}
extension Int32: QueryNumeric {}
extension Double: QueryNumeric {}

public func + <T: QueryNumeric>(lhs: some QueryExpressionSyntax<T>, rhs: some QueryExpression<T>) -> SQLQueryExpression<T> {
  binary(lhs.queryFragment, "+", rhs.queryFragment)
}
public func - <T: QueryNumeric>(lhs: some QueryExpressionSyntax<T>, rhs: some QueryExpression<T>) -> SQLQueryExpression<T> {
  binary(lhs.queryFragment, "-", rhs.queryFragment)
}
public func * <T: QueryNumeric>(lhs: some QueryExpressionSyntax<T>, rhs: some QueryExpression<T>) -> SQLQueryExpression<T> {
  binary(lhs.queryFragment, "*", rhs.queryFragment)
}
public func / <T: QueryNumeric>(lhs: some QueryExpressionSyntax<T>, rhs: some QueryExpression<T>) -> SQLQueryExpression<T> {
  binary(lhs.queryFragment, "/", rhs.queryFragment)
}
/// The remainder, `lhs % rhs`: optional, as SQLite gives NULL for a zero divisor.
public func % <T: QueryNumeric>(lhs: some QueryExpressionSyntax<T>, rhs: some QueryExpression<T>) -> SQLQueryExpression<T.Optionalized> {
  binary(lhs.queryFragment, "%", rhs.queryFragment)
}
/// String concatenation (`||`).
public func + (lhs: some QueryExpressionSyntax<String>, rhs: some QueryExpression<String>) -> SQLQueryExpression<String> {
  binary(lhs.queryFragment, "||", rhs.queryFragment)
}

public func += <T: QueryNumeric>(lhs: inout SQLQueryExpression<T>, rhs: some QueryExpression<T>) {
  lhs = SQLQueryExpression<T>(binary(lhs.queryFragment, "+", rhs.queryFragment))
}
public func -= <T: QueryNumeric>(lhs: inout SQLQueryExpression<T>, rhs: some QueryExpression<T>) {
  lhs = SQLQueryExpression<T>(binary(lhs.queryFragment, "-", rhs.queryFragment))
}
public func *= <T: QueryNumeric>(lhs: inout SQLQueryExpression<T>, rhs: some QueryExpression<T>) {
  lhs = SQLQueryExpression<T>(binary(lhs.queryFragment, "*", rhs.queryFragment))
}
public func += (lhs: inout SQLQueryExpression<String>, rhs: some QueryExpression<String>) {
  lhs = SQLQueryExpression<String>(binary(lhs.queryFragment, "||", rhs.queryFragment))
}

// MARK: NULL handling (`??` is in CoalesceFunction.swift)

extension QueryExpression {
  /// `ifnull(self, other)`.
  public func ifnull<T: QueryBindable>(_ other: some QueryExpression<T>) -> SQLQueryExpression<T> where QueryValue == T? {
    SQLQueryExpression(QueryFragment("ifnull(") + queryFragment + QueryFragment(", ") + other.queryFragment + QueryFragment(")"))
  }
}

// MARK: Comparisons between an optional and a non-optional side
// (an outer join's nullable columns against the other side's).

public func == <T: QueryBindable>(lhs: some QueryExpressionSyntax<T>, rhs: some QueryExpression<T?>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "IS", rhs.queryFragment)
}
public func != <T: QueryBindable>(lhs: some QueryExpressionSyntax<T>, rhs: some QueryExpression<T?>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "IS NOT", rhs.queryFragment)
}
public func < <T: QueryBindable>(lhs: some QueryExpressionSyntax<T?>, rhs: some QueryExpression<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "<", rhs.queryFragment)
}
public func <= <T: QueryBindable>(lhs: some QueryExpressionSyntax<T?>, rhs: some QueryExpression<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, "<=", rhs.queryFragment)
}
public func > <T: QueryBindable>(lhs: some QueryExpressionSyntax<T?>, rhs: some QueryExpression<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, ">", rhs.queryFragment)
}
public func >= <T: QueryBindable>(lhs: some QueryExpressionSyntax<T?>, rhs: some QueryExpression<T>) -> SQLQueryExpression<Bool> {
  binary(lhs.queryFragment, ">=", rhs.queryFragment)
}

extension QueryExpression where QueryValue: QueryBindable {
  /// `self = other`, other optional: `$0.id.eq($1.itemID)` across an outer join.
  public func eq(_ other: some QueryExpression<QueryValue?>) -> SQLQueryExpression<Bool> {
    binary(queryFragment, "=", other.queryFragment)
  }
  /// `self <> other`, other optional.
  public func neq(_ other: some QueryExpression<QueryValue?>) -> SQLQueryExpression<Bool> {
    binary(queryFragment, "<>", other.queryFragment)
  }
  /// `self IS other`, other optional.
  @_disfavoredOverload
  public func `is`(_ other: some QueryExpression<QueryValue?>) -> SQLQueryExpression<Bool> {
    binary(queryFragment, "IS", other.queryFragment)
  }
  /// `self IS NOT other`, other optional.
  @_disfavoredOverload
  public func isNot(_ other: some QueryExpression<QueryValue?>) -> SQLQueryExpression<Bool> {
    binary(queryFragment, "IS NOT", other.queryFragment)
  }
}

extension QueryExpression where QueryValue: _OptionalQueryValue, QueryValue.Wrapped: QueryBindable {
  /// `self = other`, self optional: `$1.itemID.eq($0.id)` across an outer join.
  public func eq(_ other: some QueryExpression<QueryValue.Wrapped>) -> SQLQueryExpression<Bool> {
    binary(queryFragment, "=", other.queryFragment)
  }
  /// `self <> other`, self optional.
  public func neq(_ other: some QueryExpression<QueryValue.Wrapped>) -> SQLQueryExpression<Bool> {
    binary(queryFragment, "<>", other.queryFragment)
  }
  /// `self IS other`, self optional.
  @_disfavoredOverload
  public func `is`(_ other: some QueryExpression<QueryValue.Wrapped>) -> SQLQueryExpression<Bool> {
    binary(queryFragment, "IS", other.queryFragment)
  }
  /// `self IS NOT other`, self optional.
  @_disfavoredOverload
  public func isNot(_ other: some QueryExpression<QueryValue.Wrapped>) -> SQLQueryExpression<Bool> {
    binary(queryFragment, "IS NOT", other.queryFragment)
  }
}
