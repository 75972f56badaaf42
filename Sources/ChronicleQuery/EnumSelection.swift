/// An enum made a selection by `@Selection`: a row holds one of its cases,
/// each case's value in columns of its own (NULL for the other cases).
public protocol EnumSelection: Selection {}

extension TableColumn where Value: EnumSelection {
  /// Whether the row holds the case that `casePath` (the case's accessor,
  /// `\.note`) reads: its columns are not all NULL.
  /// `Attachment.where { $0.kind.is(\.note) }`.
  public func `is`<Member: QueryRepresentable>(_ casePath: KeyPath<Value, Member?>) -> SQLQueryExpression<Bool>
  where Member.QueryOutput == Member {
    let column = Value.columnName(of: casePath) ?? "a property of \(Value.self) that is not a case"
    return nullTest(TableColumn<Root, Member?>(column, qualifier: qualifier, anyKeyPath: keyPath.appending(path: casePath)), "IS NOT")
  }
}
