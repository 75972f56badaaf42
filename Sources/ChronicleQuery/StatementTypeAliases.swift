// Names for statements over one table, as upstream spells them in
// signatures: `static func rename(_ id: Int) -> UpdateOf<Reminder>`.

/// A select of whole rows of `T`: `Reminder.where { … }`, `Reminder.find(id)`.
public typealias SelectOf<T: Table> = Select<T, T>

/// A statement that selects rows of `T`: `static var all: some SelectStatementOf<Self>`.
public typealias SelectStatementOf<T: Table> = SelectStatement<T>

/// An insert into `T` that returns nothing.
public typealias InsertOf<T: Table> = Insert<T, Void>

/// An update of `T` that returns nothing.
public typealias UpdateOf<T: Table> = Update<T, Void>

/// A delete from `T` that returns nothing.
public typealias DeleteOf<T: Table> = Delete<T, Void>
