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
        ? "  \(access)var \(column.identifier): \(column.type)?"
        : "  \(access)var \(column.identifier): \(column.type)"
    }.joined(separator: "\n")
    let parameters = columns.map { column -> String in
      if column.isPrimaryKey { return "\(column.identifier): \(column.isOptional ? column.type : column.type + "?") = nil" }
      return "\(column.identifier): \(column.type)" + (column.defaultValue.map { " = \($0)" } ?? "")
    }.joined(separator: ", ")
    let draftAssignments = columns.map { "    self.\($0.identifier) = \($0.identifier)" }.joined(separator: "\n")
    let rowAssignments = columns.map { "    self.\($0.identifier) = row.\($0.identifier)" }.joined(separator: "\n")
    let values = columns.map { column -> String in
      if column.isPrimaryKey {
        let unwrappedType = column.valueType.hasSuffix("?") ? String(column.valueType.dropLast()) : column.valueType
        // Through appendColumns: a key of several columns (a @Selection type) appends each.
        return "    if let \(column.identifier) { \(unwrappedType).appendColumns(named: \(stringLiteral(column.column)), of: \(column.identifier), to: &values) }"
      }
      return "    \(column.valueType).appendColumns(named: \(stringLiteral(column.column)), of: \(column.identifier), to: &values)"
    }.joined(separator: "\n")
    // A draft's whole row as expressions: its primary key may be left out (NULL).
    let draftColumns = columns.map { column -> ColumnModel in
      guard column.isPrimaryKey else { return column }
      var optional = column
      optional.defaultValue = nil
      if !column.isOptional {
        optional.type += "?"
        optional.valueType += "?"
      }
      return optional
    }
    let draft: DeclSyntax = """
      \(raw: access)struct Draft: ChronicleQuery.TableRowDraft {
        \(raw: access)typealias Base = \(raw: typeName)
        \(ColumnModel.columnsExpression(draftColumns, typeName: "Draft", access: access))
      \(raw: draftProperties)
        \(raw: access)init(\(raw: parameters)) {
      \(raw: draftAssignments)
        }
        \(raw: access)init(_ row: \(raw: typeName)) {
      \(raw: rowAssignments)
        }
        \(raw: access)var insertValues: [(column: String, value: ChronicleQuery.QueryBinding)] {
          var values: [(column: String, value: ChronicleQuery.QueryBinding)] = []
      \(raw: values)
          return values
        }
      }
      """
    return [
      staticDeclaration("tableName", type: "String", stringLiteral(tableName)),
    ] + schemaDeclaration() + [
      tableColumns,
      columnsExpression(),
      selectionAlias(access: access),
      staticDeclaration("columns", type: "TableColumns", "TableColumns(qualifier: tableName)"),
    ] + (primaryKey == nil ? [] : [draft])
  }

  /// `schemaName`, when `@Table(schema:)` names one.
  func schemaDeclaration() -> [DeclSyntax] {
    schemaName.map { [staticDeclaration("schemaName", type: "String?", stringLiteral($0), annotated: true)] } ?? []
  }

  /// A static property: stored, or computed in a generic type (which has
  /// no static storage).
  private func staticDeclaration(_ name: String, type: String, _ value: String, annotated: Bool = false) -> DeclSyntax {
    isGeneric
      ? "\(raw: access)static var \(raw: name): \(raw: type) { \(raw: value) }"
      : "\(raw: access)static let \(raw: name)\(raw: annotated ? ": " + type : "") = \(raw: value)"
  }

  /// `TableColumns`: a typed column per property (a column group's columns
  /// for a group), qualified by the table's name or an alias.
  func tableColumnsDeclaration() -> DeclSyntax {
    let properties = columns.map { "  \(access)let \($0.identifier): \(columnType($0))" }.joined(separator: "\n")
    let assignments = columns.map {
      "    self.\($0.identifier) = ChronicleQuery.TableColumn(\(stringLiteral($0.column)), qualifier: qualifier, keyPath: \\\(typeName).\($0.identifier))"
    }.joined(separator: "\n")
    let all = columns.map { "columns.\($0.identifier)" }.joined(separator: ", ")
    let tableColumns: DeclSyntax = """
      \(raw: access)struct TableColumns: \(raw: primaryKey == nil ? "ChronicleQuery.TableDefinition" : "ChronicleQuery.PrimaryKeyedTableDefinition") {
        \(raw: access)typealias QueryValue = \(raw: typeName)
      \(raw: primaryKey.map { "  \(access)typealias PrimaryKey = \($0.valueType)\n" } ?? "")\(raw: properties)
        \(raw: access)let _qualifier: String
        \(raw: access)init(qualifier: String) {
          self._qualifier = qualifier
      \(raw: assignments)
        }
      \(raw: primaryKey.map { "  \(access)var primaryKey: \(columnType($0)) { \($0.identifier) }\n" } ?? "")  \(raw: access)var queryFragment: ChronicleQuery.QueryFragment {
          [\(raw: columns.map { "\($0.identifier).queryFragment" }.joined(separator: ", "))].joined(separator: ", ")
        }
        \(raw: access)static var allColumns: [any ChronicleQuery.TableColumnExpression<\(raw: typeName)>] {
          let columns = TableColumns(qualifier: \(raw: typeName).tableName)
          return [\(raw: all)]
        }
      }
      """
    return tableColumns
  }

  func decoderInitializer() -> String { ColumnModel.decoderInitializer(columns, access: access, throughTableColumns: true) }

  /// `Columns`: a whole row written as expressions, one per column, to
  /// select (`select { Item.Columns(title: $0.title.upper(), …) }`) or to
  /// insert (`Item.insert { Item.Columns(title: #sql("'Foo'"), …) }`).
  func columnsExpression() -> DeclSyntax {
    ColumnModel.columnsExpression(columns, typeName: typeName, access: access)
  }

  /// `appendColumns(named:of:to:)`: a whole row's values for an insert,
  /// without key paths.
}

extension ColumnModel {
  /// `init(decoder:)`: reads each column in declaration order.
  /// - Parameter throughTableColumns: name each column's type through the
  ///   table's `TableColumns` (`decoder.decodeColumn(Self.columns.title)`), for
  ///   `@Table`'s extension, where a type nested beside the table does not
  ///   resolve by name; a `@Selection` names the types.
  static func decoderInitializer(_ columns: [ColumnModel], access: String, throughTableColumns: Bool = false) -> String {
    let lines = columns.map {
      throughTableColumns
        ? "  self.\($0.identifier) = try decoder.decodeColumn(Self.columns.\($0.identifier))"
        : "  self.\($0.identifier) = try decoder.decodeColumns(\($0.valueType).self)"
    }.joined(separator: "\n")
    return """
      \(access)init(decoder: inout some ChronicleQuery.QueryDecoder) throws {
      \(lines)
      }
      """
  }
}

/// `Selection`, upstream's newer name for a table's or selection's
/// `Columns` (`Item.Selection(title: …)`, `Post.Selection.note("…")`).
func selectionAlias(access: String) -> DeclSyntax {
  "\(raw: access)typealias Selection = Columns"
}

extension ColumnModel {
  /// The `Columns` expression of a table or selection: its columns' values
  /// as expressions, in declaration order.
  static func columnsExpression(_ columns: [ColumnModel], typeName: String, access: String) -> DeclSyntax {
    // A member whose property has a default may be left out: that value
    // (as upstream); else an optional one: NULL in each of its columns.
    let parameters = columns.map { column in
      let defaultArgument =
        if let value = column.defaultValue, value != "nil" {
          " = ChronicleQuery.SQLQueryExpression<\(column.valueType)>(value: \(value))"
        } else if column.isOptional {
          " = ChronicleQuery._NullColumns<\(column.valueType)>()"
        } else {
          ""
        }
      return "\(column.identifier): some ChronicleQuery.QueryExpression<\(column.valueType)>" + defaultArgument
    }.joined(separator: ", ")
    let fragments = columns.map { "\($0.identifier).queryFragment" }.joined(separator: ", ")
    // Lists of lists, flattened: a chain of `+` would cost the type
    // checker time in every model with many columns.
    let columnFragments = columns.map { "ChronicleQuery._columnFragments(of: \($0.identifier))" }.joined(separator: ", ")
    let names = columns.map { "\($0.valueType).columnNames(forProperty: \(stringLiteral($0.column)))" }.joined(separator: ", ")
    return """
      \(raw: access)struct Columns: ChronicleQuery.QueryExpression, ChronicleQuery._NamedColumnList {
        \(raw: access)typealias QueryValue = \(raw: typeName)
        \(raw: access)let queryFragment: ChronicleQuery.QueryFragment
        \(raw: access)let _columnFragments: [ChronicleQuery.QueryFragment]
        \(raw: access)static var _columnNames: [String] {
          [\(raw: names)].flatMap { $0 }
        }
        \(raw: access)init(\(raw: parameters)) {
          self.queryFragment = [\(raw: fragments)].joined(separator: ", ")
          self._columnFragments = [\(raw: columnFragments)].flatMap { $0 }
        }
      }
      """
  }

  static func columnAppender(_ columns: [ColumnModel], typeName: String, access: String, throughTableColumns: Bool = false) -> String {
    // Generated columns are read, never written.
    let lines = columns.filter { !$0.isGenerated }.map {
      throughTableColumns
        ? "  ChronicleQuery.TableColumn.appendColumns(as: Self.columns.\($0.identifier), named: \(stringLiteral($0.column)), of: output.\($0.identifier), to: &values)"
        : "  \($0.valueType).appendColumns(named: \(stringLiteral($0.column)), of: output.\($0.identifier), to: &values)"
    }.joined(separator: "\n")
    return """
      \(access)static func appendColumns(named name: String, of output: \(typeName), to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
      \(lines)
      }
      """
  }

  /// A group's `encode(to:)`: each member through its own column, typed.
  static func groupEncoder(_ columns: [ColumnModel], access: String) -> String {
    let lines = columns.map {
      "  try encoder.encode(ChronicleQuery._GroupMemberColumn<\($0.valueType)>(\(stringLiteral($0.column))), self.\($0.identifier))"
    }.joined(separator: "\n")
    return """
      \(access)func encode(to encoder: inout some ChronicleQuery.QueryEncoder) throws(ChronicleQuery.QueryEncodingError) {
      \(lines)
      }
      """
  }

  /// A group's value in a row's `jsonObject()`: an object of its members,
  /// each as its own type writes it.
  static func jsonObjectValue(_ columns: [ColumnModel], access: String) -> String {
    let members = columns.map {
      "(\(stringLiteral($0.column)), \($0.valueType).jsonObjectValue(named: \(stringLiteral($0.column)), prefix: prefix))"
    }.joined(separator: ", ")
    return """
      \(access)static func jsonObjectValue(named name: String, prefix: String) -> String {
        ChronicleQuery.jsonObjectSQL([\(members)])
      }
      """
  }

  /// A group's values for a select of a row given in Swift: every member,
  /// generated ones too (a table's come from its columns, in the library).
  static func selectedColumnAppender(_ columns: [ColumnModel], typeName: String, access: String) -> String {
    let lines = columns.map {
      "  \($0.valueType).appendSelectedColumns(named: \(stringLiteral($0.column)), of: output.\($0.identifier), to: &values)"
    }.joined(separator: "\n")
    return """
      \(access)static func appendSelectedColumns(named name: String, of output: \(typeName), to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
      \(lines)
      }
      """
  }
}

/// `text` as a Swift string literal.
func stringLiteral(_ text: String) -> String {
  "\"" + text.flatMap { $0 == "\"" || $0 == "\\" ? ["\\", $0] : [$0] } + "\""
}
