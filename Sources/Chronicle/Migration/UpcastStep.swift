/// One step of a schema migration as the log records it: what replay,
/// rebuild and upcasting need in order to read older events in the new shape.
///
/// Steps are recorded by ``ChronicleDatabase/migrate(_:upcasters:_:)`` in the
/// same event as the schema change they describe.
public enum UpcastStep: Hashable, Sendable {
  /// A table took a new name.
  case renameTable(from: String, to: String)
  /// A column took a new name.
  case renameColumn(table: String, from: String, to: String)
  /// A column was added; rows written before it hold `default`.
  case addColumn(table: String, column: String, default: SQLiteValue)
  /// A column was dropped; older writes to it are ignored.
  case dropColumn(table: String, column: String)
  /// The column's values were converted by the app's conversion registered
  /// under `converter` (``Upcasters/registerConversion(_:_:)``); older values
  /// pass through it too.
  case convertColumn(table: String, column: String, converter: String)
  /// Older row operations on `tables` pass through the app's upcaster
  /// registered under `upcaster` (``Upcasters/registerUpcaster(_:_:)``):
  /// splitting or merging tables, anything the other steps cannot say.
  case custom(upcaster: String, tables: [String])
  /// The table's integer primary key `column` became a UUID (as text),
  /// derived from the row's origin peer, the table and the old key
  /// (``KeyMigration/uuid(origin:table:key:)``); the `references` (columns of
  /// other tables with a foreign key to it) were rewritten the same way.
  case migrateKeys(table: String, column: String, references: [ColumnReference])
}

/// A column of a table.
public struct ColumnReference: Hashable, Sendable {
  public var table: String
  public var column: String

  public init(table: String, column: String) {
    self.table = table
    self.column = column
  }
}

/// A named set of upcast steps: one migration, recorded in the log.
public struct SchemaMigration: Hashable, Sendable {
  /// The migration's name, unique in the app (applied once per database).
  public var name: String
  public var steps: [UpcastStep]

  public init(name: String, steps: [UpcastStep]) {
    self.name = name
    self.steps = steps
  }
}
