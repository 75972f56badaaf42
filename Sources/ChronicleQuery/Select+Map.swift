extension Select {
  /// A select of other expressions made from the columns this one selects:
  /// `Reminder.select { ($0.id, $0.title) }.map { ($1, $0) }` selects the
  /// title, then the id; `.map { ($0 * 2, $1.upper()) }` computes from them.
  ///
  /// The closure gets one expression per selected value, of that value's
  /// Swift type; each row decodes what the closure returns. The rest of the
  /// statement (filters, joins, grouping, order, limit) stays as it is.
  public func map<each Selected, each Mapped: QueryExpression>(
    _ transform: (repeat SQLQueryExpression<each Selected>) -> (repeat each Mapped)
  ) -> Select<From, (repeat (each Mapped).QueryValue.QueryOutput)>
  where Output == (repeat each Selected), repeat (each Mapped).QueryValue: QueryRepresentable {
    var selected = clauses.resultColumns[...]
    func next<Value>(_: Value.Type) -> SQLQueryExpression<Value> {
      // One fragment per selected value (``SelectClauses/resultColumns``).
      SQLQueryExpression(selected.popFirst() ?? QueryFragment("NULL"))
    }
    let mapped = transform(repeat next((each Selected).self))
    var columns: [QueryFragment] = []
    for expression in repeat each mapped { columns.append(expression.queryFragment) }
    return selecting(columns) { decoder in try decodeOutputs(&decoder, repeat (each Mapped).QueryValue.self) }
  }
}

extension Select {
  /// ``map(_:)`` of a select of one value: `Item.select(\.count).map { $0 + 1 }`.
  @_disfavoredOverload
  public func map<Mapped: QueryExpression>(
    _ transform: (SQLQueryExpression<Output>) -> Mapped
  ) -> Select<From, Mapped.QueryValue.QueryOutput> where Mapped.QueryValue: QueryRepresentable {
    let mapped = transform(SQLQueryExpression(clauses.columns))
    return selecting([mapped.queryFragment]) { decoder in try Mapped.QueryValue(decoder: &decoder).queryOutput }
  }
}
