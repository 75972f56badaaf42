import Foundation

// SQLite's core scalar functions on numbers, text and blobs, named as
// upstream names them: `$0.balance.abs()`, `$0.price.round(2)`,
// `$0.title.quote()`, `$0.title.nullif("")`, `16.randomblob()`.

extension QueryExpressionSyntax where QueryValue: _QueryNumericValue {
  /// `abs(self)`: the absolute value (NULL stays NULL).
  public func abs() -> SQLQueryExpression<QueryValue> { call("abs", [queryFragment]) }

  /// `sign(self)`: -1, 0 or 1 (NULL for NULL or text that is not a number).
  public func sign() -> SQLQueryExpression<QueryValue> { call("sign", [queryFragment]) }
}

extension QueryExpressionSyntax where QueryValue == Double {
  /// `round(self)` or `round(self, precision)`: rounded to `precision`
  /// digits after the decimal point (0 when not given).
  public func round(_ precision: (some QueryExpression<Int>)? = Int?.none) -> SQLQueryExpression<Double> {
    call("round", [queryFragment] + (precision.map { [$0.queryFragment] } ?? []))
  }
}

extension QueryExpression where QueryValue: QueryBindable {
  /// `nullif(self, other)`: NULL where the two are equal, else this value:
  /// `$0.title.nullif("")`.
  public func nullif(_ other: some QueryExpression<QueryValue>) -> SQLQueryExpression<QueryValue.Optionalized> {
    call("nullif", [queryFragment, other.queryFragment])
  }

  /// `quote(self)`: the value as an SQL literal (`'it''s'`, `X'00FF'`, `NULL`).
  public func quote() -> SQLQueryExpression<String> { call("quote", [queryFragment]) }
}

extension QueryExpression where QueryValue == Bool {
  /// `likely(self)`: tells SQLite's planner the condition is usually true.
  public func likely() -> SQLQueryExpression<Bool> { call("likely", [queryFragment]) }

  /// `unlikely(self)`: tells SQLite's planner the condition is usually false.
  public func unlikely() -> SQLQueryExpression<Bool> { call("unlikely", [queryFragment]) }

  /// `likelihood(self, probability)`: the probability (0...1) that the
  /// condition holds, for SQLite's planner.
  public func likelihood(_ probability: Double) -> SQLQueryExpression<Bool> {
    call("likelihood", [queryFragment, QueryFragment(sql: "\(probability)")])
  }
}

extension QueryExpression where QueryValue == String {
  /// `unicode(self)`: the code point of the first character.
  public func unicode() -> SQLQueryExpression<Int?> { call("unicode", [queryFragment]) }

  /// `octet_length(self)`: the length in bytes of the UTF-8 text (SQLite 3.43).
  public func octetLength() -> SQLQueryExpression<Int> { call("octet_length", [queryFragment]) }

  /// `unhex(self)` or `unhex(self, ignoring)`: the blob the hexadecimal text
  /// spells, NULL when it is not hexadecimal (SQLite 3.41).
  public func unhex(_ ignoring: String? = nil) -> SQLQueryExpression<Data?> {
    call("unhex", [queryFragment] + (ignoring.map { [$0.queryFragment] } ?? []))
  }
}

extension QueryExpression where QueryValue == Data {
  /// `hex(self)`: the blob as upper-case hexadecimal text.
  public func hex() -> SQLQueryExpression<String> { call("hex", [queryFragment]) }

  /// `length(self)`: the blob's size in bytes.
  public func length() -> SQLQueryExpression<Int> { call("length", [queryFragment]) }
}

extension QueryExpression where QueryValue == [UInt8] {
  /// `hex(self)`: the bytes as upper-case hexadecimal text.
  public func hex() -> SQLQueryExpression<String> { call("hex", [queryFragment]) }

  /// `length(self)`: the number of bytes.
  public func length() -> SQLQueryExpression<Int> { call("length", [queryFragment]) }
}

extension QueryExpression where QueryValue == Int {
  /// `randomblob(self)`: that many random bytes: `16.randomblob()`.
  public func randomblob() -> SQLQueryExpression<Data> { call("randomblob", [queryFragment]) }

  /// `zeroblob(self)`: that many zero bytes.
  public func zeroblob() -> SQLQueryExpression<Data> { call("zeroblob", [queryFragment]) }
}
