/// The columns of a table on the side of an outer join that may be missing:
/// every column reads as optional, and the whole row as `Table?`.
///
/// In `Item.leftJoin(Category.all) { $0.categoryID.eq($1.id) }`, `$1` is a
/// `NullableColumns<Category.TableColumns>`: `$1.title` is a `String?`
/// expression, and selecting `$1` gives a `Category?`.
@dynamicMemberLookup
public struct NullableColumns<Base: QueryExpression & Sendable>: QueryExpression, QueryExpressionSyntax, Sendable
where Base.QueryValue: QueryRepresentable {
  public typealias QueryValue = Base.QueryValue.Optionalized
  /// The columns as the table has them.
  public let base: Base

  public init(_ base: Base) { self.base = base }

  public var queryFragment: QueryFragment { base.queryFragment }

  /// A column, as optional: `$1.title` is a `String?` expression.
  public subscript<Member: QueryExpression>(dynamicMember keyPath: KeyPath<Base, Member>) -> SQLQueryExpression<Member.QueryValue.Optionalized>
  where Member.QueryValue: QueryRepresentable {
    SQLQueryExpression(base[keyPath: keyPath].queryFragment)
  }

  /// A column group (or an enum selection), as optional, whose own columns
  /// read as optional too: `$1.timestamps.createdAt`, `$1.kind.note`.
  public subscript<Root, Group: Selection>(dynamicMember keyPath: KeyPath<Base, TableColumn<Root, Group>>) -> NullableColumns<TableColumn<Root, Group>> {
    NullableColumns<TableColumn<Root, Group>>(base[keyPath: keyPath])
  }
}
