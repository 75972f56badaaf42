/// `#sql` text can also run as a statement: `try #sql("DELETE FROM items").execute(db)`,
/// or be fetched as rows of its type: `#sql("SELECT \(Item.columns) FROM \(Item.self)", as: Item.self)`.
extension SQLQueryExpression: QueryStatement {
  public var query: QueryFragment { queryFragment }

  public var tableName: String? { nil }

  public func decodeRow(_ decoder: inout SQLiteQueryDecoder) throws -> QueryValue {
    if let empty = () as? QueryValue { return empty }
    guard let decodable = QueryValue.self as? any QueryDecodable.Type else {
      throw QueryDecodingError(
        table: nil, column: "#sql result", expected: "\(QueryValue.self)", found: "a row",
        detail: "\(QueryValue.self) cannot be read from rows; pass `as:` a @Table or @Selection type or a column type")
    }
    return try decodable.init(decoder: &decoder) as! QueryValue
  }
}
