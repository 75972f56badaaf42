import GRDB

extension Table {
  /// Every column, qualified, in declaration order.
  @usableFromInline
  static var selectList: QueryFragment {
    let table = quotedReference
    return QueryFragment(sql: TableColumns.allColumns.flatMap(\.names).map { "\(table).\(quotedIdentifier($0))" }.joined(separator: ", "))
  }

  /// All rows: `SELECT <columns> FROM <table>`.
  @inlinable
  public static var all: Select<Self, Self> {
    Select(columns: selectList) { decoder in try Self(decoder: &decoder) }
  }

  /// Rows matching a condition: `Item.where { $0.count > 0 }`.
  @_disfavoredOverload
  public static func `where`(_ predicate: (TableColumns) -> some QueryExpression<Bool>) -> Select<Self, Self> {
    all.where(predicate)
  }

  /// Rows matching the conditions a closure gives, written with `if`,
  /// `switch` or `for`: `Item.where { if onlyInStock { $0.isInStock } }`.
  public static func `where`(@QueryFragmentBuilder<Bool> _ predicate: (TableColumns) -> [QueryFragment]) -> Select<Self, Self> {
    all.where(predicate)
  }

  /// Rows whose Bool column is true: `Item.where(\.isInStock)`.
  public static func `where`(_ column: KeyPath<TableColumns, TableColumn<Self, Bool>>) -> Select<Self, Self> {
    all.where(column)
  }

  /// All rows ordered by a column.
  public static func order<V>(by column: KeyPath<TableColumns, TableColumn<Self, V>>) -> Select<Self, Self> {
    all.order(by: column)
  }

  /// All rows ordered by terms.
  @_disfavoredOverload
  public static func order<each Term: QueryExpression>(by terms: (TableColumns) -> (repeat each Term)) -> Select<Self, Self> {
    all.order(by: terms)
  }

  /// All rows ordered by the terms a closure gives, written with `if` or `switch`.
  public static func order(@QueryFragmentBuilder<Void> by terms: (TableColumns) -> [QueryFragment]) -> Select<Self, Self> {
    all.order(by: terms)
  }

  /// All rows grouped by a column: `Item.group(by: \.storeID)`.
  public static func group<V>(by column: KeyPath<TableColumns, TableColumn<Self, V>>) -> Select<Self, Self> {
    all.group(by: column)
  }

  /// All rows grouped by terms.
  public static func group<each Term: QueryExpression>(by terms: (TableColumns) -> (repeat each Term)) -> Select<Self, Self> {
    all.group(by: terms)
  }

  /// At most `count` rows, after skipping `offset` rows.
  public static func limit(_ count: Int?, offset: Int? = nil) -> Select<Self, Self> { all.limit(count, offset: offset) }

  /// At most as many rows as an expression gives, after skipping what `offset` gives.
  public static func limit(
    _ count: (TableColumns) -> some QueryExpression<Int>, offset: ((TableColumns) -> any QueryExpression<Int>)? = nil
  ) -> Select<Self, Self> {
    all.limit(count, offset: offset)
  }

  /// The number of rows.
  public static func count() -> Select<Self, Int> { all.count() }

  /// The number of rows that match `filter`: `count(*) FILTER (WHERE …)`,
  /// `Reminder.count { !$0.isCompleted }`.
  public static func count(filter: (TableColumns) -> some QueryExpression<Bool>) -> Select<Self, Int> {
    let condition = filter(columns).queryFragment
    return all.selecting([QueryFragment("count(*) FILTER (WHERE ") + condition + QueryFragment(")")]) { decoder in
      try Int(decoder: &decoder)
    }
  }

  /// Distinct rows.
  public static func distinct() -> Select<Self, Self> { all.distinct() }

  /// Every row, fetched.
  public static func fetchAll(_ db: Database) throws -> [Self] { try all.fetchAll(db) }

  /// The first row, if any: `RemindersList.fetchOne(db)`.
  public static func fetchOne(_ db: Database) throws -> Self? { try all.fetchOne(db) }

  /// The number of rows, fetched.
  public static func fetchCount(_ db: Database) throws -> Int { try all.fetchCount(db) }

  /// Every row, read one at a time: `while let row = try cursor.next() { … }`.
  public static func fetchCursor(_ db: Database) throws -> QueryCursor<Self> { try all.fetchCursor(db) }

  /// Updates every row.
  public static func update(set updates: (inout Updates<Self>) -> Void) -> Update<Self, Void> { all.update(set: updates) }

  /// Deletes every row.
  public static func delete() -> Delete<Self, Void> { all.delete() }

  // MARK: Insert

  /// Inserts whole rows (every column, the primary key included).
  public static func insert(or resolution: ConflictResolution? = nil, @InsertValuesBuilder<Self> _ rows: () -> [Self]) -> Insert<Self, Void> {
    Insert(resolution: resolution, valueLists: valueLists(rows()))
  }

  /// Inserts one row of defaults: `INSERT INTO … DEFAULT VALUES`.
  public static func insert(or resolution: ConflictResolution? = nil) -> Insert<Self, Void> {
    Insert(resolution: resolution, valueLists: [[]])
  }

  /// Each row's column values, in column order.
  static func valueLists(_ rows: [Self]) -> [[(column: String, value: QueryBinding)]] {
    var capacity = 0
    return rows.map { row in
      var values: [(column: String, value: QueryBinding)] = []
      values.reserveCapacity(capacity)
      appendColumns(named: tableName, of: row, to: &values)
      capacity = values.count
      return values
    }
  }
}

extension PrimaryKeyedTable {
  /// The row with primary key `key`.
  public static func find(_ key: TableColumns.PrimaryKey) -> Select<Self, Self> {
    all.find(key)
  }

  /// The rows with these primary keys.
  public static func find(_ keys: some Sequence<TableColumns.PrimaryKey>) -> Select<Self, Self> {
    all.find(keys)
  }

  /// The rows whose primary key is the value of `key`, an expression (a
  /// trigger's `new.id`), or any of the rows a subquery selects.
  public static func find(_ key: some QueryExpression<TableColumns.PrimaryKey>) -> Select<Self, Self> {
    all.find(key)
  }

  /// The row with primary key `key`; throws ``RowNotFound`` when there is none.
  public static func find(_ db: Database, key: TableColumns.PrimaryKey) throws -> Self {
    try all.find(db, key: key)
  }

  /// The rows with these primary keys (those there are), fetched.
  public static func fetchAll(_ db: Database, keys: some Sequence<TableColumns.PrimaryKey>) throws -> [Self] {
    try all.fetchAll(db, keys: keys)
  }

  /// Inserts drafts: the primary key is left to its default when a draft has none.
  /// Rows may be mixed in (each becomes a draft with its key set).
  /// Disfavored: an insert of rows alone is the rows' insert, which binds
  /// them without making a draft of each (a 100,000-row insert took 1.17x
  /// the time of hand-written GRDB through drafts, 1.01x as rows).
  @_disfavoredOverload
  public static func insert(or resolution: ConflictResolution? = nil, @InsertValuesBuilder<Draft> _ drafts: () -> [Draft]) -> Insert<Self, Void> {
    Insert(resolution: resolution, valueLists: drafts().map(\.insertValues))
  }

  /// Inserts drafts, or, when the primary key exists, updates every column
  /// the draft sets.
  public static func upsert(@InsertValuesBuilder<Draft> _ drafts: () -> [Draft]) -> Insert<Self, Void> {
    let lists = drafts().map(\.insertValues)
    let key = columns.primaryKey.names
    var updates = Updates<Self>()
    for column in lists.first?.map(\.column) ?? [] where !key.contains(column) {
      updates.assign(column, QueryFragment(sql: "excluded.\(quotedIdentifier(column))"))
    }
    return Insert(resolution: nil, valueLists: lists)
      .onConflict(target: key.map { QueryFragment(sql: quotedIdentifier($0)) }, updates: updates)
  }
}

extension Select where From: PrimaryKeyedTable {
  /// Narrows to the row with primary key `key` (`id IN (?)`, as upstream writes it).
  public func find(_ key: From.TableColumns.PrimaryKey) -> Self {
    self.where { $0.hasPrimaryKey(in: [key]) }
  }

  /// Narrows to the rows with these primary keys.
  public func find(_ keys: some Sequence<From.TableColumns.PrimaryKey>) -> Self {
    self.where { $0.hasPrimaryKey(in: keys) }
  }

  /// Narrows to the rows whose primary key is the value of `key`, an
  /// expression (a trigger's `new.id`), or any of the rows a subquery
  /// selects (`IN (SELECT …)`, not only its first row).
  public func find(_ key: some QueryExpression<From.TableColumns.PrimaryKey>) -> Self {
    let values = (key as? any QueryStatement)?.query ?? key.queryFragment
    let primaryKey = From.columns.primaryKey
    let key = primaryKey.names.count == 1 ? primaryKey.queryFragment : parenthesized(primaryKey.queryFragment)
    return self.where { _ in SQLQueryExpression<Bool>(parenthesized(key + QueryFragment(" IN (") + values + QueryFragment(")"))) }
  }

  /// The selected row with primary key `key`; throws ``RowNotFound`` when there is none.
  public func find(_ db: Database, key: From.TableColumns.PrimaryKey) throws -> Output {
    guard let row = try find(key).fetchOne(db) else {
      let values = From.TableColumns.primaryKeyValues(key.queryOutput, named: From.columns.primaryKey.name).map(\.value.sqlLiteral)
      throw RowNotFound(table: From.tableName, key: values.count == 1 ? values[0] : "(\(values.joined(separator: ", ")))")
    }
    return row
  }

  /// The selected rows with these primary keys (those there are), fetched.
  public func fetchAll(_ db: Database, keys: some Sequence<From.TableColumns.PrimaryKey>) throws -> [Output] {
    try find(keys).fetchAll(db)
  }
}

extension Table {
  /// Inserts rows written as expressions, a value for every column:
  /// `Item.insert { Item.Columns(title: #sql("'Foo'"), quantity: 42) }`.
  public static func insert<Row: QueryExpression>(
    or resolution: ConflictResolution? = nil, @InsertValuesBuilder<Row> _ rows: () -> [Row]
  ) -> Insert<Self, Void> where Row.QueryValue == Self {
    Insert(resolution: resolution, columns: TableColumns.allColumns.flatMap(\.names), expressionRows: rows().map(\.queryFragment))
  }
}

extension Table {
  /// Inserts whole rows into every column, as upstream spells it:
  /// `Tag.insert { $0 } values: { tag }`.
  public static func insert(
    or resolution: ConflictResolution? = nil, _ columns: (TableColumns) -> TableColumns,
    @InsertValuesBuilder<Self> values rows: () -> [Self]
  ) -> Insert<Self, Void> {
    insert(or: resolution, rows)
  }
}

extension PrimaryKeyedTable {
  /// Inserts drafts into every column, the primary key left to its default
  /// when a draft has none: `Reminder.insert { $0 } values: { draft }`.
  public static func insert(
    or resolution: ConflictResolution? = nil, _ columns: (TableColumns) -> TableColumns,
    @InsertValuesBuilder<Draft> values drafts: () -> [Draft]
  ) -> Insert<Self, Void> {
    insert(or: resolution, drafts)
  }
}
