import SwiftSyntax

extension TableModel {
  private func columnType(_ column: ColumnModel) -> String {
    "ChronicleQuery.TableColumn<\(typeName), \(column.valueType)>"
  }


  func memberDeclarations() -> [DeclSyntax] {
    let tableColumns = tableColumnsDeclaration()

    // Draft: every column but generated ones; the primary key optional
    // and left out when nil.
    let columns = self.columns.filter { !$0.isGenerated }
    let draftProperties = columns.map { column -> String in
      column.isPrimaryKey && !column.isOptional
        ? "  public var \(column.property): \(column.type)?"
        : "  public var \(column.property): \(column.type)"
    }.joined(separator: "\n")
    let parameters = columns.map { column -> String in
      if column.isPrimaryKey { return "\(column.property): \(column.isOptional ? column.type : column.type + "?") = nil" }
      return "\(column.property): \(column.type)" + (column.defaultValue.map { " = \($0)" } ?? "")
    }.joined(separator: ", ")
    let draftAssignments = columns.map { "    self.\($0.property) = \($0.property)" }.joined(separator: "\n")
    let rowAssignments = columns.map { "    self.\($0.property) = row.\($0.property)" }.joined(separator: "\n")
    let values = columns.map { column -> String in
      if column.isPrimaryKey {
        let unwrappedType = column.valueType.hasSuffix("?") ? String(column.valueType.dropLast()) : column.valueType
        // Through appendColumns: a key of several columns (a @Selection type) appends each.
        return "    if let \(column.property) { \(unwrappedType).appendColumns(named: \(stringLiteral(column.column)), of: \(column.property), to: &values) }"
      }
      return "    \(column.valueType).appendColumns(named: \(stringLiteral(column.column)), of: \(column.property), to: &values)"
    }.joined(separator: "\n")
    let draft: DeclSyntax = """
      public struct Draft: ChronicleQuery.TableRowDraft {
        public typealias Base = \(raw: typeName)
      \(raw: draftProperties)
        public init(\(raw: parameters)) {
      \(raw: draftAssignments)
        }
        public init(_ row: \(raw: typeName)) {
      \(raw: rowAssignments)
        }
        public var insertValues: [(column: String, value: ChronicleQuery.QueryBinding)] {
          var values: [(column: String, value: ChronicleQuery.QueryBinding)] = []
      \(raw: values)
          return values
        }
      }
      """
    return [
      "public static let tableName = \(raw: stringLiteral(tableName))",
    ] + schemaDeclaration() + [
      tableColumns,
      columnsExpression(),
      "public static let columns = TableColumns(qualifier: tableName)",
    ] + (primaryKey == nil ? [] : [draft])
  }

  /// `schemaName`, when `@Table(schema:)` names one.
  func schemaDeclaration() -> [DeclSyntax] {
    schemaName.map { ["public static let schemaName: String? = \(raw: stringLiteral($0))"] } ?? []
  }

  /// `TableColumns`: a typed column per property (a column group's columns
  /// for a group), qualified by the table's name or an alias.
  func tableColumnsDeclaration() -> DeclSyntax {
    let properties = columns.map { "  public let \($0.property): \(columnType($0))" }.joined(separator: "\n")
    let assignments = columns.map {
      "    self.\($0.property) = ChronicleQuery.TableColumn(\(stringLiteral($0.column)), qualifier: qualifier, keyPath: \\\(typeName).\($0.property))"
    }.joined(separator: "\n")
    let all = columns.map { "columns.\($0.property)" }.joined(separator: ", ")
    let tableColumns: DeclSyntax = """
      public struct TableColumns: \(raw: primaryKey == nil ? "ChronicleQuery.TableDefinition" : "ChronicleQuery.PrimaryKeyedTableDefinition") {
        public typealias QueryValue = \(raw: typeName)
      \(raw: primaryKey.map { "  public typealias PrimaryKey = \($0.valueType)\n" } ?? "")\(raw: properties)
        public let _qualifier: String
        public init(qualifier: String) {
          self._qualifier = qualifier
      \(raw: assignments)
        }
      \(raw: primaryKey.map { "  public var primaryKey: \(columnType($0)) { \($0.property) }\n" } ?? "")  public var queryFragment: ChronicleQuery.QueryFragment {
          [\(raw: columns.map { "\($0.property).queryFragment" }.joined(separator: ", "))].joined(separator: ", ")
        }
        public static var allColumns: [any ChronicleQuery.TableColumnExpression<\(raw: typeName)>] {
          let columns = TableColumns(qualifier: \(raw: typeName).tableName)
          return [\(raw: all)]
        }
      }
      """
    return tableColumns
  }

  func decoderInitializer() -> String { ColumnModel.decoderInitializer(columns) }

  /// `Columns`: a whole row written as expressions, one per column, to
  /// select (`select { Item.Columns(title: $0.title.upper(), …) }`) or to
  /// insert (`Item.insert { Item.Columns(title: #sql("'Foo'"), …) }`).
  func columnsExpression() -> DeclSyntax {
    ColumnModel.columnsExpression(columns, typeName: typeName)
  }

  /// `appendColumns(named:of:to:)`: a whole row's values for an insert,
  /// without key paths.
}

extension ColumnModel {
  /// `init(decoder:)`: reads each column in declaration order.
  static func decoderInitializer(_ columns: [ColumnModel]) -> String {
    let lines = columns.map { "  self.\($0.property) = try decoder.decode(\($0.valueType).self).queryOutput" }.joined(separator: "\n")
    return """
      public init(decoder: inout ChronicleQuery.QueryDecoder) throws {
      \(lines)
      }
      """
  }
}

extension ColumnModel {
  /// The `Columns` expression of a table or selection: its columns' values
  /// as expressions, in declaration order.
  static func columnsExpression(_ columns: [ColumnModel], typeName: String) -> DeclSyntax {
    // An optional member may be left out: NULL in each of its columns (as upstream).
    let parameters = columns.map { column in
      "\(column.property): some ChronicleQuery.QueryExpression<\(column.valueType)>"
        + (column.isOptional ? " = ChronicleQuery.SQLQueryExpression<\(column.valueType)>.null" : "")
    }.joined(separator: ", ")
    let fragments = columns.map { "\($0.property).queryFragment" }.joined(separator: ", ")
    return """
      public struct Columns: ChronicleQuery.QueryExpression {
        public typealias QueryValue = \(raw: typeName)
        public let queryFragment: ChronicleQuery.QueryFragment
        public init(\(raw: parameters)) {
          self.queryFragment = [\(raw: fragments)].joined(separator: ", ")
        }
      }
      """
  }

  static func columnAppender(_ columns: [ColumnModel], typeName: String) -> String {
    // Generated columns are read, never written.
    let lines = columns.filter { !$0.isGenerated }.map {
      "  \($0.valueType).appendColumns(named: \(stringLiteral($0.column)), of: output.\($0.property), to: &values)"
    }.joined(separator: "\n")
    return """
      public static func appendColumns(named name: String, of output: \(typeName), to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
      \(lines)
      }
      """
  }
}

/// `text` as a Swift string literal.
func stringLiteral(_ text: String) -> String {
  "\"" + text.flatMap { $0 == "\"" || $0 == "\\" ? ["\\", $0] : [$0] } + "\""
}
