/// Makes a struct a table: its stored properties become columns, the first
/// `let` (or the property marked `@Column(primaryKey: true)`) the primary
/// key. Generates `TableColumns`, `columns`, `Draft` (without the primary
/// key, so the schema default applies) and the row decoder.
///
/// The table name defaults to the type name in lower camel case, pluralized:
/// `Item` → `items`, `RemindersList` → `remindersLists`, `Category` →
/// `categories`, `Box` → `boxes`. Pass a name to choose another.
@attached(member, names: named(TableColumns), named(columns), named(tableName), named(Draft), named(init(decoder:)))
@attached(extension, conformances: Table, PrimaryKeyedTable, names: named(init(decoder:)))
public macro Table(_ name: String? = nil) = #externalMacro(module: "ChronicleQueryMacros", type: "TableMacro")

/// Customizes a column: its name in the database, a representation type
/// for storage (`as: Color.HexRepresentation.self`), or the primary key.
@attached(peer)
public macro Column(_ name: String? = nil, as representation: Any.Type? = nil, primaryKey: Bool = false) = #externalMacro(module: "ChronicleQueryMacros", type: "ColumnMacro")

/// A stored property that is not a column (it must have a default value).
@attached(peer)
public macro Ephemeral() = #externalMacro(module: "ChronicleQueryMacros", type: "EphemeralMacro")
