import ChronicleNaming

/// A name to read a table under, to read it twice in one query (a
/// self-join) or to name it in a statement: `enum Manager: AliasName {}`.
///
/// ```swift
/// enum Manager: AliasName {}
/// Employee.leftJoin(Employee.as(Manager.self).all) { $0.managerID.eq($1.id) }
/// // SELECT … FROM "employees" LEFT JOIN "employees" AS "managers" ON …
/// ```
public protocol AliasName {
  /// The name in SQL: by default the type's name as `@Table` would name a
  /// table (`Manager` → `managers`, `R` → `rs`).
  static var aliasName: String { get }
}

extension AliasName {
  public static var aliasName: String { defaultTableName(String(describing: Self.self)) }
}

extension Table {
  /// This table read under another name, for selects, joins, inserts,
  /// updates and deletes: `Reminder.as(R.self).where { $0.id.eq(1) }.update { … }`
  /// renders `UPDATE "reminders" AS "rs" SET … WHERE ("rs"."id" = 1)`.
  public static func `as`<Name: AliasName>(_ name: Name.Type) -> TableAlias<Self, Name>.Type {
    TableAlias<Self, Name>.self
  }
}

/// A table read under an alias: the type ``Table/as(_:)`` gives. Its rows
/// are the table's rows (`row.base`, or the base's properties by name:
/// `row.title`).
@dynamicMemberLookup
public struct TableAlias<Base: Table, Name: AliasName>: Table {
  /// The row as the table's own type.
  public var base: Base

  public init(base: Base) {
    self.base = base
  }

  public subscript<Value>(dynamicMember keyPath: KeyPath<Base, Value>) -> Value {
    base[keyPath: keyPath]
  }

  public static var tableName: String { Base.tableName }
  public static var tableAlias: String? { Name.aliasName }
  public static var schemaName: String? { Base.schemaName }
  public static var tableFragment: QueryFragment { Base.tableFragment }
  public static var columns: TableColumns { TableColumns(qualifier: Name.aliasName) }

  public init(decoder: inout some QueryDecoder) throws {
    base = try Base(decoder: &decoder)
  }

  public static func appendColumns(named name: String, of output: Self, to values: inout [(column: String, value: QueryBinding)]) {
    Base.appendColumns(named: name, of: output.base, to: &values)
  }

  /// The table's columns, qualified by the alias.
  @dynamicMemberLookup
  public struct TableColumns: TableDefinition {
    public typealias QueryValue = TableAlias
    let base: Base.TableColumns

    public init(qualifier: String) {
      base = Base.TableColumns(qualifier: qualifier)
    }

    public var _qualifier: String { base._qualifier }

    public static var allColumns: [any TableColumnExpression<TableAlias>] {
      Base.TableColumns.allColumns.map { AliasedColumn(base: $0) }
    }

    public var queryFragment: QueryFragment { base.queryFragment }

    public subscript<Value>(dynamicMember keyPath: KeyPath<Base.TableColumns, TableColumn<Base, Value>>) -> TableColumn<TableAlias, Value> {
      let column = base[keyPath: keyPath]
      return TableColumn(column.name, qualifier: column.qualifier, anyKeyPath: (\TableAlias.base).appending(path: column.keyPath))
    }
  }
}

extension TableAlias: Equatable where Base: Equatable {}
extension TableAlias: Hashable where Base: Hashable {}

/// Coded as the table's row, so that an aliased table's rows travel as
/// the table's do (`$1.jsonGroupArray()` on a self-join reads as
/// `[TableAlias]`).
extension TableAlias: Codable where Base: Codable {
  public init(from decoder: any Decoder) throws {
    base = try Base(from: decoder)
  }

  public func encode(to encoder: any Encoder) throws {
    try base.encode(to: encoder)
  }
}

/// A column of the aliased table, without its Swift type.
struct AliasedColumn<Base: Table, Name: AliasName>: TableColumnExpression {
  let base: any TableColumnExpression<Base>

  var name: String { base.name }
  var names: [String] { base.names }

  func appendValues(of row: TableAlias<Base, Name>, to values: inout [(column: String, value: QueryBinding)]) {
    base.appendValues(of: row.base, to: &values)
  }

  func appendSelectedValues(of row: TableAlias<Base, Name>, to values: inout [(column: String, value: QueryBinding)]) {
    base.appendSelectedValues(of: row.base, to: &values)
  }

  func jsonObjectValue(prefix: String) -> String { base.jsonObjectValue(prefix: prefix) }

  func encode(of row: TableAlias<Base, Name>, to encoder: inout some QueryEncoder) throws(QueryEncodingError) {
    try base.encode(of: row.base, to: &encoder)
  }
}

extension TableAlias: PrimaryKeyedTable where Base: PrimaryKeyedTable {
  public typealias Draft = AliasedDraft<Base, Name>
}

extension TableAlias.TableColumns: PrimaryKeyedTableDefinition where Base: PrimaryKeyedTable {
  public typealias PrimaryKey = Base.TableColumns.PrimaryKey

  public var primaryKey: TableColumn<TableAlias, PrimaryKey> { self[dynamicMember: \.primaryKey] }
}

/// A draft of a row inserted through an alias: the table's own draft.
public struct AliasedDraft<Table: PrimaryKeyedTable, Name: AliasName>: TableDraft {
  public typealias Base = TableAlias<Table, Name>
  public var draft: Table.Draft

  public init(_ draft: Table.Draft) {
    self.draft = draft
  }

  public var insertValues: [(column: String, value: QueryBinding)] { draft.insertValues }
}
