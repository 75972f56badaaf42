import SwiftSyntax

/// `@Table` on an enum: a table whose rows are the enum's cases, each
/// case's value in columns of its own, NULL for the other cases (upstream's
/// `@CasePathable @Table enum`). The enum is an enum selection (see
/// ``EnumSelection``) whose columns are the table's.
enum EnumTable {
  /// `tableName`, `TableColumns` (a column, or a group's columns, per case) and `columns`.
  static func members(_ cases: [EnumSelection.Case], typeName: String, tableName: String) -> [DeclSyntax] {
    let columnType = { (item: EnumSelection.Case) in "ChronicleQuery.TableColumn<\(typeName), \(item.storageType)?>" }
    let properties = cases.map { "  public let \(EnumSelection.identifier($0.name)): \(columnType($0))" }.joined(separator: "\n")
    let assignments = cases.map {
      "    self.\(EnumSelection.identifier($0.name)) = ChronicleQuery.TableColumn(\(stringLiteral($0.column)), qualifier: qualifier, keyPath: \\\(typeName).\(EnumSelection.identifier($0.name)))"
    }.joined(separator: "\n")
    let fragments = cases.map { "\(EnumSelection.identifier($0.name)).queryFragment" }.joined(separator: ", ")
    let all = cases.map { "columns.\(EnumSelection.identifier($0.name))" }.joined(separator: ", ")
    let tableColumns: DeclSyntax = """
      public struct TableColumns: ChronicleQuery.TableDefinition {
        public typealias QueryValue = \(raw: typeName)
      \(raw: properties)
        public let _qualifier: String
        public init(qualifier: String) {
          self._qualifier = qualifier
      \(raw: assignments)
        }
        public var queryFragment: ChronicleQuery.QueryFragment {
          [\(raw: fragments)].joined(separator: ", ")
        }
        public static var allColumns: [any ChronicleQuery.TableColumnExpression<\(raw: typeName)>] {
          let columns = TableColumns(qualifier: \(raw: typeName).tableName)
          return [\(raw: all)]
        }
      }
      """
    return [
      "public static let tableName = \(raw: stringLiteral(tableName))",
      tableColumns,
      "public static let columns = TableColumns(qualifier: tableName)",
    ]
  }
}
