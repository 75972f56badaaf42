// Inserts that update the existing row on a conflict (SQLite's upsert), in
// the spellings upstream has: `onConflict:` with a target and `doUpdate:`, or
// `onConflictDoUpdate:` for any conflict; each update closure takes the row's
// `Updates` alone (`{ $0.count += 1 }`) or with the `excluded` row
// (`{ row, excluded in row.title = excluded.title }`), and each may be
// followed by a `where:` (on the conflict target, or on the update).

extension Table {
  /// Inserts whole rows; on a conflict over `target` (where `conflictFilter`
  /// holds, for a partial index), updates the existing row where `updateFilter`
  /// holds. Without `doUpdate` the row is skipped (`DO NOTHING`).
  public static func insert<each C: QueryExpression>(
    @InsertValuesBuilder<Self> _ rows: () -> [Self],
    onConflict target: (TableColumns) -> (repeat each C),
    @QueryFragmentBuilder<Bool> where conflictFilter: (TableColumns) -> [QueryFragment] = { _ in [] },
    doUpdate updates: (inout Updates<Self>, TableColumns) -> Void = { _, _ in },
    @QueryFragmentBuilder<Bool> where updateFilter: (TableColumns) -> [QueryFragment] = { _ in [] }
  ) -> Insert<Self, Void> {
    let targets = conflictTargets(target)
    return upserting(
      Insert(resolution: nil, valueLists: valueLists(rows())), targets: targets,
      conflictFilter: conflictFilter(columns), updates: updates, updateFilter: updateFilter(columns))
  }

  /// Inserts whole rows; on a conflict over `target`, updates the existing
  /// row: `doUpdate: { $0.count += 1 }`.
  public static func insert<each C: QueryExpression>(
    @InsertValuesBuilder<Self> _ rows: () -> [Self],
    onConflict target: (TableColumns) -> (repeat each C),
    @QueryFragmentBuilder<Bool> where conflictFilter: (TableColumns) -> [QueryFragment] = { _ in [] },
    doUpdate updates: (inout Updates<Self>) -> Void,
    @QueryFragmentBuilder<Bool> where updateFilter: (TableColumns) -> [QueryFragment] = { _ in [] }
  ) -> Insert<Self, Void> {
    let targets = conflictTargets(target)
    return upserting(
      Insert(resolution: nil, valueLists: valueLists(rows())), targets: targets,
      conflictFilter: conflictFilter(columns), updates: { row, _ in updates(&row) }, updateFilter: updateFilter(columns))
  }

  /// Inserts whole rows; on any conflict, updates the existing row where
  /// `updateFilter` holds: `ON CONFLICT DO UPDATE SET …`.
  public static func insert(
    @InsertValuesBuilder<Self> _ rows: () -> [Self],
    onConflictDoUpdate updates: (inout Updates<Self>) -> Void,
    @QueryFragmentBuilder<Bool> where updateFilter: (TableColumns) -> [QueryFragment] = { _ in [] }
  ) -> Insert<Self, Void> {
    upserting(
      Insert(resolution: nil, valueLists: valueLists(rows())), targets: [],
      conflictFilter: [], updates: { row, _ in updates(&row) }, updateFilter: updateFilter(columns))
  }

  /// Inserts whole rows; on any conflict, updates the existing row from the
  /// `excluded` one where `updateFilter` (given both) holds.
  public static func insert(
    @InsertValuesBuilder<Self> _ rows: () -> [Self],
    onConflictDoUpdate updates: (inout Updates<Self>, TableColumns) -> Void,
    @QueryFragmentBuilder<Bool> where updateFilter: (TableColumns, TableColumns) -> [QueryFragment] = { _, _ in [] }
  ) -> Insert<Self, Void> {
    upserting(
      Insert(resolution: nil, valueLists: valueLists(rows())), targets: [],
      conflictFilter: [], updates: updates, updateFilter: updateFilter(columns, excludedColumns))
  }

  /// Inserts whole rows, with an update condition but no update: upstream
  /// allows the spelling for a condition built with `if` that may come out
  /// empty. A condition that is not empty has no update to guard, and the
  /// insert fails with ``InsertError`` rather than ignore it.
  public static func insert(
    @InsertValuesBuilder<Self> _ rows: () -> [Self],
    @QueryFragmentBuilder<Bool> where updateFilter: (TableColumns, TableColumns) -> [QueryFragment]
  ) -> Insert<Self, Void> {
    Insert(resolution: nil, valueLists: valueLists(rows())).unguardedUpdateCondition(updateFilter(columns, excludedColumns))
  }

  /// The columns of `excluded`, the row that could not be inserted.
  static var excludedColumns: TableColumns { TableColumns(qualifier: "excluded") }

  /// The columns that `target` names, as an array: the form ``upserting(_:targets:conflictFilter:updates:updateFilter:)``
  /// takes (Swift 6.3.1 crashes when a pack-typed tuple is passed on).
  package static func conflictTargets<each C: QueryExpression>(_ target: (TableColumns) -> (repeat each C)) -> [any QueryExpression] {
    let targetColumns = target(columns)
    var targets: [any QueryExpression] = []
    for column in repeat each targetColumns { targets.append(column) }
    return targets
  }

  /// Adds the upsert clause to `insert`, its conflict target given as ``conflictTargets(_:)`` returns it.
  package static func upserting(
    _ insert: Insert<Self, Void>, targets: [any QueryExpression], conflictFilter: [QueryFragment],
    updates: (inout Updates<Self>, TableColumns) -> Void, updateFilter: [QueryFragment]
  ) -> Insert<Self, Void> {
    // Conflict targets name bare columns.
    let target = targets.map { value in
      if let column = value as? any TableColumnExpression { return QueryFragment(sql: column.names.map(quotedIdentifier).joined(separator: ", ")) }
      return value.queryFragment
    }
    var assignments = Updates<Self>()
    updates(&assignments, excludedColumns)
    return insert.onConflict(target: target, condition: conflictFilter, updates: assignments, updateCondition: updateFilter)
  }
}

// Disfavored, as the plain draft insert is: rows alone take the rows'
// forms above, which bind them without making a draft of each.
extension PrimaryKeyedTable {
  /// Inserts drafts; on a conflict over `target`, updates the existing row
  /// where `updateFilter` holds. Without `doUpdate` the row is skipped.
  @_disfavoredOverload
  public static func insert<each C: QueryExpression>(
    @InsertValuesBuilder<Draft> _ drafts: () -> [Draft],
    onConflict target: (TableColumns) -> (repeat each C),
    @QueryFragmentBuilder<Bool> where conflictFilter: (TableColumns) -> [QueryFragment] = { _ in [] },
    doUpdate updates: (inout Updates<Self>, TableColumns) -> Void = { _, _ in },
    @QueryFragmentBuilder<Bool> where updateFilter: (TableColumns) -> [QueryFragment] = { _ in [] }
  ) -> Insert<Self, Void> {
    let targets = conflictTargets(target)
    // A key path here (`map(\.insertValues)`) crashes the Swift 6.3 runtime
    // when it resolves the key path inside this pack-generic function.
    return upserting(
      Insert(resolution: nil, valueLists: drafts().map { $0.insertValues }), targets: targets,
      conflictFilter: conflictFilter(columns), updates: updates, updateFilter: updateFilter(columns))
  }

  /// Inserts drafts; on a conflict over `target`, updates the existing row:
  /// `doUpdate: { $0.count += 1 }`.
  @_disfavoredOverload
  public static func insert<each C: QueryExpression>(
    @InsertValuesBuilder<Draft> _ drafts: () -> [Draft],
    onConflict target: (TableColumns) -> (repeat each C),
    @QueryFragmentBuilder<Bool> where conflictFilter: (TableColumns) -> [QueryFragment] = { _ in [] },
    doUpdate updates: (inout Updates<Self>) -> Void,
    @QueryFragmentBuilder<Bool> where updateFilter: (TableColumns) -> [QueryFragment] = { _ in [] }
  ) -> Insert<Self, Void> {
    let targets = conflictTargets(target)
    return upserting(
      Insert(resolution: nil, valueLists: drafts().map { $0.insertValues }), targets: targets,
      conflictFilter: conflictFilter(columns), updates: { row, _ in updates(&row) }, updateFilter: updateFilter(columns))
  }

  /// Inserts drafts; on any conflict, updates the existing row where
  /// `updateFilter` holds.
  @_disfavoredOverload
  public static func insert(
    @InsertValuesBuilder<Draft> _ drafts: () -> [Draft],
    onConflictDoUpdate updates: (inout Updates<Self>) -> Void,
    @QueryFragmentBuilder<Bool> where updateFilter: (TableColumns) -> [QueryFragment] = { _ in [] }
  ) -> Insert<Self, Void> {
    upserting(
      Insert(resolution: nil, valueLists: drafts().map(\.insertValues)), targets: [],
      conflictFilter: [], updates: { row, _ in updates(&row) }, updateFilter: updateFilter(columns))
  }

  /// Inserts drafts, with an update condition but no update (see the
  /// same form for rows): a condition that is not empty fails the insert.
  @_disfavoredOverload
  public static func insert(
    @InsertValuesBuilder<Draft> _ drafts: () -> [Draft],
    @QueryFragmentBuilder<Bool> where updateFilter: (TableColumns, TableColumns) -> [QueryFragment]
  ) -> Insert<Self, Void> {
    Insert(resolution: nil, valueLists: drafts().map(\.insertValues)).unguardedUpdateCondition(updateFilter(columns, excludedColumns))
  }

  /// Inserts drafts; on any conflict, updates the existing row from the
  /// `excluded` one where `updateFilter` (given both) holds.
  @_disfavoredOverload
  public static func insert(
    @InsertValuesBuilder<Draft> _ drafts: () -> [Draft],
    onConflictDoUpdate updates: (inout Updates<Self>, TableColumns) -> Void,
    @QueryFragmentBuilder<Bool> where updateFilter: (TableColumns, TableColumns) -> [QueryFragment] = { _, _ in [] }
  ) -> Insert<Self, Void> {
    upserting(
      Insert(resolution: nil, valueLists: drafts().map(\.insertValues)), targets: [],
      conflictFilter: [], updates: updates, updateFilter: updateFilter(columns, excludedColumns))
  }
}
