/// Makes a struct a table: its stored properties become columns, the first
/// `let` (or the property marked `@Column(primaryKey: true)`) the primary
/// key. Generates `TableColumns`, `columns`, `Draft` (without the primary
/// key, so the schema default applies) and the row decoder. A struct with
/// neither (only `var`s: a join table, a log) is a table without a primary
/// key: it selects, inserts whole rows, updates and deletes by conditions,
/// but has no `Draft`, `find` or upsert.
///
/// The table name defaults to the type name in lower camel case, pluralized:
/// `Item` → `items`, `RemindersList` → `remindersLists`, `Category` →
/// `categories`, `Box` → `boxes`. Pass a name to choose another.
///
/// On an enum whose cases each hold one value, the table's rows are the
/// cases (upstream's `@CasePathable @Table enum`): each case's value has
/// columns of its own, NULL for the other cases, as in an enum `@Selection`.
///
/// `schema:` names the database the table lives in (`"main"`, `"temp"`, an
/// attached database's name): statements then name the table and qualify
/// its columns by it (`"main"."reminders"."id"`). Chronicle records only
/// the writes to tables of `main`.
@attached(
  member, names: named(TableColumns), named(columns), named(tableName), named(schemaName), named(Draft), named(Columns), named(Selection),
  named(init(decoder:)))
@attached(
  extension, conformances: Table, PrimaryKeyedTable, Selection, EnumSelection,
  names: named(init(decoder:)), named(appendColumns(named:of:to:)), named(Columns), named(Selection), named(columnName(of:)),
  named(columnNames(forProperty:)), arbitrary)
public macro Table(_ name: String? = nil, schema: String? = nil) = #externalMacro(module: "ChronicleQueryMacros", type: "TableMacro")

/// Customizes a column: its name in the database, a representation type
/// for storage (`as: Date.UnixTimeRepresentation.self`), a column the
/// database computes (`generated: .virtual`: selected and decoded, never
/// inserted; the `Draft` leaves it out), or the primary key.
@attached(peer)
public macro Column(
  _ name: String? = nil, as representation: Any.Type? = nil, generated: GeneratedColumnStorage? = nil, primaryKey: Bool = false
) = #externalMacro(module: "ChronicleQueryMacros", type: "ColumnMacro")

/// The spelling StructuredQueries used for ``Column(_:as:generated:primaryKey:)``
/// before it was renamed (still seen on column groups: `@Columns var
/// timestamps: Timestamps`). The same options mean the same here.
@available(*, deprecated, renamed: "Column")
@attached(peer)
public macro Columns(as representation: Any.Type? = nil, primaryKey: Bool = false) = #externalMacro(module: "ChronicleQueryMacros", type: "ColumnMacro")

/// How SQLite keeps a generated column (`GENERATED ALWAYS AS (…) VIRTUAL`
/// or `STORED`), for `@Column(generated:)`. Either way the column is read
/// and never written.
public enum GeneratedColumnStorage: Sendable {
  case virtual, stored
}

/// A stored property that is not a column (it must have a default value).
@attached(peer)
public macro Ephemeral() = #externalMacro(module: "ChronicleQueryMacros", type: "EphemeralMacro")

/// SQL written by hand, with values bound through interpolation:
/// `#sql("coalesce(date(\(dueDate)) < date(\(now)), 0)")` is a
/// `some QueryExpression<Bool>` where the context asks for one, and
/// `try #sql("DROP INDEX \(quote: name)").execute(db)` runs as a statement.
///
/// `\(value)` binds a value (`?`), `\(expression)` inlines a column or
/// expression, `\(Item.self)` names a table, `\(Item.columns)` lists its
/// columns, `\(raw: text)` inserts text as is. The compiler reports
/// unbalanced quotes and parentheses, `?` placeholders (nothing would bind
/// them) and interpolations inside quotes.
@freestanding(expression)
public macro sql<QueryValue>(
  _ queryFragment: QueryFragment, as queryValueType: QueryValue.Type = QueryValue.self
) -> SQLQueryExpression<QueryValue> = #externalMacro(module: "ChronicleQueryMacros", type: "SQLMacro")

/// SQL written by hand, run as a statement that returns no rows.
@freestanding(expression)
public macro sql(_ queryFragment: QueryFragment) -> SQLQueryExpression<Void> = #externalMacro(module: "ChronicleQueryMacros", type: "SQLMacro")

/// A Swift value bound to the statement, typed as its representation:
/// `#bind(["home", "car"])` where a `[String].JSONRepresentation` column is
/// assigned, `#bind(cutoff, as: Date.UnixTimeRepresentation.self)` in a
/// comparison with a column stored that way.
@freestanding(expression)
public macro bind<QueryValue: QueryBindable>(
  _ queryValue: QueryValue.QueryOutput, as queryValueType: QueryValue.Type = QueryValue.self
) -> SQLQueryExpression<QueryValue> = #externalMacro(module: "ChronicleQueryMacros", type: "BindMacro")

/// Makes a struct a selection: the shape of query results, or a group of
/// columns stored in a table. Generates `Columns`, whose initializer takes
/// one expression per stored property (`Stats.Columns(count: $0.id.count())`),
/// and the row decoder.
///
/// Stored in a `@Table`, a selection's columns are flattened into the
/// table under their own names (`createdAt`, not `timestamps_createdAt`);
/// query them as `$0.timestamps.createdAt`.
///
/// On an enum whose cases each hold one value, a row is one of the cases
/// (single-table inheritance): each case's value has columns of its own,
/// named after the case (or a `@Selection` struct's columns), NULL for the
/// other cases, and a row's case is the first whose columns are not NULL.
/// Each case gets an optional accessor (`kind.note` is the value of a
/// `.note`, nil for another case), through which queries reach its column:
/// `Attachment.where { $0.kind.note.isNot(nil) }`. Upstream needs
/// swift-case-paths' `@CasePathable` beside it; here it is not needed.
@attached(member, names: named(Columns), named(Selection), arbitrary)
@attached(
  extension, conformances: Selection, EnumSelection,
  names: named(Columns), named(Selection), named(init(decoder:)), named(columnName(of:)), named(columnNames(forProperty:)), named(appendColumns(named:of:to:)),
  arbitrary)
public macro Selection() = #externalMacro(module: "ChronicleQueryMacros", type: "SelectionMacro")

/// Makes a Swift function callable from SQL. Generates `$name`, which
/// registers it (`db.add(function: $name)`, in `prepareDatabase`) and calls
/// it in queries with the same labels, taking expressions:
///
/// ```swift
/// @DatabaseFunction
/// func initials(of name: String) -> String { … }
/// Person.select { $initials(of: $0.name) }
///
/// @DatabaseFunction   // an aggregate: its parameter is a sequence
/// func median(values: some Sequence<Double?>) -> Double? { … }
/// Item.group(by: \.categoryID).select { ($0.categoryID, $median(values: $0.price)) }
/// ```
///
/// Parameters and the result are column types or `@Table` rows (a row
/// passes every column). A function whose only parameter is
/// `some Sequence<T>` (or `[T]`) is an aggregate over a group's rows; a
/// tuple element takes an argument per member, labeled as the member, and
/// every aggregate takes SQL's `FILTER (WHERE …)` as `filter:`:
///
/// ```swift
/// @DatabaseFunction
/// func joined(_ parts: some Sequence<(String, separator: String)>) -> String? { … }
/// Item.select { $joined($0.name, separator: ", ", filter: $0.isActive) }
/// // SELECT "joined"("items"."name", ', ') FILTER (WHERE "items"."isActive") FROM "items"
/// ```
///
/// SQLite gives an aggregate its rows one at a time; the function is called
/// once per group with the group's values gathered in an array.
///
/// On a global function or a static method, `$name` is a constant. On an
/// instance method it is a property that calls the method on the instance
/// it was read from (`logger.$log`): a struct's value, or a class's
/// instance held weakly (a call after it is released fails the statement).
/// The instance must be `Sendable`: every connection may call it. An
/// actor's method is refused: SQLite calls functions synchronously.
///
/// - Parameters:
///   - name: the name in SQL; the Swift function's name by default.
///   - isDeterministic: whether the same arguments always give the same
///     result, so SQLite may use it in indexes and evaluate it once.
@attached(peer, names: prefixed(`$`))
public macro DatabaseFunction(_ name: String? = nil, isDeterministic: Bool = false) = #externalMacro(module: "ChronicleQueryMacros", type: "DatabaseFunctionMacro")

/// Makes a Swift function a collating sequence: how SQL compares and sorts
/// text. Generates `$name`, a GRDB `DatabaseCollation` to register on each
/// connection (`db.add(collation: $name)`, in `prepareDatabase`) and to
/// name in queries:
///
/// ```swift
/// @DatabaseCollation
/// func byLength(_ lhs: String, _ rhs: String) -> CollationOrder {
///   let order = CollationOrder(lhs.count, rhs.count)
///   return order == .same ? CollationOrder(lhs, rhs) : order
/// }
/// Tag.order { $0.title.collate($byLength) }
/// // ORDER BY "tags"."title" COLLATE "byLength"
///
/// extension Collation where Self == NamedCollation {
///   static var byLength: Self { NamedCollation($byLength) }   // .collate(.byLength)
/// }
/// ```
///
/// The function takes the two texts compared and returns their order; it
/// cannot throw (SQLite cannot fail a comparison). On a global function or a
/// static method, `$name` is a constant; on an instance method, a property
/// whose collation calls the method on the instance it was read from (and
/// keeps that instance alive while a connection has it registered).
///
/// - Parameter name: the name in SQL; the Swift function's name by default.
@attached(peer, names: prefixed(`$`))
public macro DatabaseCollation(_ name: String? = nil) = #externalMacro(module: "ChronicleQueryMacros", type: "DatabaseCollationMacro")
