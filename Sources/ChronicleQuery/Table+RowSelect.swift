// A row value as the first select of a compound: the base case of a
// recursive common table, as upstream writes it:
//
//   With {
//     Fibonacci(n: 1, previous: 0, value: 1)
//       .union(Fibonacci.select { Fibonacci.Columns(n: $0.n + 1, previous: $0.value, value: $0.previous + $0.value) })
//   } query: { Fibonacci.select(\.value).limit(10) }

extension Table {
  /// This row's values, then the rows of `other` that it does not have
  /// (`UNION`), or all of them (`all: true`, `UNION ALL`).
  public func union(all: Bool = false, _ other: some SelectStatement<Self>) -> CompoundSelect<Self> {
    compound(all ? .unionAll : .union, other)
  }

  /// This row, if `other` has it too (`INTERSECT`).
  public func intersect(_ other: some SelectStatement<Self>) -> CompoundSelect<Self> {
    compound(.intersect, other)
  }

  /// This row, unless `other` has it (`EXCEPT`).
  public func except(_ other: some SelectStatement<Self>) -> CompoundSelect<Self> {
    compound(.except, other)
  }

  /// `SELECT ? AS "column", …`: this row's values, named as its table names them.
  var valuesSelect: QueryFragment { rowSelect(Self.selectedValues(of: self)) }

  private func compound(_ operation: CompoundOperator, _ other: some SelectStatement<Self>) -> CompoundSelect<Self> {
    CompoundSelect(parts: [valuesSelect, QueryFragment(sql: operation.rawValue), other.compoundOperand]) { decoder in
      try Self(decoder: &decoder)
    }
  }
}
