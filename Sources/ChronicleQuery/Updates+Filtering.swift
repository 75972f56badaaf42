/// Conditions added to an UPDATE or DELETE after it was started, as
/// upstream spells them: `Reminder.update { … }.where { … }`,
/// `Reminder.delete().find(id)`.
extension Update {
  /// Adds a condition (AND-ed with the others).
  @_disfavoredOverload
  public func `where`(_ predicate: (Base.TableColumns) -> some QueryExpression<Bool>) -> Self {
    var update = self
    update.conditions.append(predicate(Base.columns).queryFragment)
    return update
  }

  /// Adds the conditions a closure gives, written with `if`, `switch` or `for`.
  public func `where`(@QueryFragmentBuilder<Bool> _ predicate: (Base.TableColumns) -> [QueryFragment]) -> Self {
    var update = self
    update.conditions += predicate(Base.columns)
    return update
  }

  /// Adds a Bool column as a condition: `.where(\.isCompleted)`.
  public func `where`(_ column: KeyPath<Base.TableColumns, TableColumn<Base, Bool>>) -> Self {
    self.where { $0[keyPath: column] }
  }
}

extension Update where Base: PrimaryKeyedTable {
  /// Narrows to the row with primary key `key` (`id IN (?)`, as upstream writes it).
  public func find(_ key: Base.TableColumns.PrimaryKey) -> Self {
    self.where { $0.hasPrimaryKey(in: [key]) }
  }

  /// Narrows to the rows with these primary keys.
  public func find(_ keys: some Sequence<Base.TableColumns.PrimaryKey>) -> Self {
    self.where { $0.hasPrimaryKey(in: keys) }
  }
}

extension Delete {
  /// Adds a condition (AND-ed with the others).
  @_disfavoredOverload
  public func `where`(_ predicate: (Base.TableColumns) -> some QueryExpression<Bool>) -> Self {
    var delete = self
    delete.conditions.append(predicate(Base.columns).queryFragment)
    return delete
  }

  /// Adds the conditions a closure gives, written with `if`, `switch` or `for`.
  public func `where`(@QueryFragmentBuilder<Bool> _ predicate: (Base.TableColumns) -> [QueryFragment]) -> Self {
    var delete = self
    delete.conditions += predicate(Base.columns)
    return delete
  }

  /// Adds a Bool column as a condition: `.where(\.isCompleted)`.
  public func `where`(_ column: KeyPath<Base.TableColumns, TableColumn<Base, Bool>>) -> Self {
    self.where { $0[keyPath: column] }
  }
}

extension Delete where Base: PrimaryKeyedTable {
  /// Narrows to the row with primary key `key` (`id IN (?)`, as upstream writes it).
  public func find(_ key: Base.TableColumns.PrimaryKey) -> Self {
    self.where { $0.hasPrimaryKey(in: [key]) }
  }

  /// Narrows to the rows with these primary keys.
  public func find(_ keys: some Sequence<Base.TableColumns.PrimaryKey>) -> Self {
    self.where { $0.hasPrimaryKey(in: keys) }
  }
}
