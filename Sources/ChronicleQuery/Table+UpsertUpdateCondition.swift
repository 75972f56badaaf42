// Upserts with a `where:` after `doUpdate:` and none before it, as upstream's
// users write them:
//
//     Tag.insert { … } onConflict: { $0.title } doUpdate: { $0.useCount += 1 } where: { $0.useCount < 100 }
//
// In the forms with both conditions, Swift gives a lone `where:` to the first
// parameter labeled so (the conflict target's) and then refuses it after
// `doUpdate:`; these forms have only the update's.

extension Table {
  /// A conflict target's condition that adds none.
  static func noConflictFilter(_: TableColumns) -> [QueryFragment] { [] }

  /// Inserts whole rows; on a conflict over `target`, updates the existing
  /// row where `updateFilter` holds.
  public static func insert<each C: QueryExpression>(
    @InsertValuesBuilder<Self> _ rows: () -> [Self],
    onConflict target: (TableColumns) -> (repeat each C),
    doUpdate updates: (inout Updates<Self>, TableColumns) -> Void,
    @QueryFragmentBuilder<Bool> where updateFilter: (TableColumns) -> [QueryFragment]
  ) -> Insert<Self, Void> {
    insert(rows, onConflict: target, where: noConflictFilter, doUpdate: updates, where: updateFilter)
  }

  /// Inserts whole rows; on a conflict over `target`, updates the existing
  /// row where `updateFilter` holds: `doUpdate: { $0.count += 1 } where: { … }`.
  public static func insert<each C: QueryExpression>(
    @InsertValuesBuilder<Self> _ rows: () -> [Self],
    onConflict target: (TableColumns) -> (repeat each C),
    doUpdate updates: (inout Updates<Self>) -> Void,
    @QueryFragmentBuilder<Bool> where updateFilter: (TableColumns) -> [QueryFragment]
  ) -> Insert<Self, Void> {
    insert(rows, onConflict: target, where: noConflictFilter, doUpdate: updates, where: updateFilter)
  }
}

extension PrimaryKeyedTable {
  /// Inserts drafts; on a conflict over `target`, updates the existing row
  /// where `updateFilter` holds.
  @_disfavoredOverload
  public static func insert<each C: QueryExpression>(
    @InsertValuesBuilder<Draft> _ drafts: () -> [Draft],
    onConflict target: (TableColumns) -> (repeat each C),
    doUpdate updates: (inout Updates<Self>, TableColumns) -> Void,
    @QueryFragmentBuilder<Bool> where updateFilter: (TableColumns) -> [QueryFragment]
  ) -> Insert<Self, Void> {
    insert(drafts, onConflict: target, where: noConflictFilter, doUpdate: updates, where: updateFilter)
  }

  /// Inserts drafts; on a conflict over `target`, updates the existing row
  /// where `updateFilter` holds: `doUpdate: { $0.count += 1 } where: { … }`.
  @_disfavoredOverload
  public static func insert<each C: QueryExpression>(
    @InsertValuesBuilder<Draft> _ drafts: () -> [Draft],
    onConflict target: (TableColumns) -> (repeat each C),
    doUpdate updates: (inout Updates<Self>) -> Void,
    @QueryFragmentBuilder<Bool> where updateFilter: (TableColumns) -> [QueryFragment]
  ) -> Insert<Self, Void> {
    insert(drafts, onConflict: target, where: noConflictFilter, doUpdate: updates, where: updateFilter)
  }
}
