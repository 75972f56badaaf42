// Drafts read as a table, as upstream allows: `Reminder.Draft.where { … }`
// selects the table's rows and gives each as a draft (its primary key set),
// to edit and upsert back; scopes can be written on drafts too
// (`extension Reminder.Draft { static let open = Self.where { !$0.isCompleted } }`),
// and the table's own scopes read through the draft type
// (`Reminder.Draft.incomplete`, `Reminder.Draft.where { … }.incomplete`).

extension TableRowDraft where Base: PrimaryKeyedTable {
  /// Every row of the table, as drafts.
  public static var all: Select<Base, Self> { Base.all.mappingRows { Self($0) } }

  /// The rows that match `predicate`, as drafts.
  public static func `where`(@QueryFragmentBuilder<Bool> _ predicate: (Base.TableColumns) -> [QueryFragment]) -> Select<Base, Self> {
    all.where(predicate)
  }

  /// The rows whose Bool `column` is true, as drafts.
  public static func `where`(_ column: KeyPath<Base.TableColumns, TableColumn<Base, Bool>>) -> Select<Base, Self> {
    all.where(column)
  }

  /// A static member of the table read through its drafts: a scope
  /// (`Reminder.Draft.incomplete` is `Reminder.incomplete`).
  public static subscript<Member>(dynamicMember member: KeyPath<Base.Type, Member>) -> Member {
    Base.self[keyPath: member]
  }

  /// The row with primary key `key`, as a draft.
  public static func find(_ key: Base.TableColumns.PrimaryKey) -> Select<Base, Self> {
    Base.find(key).mappingRows { Self($0) }
  }
}

extension Select where From: PrimaryKeyedTable, Output == From.Draft {
  /// Chains one of the table's scopes onto a select of drafts:
  /// `Reminder.Draft.where { … }.incomplete` has the conditions of both.
  public subscript(dynamicMember scope: KeyPath<From.Type, Where<From>>) -> Self {
    var narrowed = self
    narrowed.clauses.conditions += From.self[keyPath: scope].clauses.conditions
    return narrowed
  }
}

extension Select where Output == From {
  /// The same select, each row given through `transform`.
  func mappingRows<T>(_ transform: @escaping @Sendable (From) -> T) -> Select<From, T> {
    let decode = self.decode
    return Select<From, T>(clauses: clauses, fromColumns: fromColumns) { decoder in transform(try decode(&decoder)) }
  }
}
