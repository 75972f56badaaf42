import SwiftSyntax

/// `@Table` on an enum: a table whose rows are the enum's cases, each
/// case's value in columns of its own, NULL for the other cases (upstream's
/// `@CasePathable @Table enum`). The enum is an enum selection (see
/// ``EnumSelection``) whose columns are the table's.
enum EnumTable {
  /// `tableName`, `TableColumns` (a column, or a group's columns, per case,
  /// read through the case's accessor) and `columns`.
  static func members(_ cases: [EnumSelection.Case], typeName: String, tableName: String, schemaName: String?, access: String) -> [DeclSyntax] {
    let columns = cases.map { item in
      ColumnModel(
        property: item.name, identifier: EnumSelection.identifier(item.name), column: item.column, type: item.valueType + "?",
        valueType: item.storageType + "?", isPrimaryKey: false, defaultValue: nil)
    }
    var model = TableModel(typeName: typeName, tableName: tableName, schemaName: schemaName, columns: columns, primaryKey: nil)
    model.access = access
    return [
      "\(raw: access)static let tableName = \(raw: stringLiteral(tableName))",
    ] + model.schemaDeclaration() + [
      model.tableColumnsDeclaration(),
      "\(raw: access)static let columns = TableColumns(qualifier: tableName)",
    ]
  }
}
