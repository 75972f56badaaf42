/// A column group's columns inside an update closure: `$0.status` in
/// `$0.status.isOutOfStock = true`. Each member reads and assigns as a
/// column of the table does (``Updates/subscript(dynamicMember:)-(KeyPath<Base.TableColumns,TableColumn<Base,V>>)``):
/// an expression, a Swift value of its type, or a mutation in place
/// (`$0.status.isOutOfStock.toggle()`).
@dynamicMemberLookup
public struct ColumnGroupUpdates<Base: Table, Group: Selection> {
  /// The update the group's assignments go to.
  var updates: Updates<Base>
  let group: TableColumn<Base, Group>

  /// A member's value in the update: what this update assigned it so far,
  /// or the column.
  public subscript<Member: QueryBindable>(dynamicMember member: KeyPath<Group, Member>) -> SQLQueryExpression<Member>
  where Member.QueryOutput == Member {
    get { SQLQueryExpression(updates.current(group[dynamicMember: member]).queryFragment) }
    set { updates.assign(group[dynamicMember: member], newValue.queryFragment) }
  }

  /// A member assigned a column of this table or another:
  /// `$0.timestamps.updatedAt = excluded.timestamps.createdAt` in an
  /// upsert. Write-only.
  @_disfavoredOverload
  public subscript<Member: QueryBindable, Other: Table>(dynamicMember member: KeyPath<Group, Member>) -> TableColumn<Other, Member>
  where Member.QueryOutput == Member {
    @available(*, unavailable, message: "read a column in an update as an expression: '$0.group.column'")
    get { fatalError("unavailable") }
    set { updates.assign(group[dynamicMember: member], newValue.queryFragment) }
  }

  /// A member assigned a Swift value of its type. Write-only; implicitly
  /// unwrapped for the reason the table's own value form is.
  @_disfavoredOverload
  public subscript<Member: QueryBindable>(dynamicMember member: KeyPath<Group, Member>) -> Member!
  where Member.QueryOutput == Member {
    @available(*, unavailable, message: "read a column in an update as an expression: '$0.group.column'")
    get { fatalError("unavailable") }
    set { updates.assign(group[dynamicMember: member], value: newValue) }
  }
}
