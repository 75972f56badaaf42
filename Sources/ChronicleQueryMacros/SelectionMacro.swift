import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Selection`: see the macro's declaration in ChronicleQuery for what it generates.
///
/// `Columns` and a private alias of each column's type are members of the
/// type; the conformance's code sits in an extension at file scope, where a
/// type declared beside the selection inside another type (`Outer.Status`
/// for `var status: Status`) does not resolve by its own name: that code
/// names each column's type through its alias.
public enum SelectionMacro: ExtensionMacro {
  public static func expansion(
    of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax, providingExtensionsOf type: some TypeSyntaxProtocol,
    conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    func report(_ message: TableDiagnostic, at syntax: Syntax) {
      context.diagnose(Diagnostic(node: syntax, message: message))
    }
    if let enumDecl = declaration.as(EnumDeclSyntax.self) {
      guard let cases = EnumSelection.readCases(of: enumDecl, report: { context.diagnose(Diagnostic(node: $1, message: $0)) }) else { return [] }
      return [EnumSelection.expansion(cases, type: type, access: TableModel.memberAccess(of: declaration, lexicalContext: context.lexicalContext)).cast(ExtensionDeclSyntax.self)]
    }
    guard let structDecl = declaration.as(StructDeclSyntax.self) else {
      report(.notAStruct(macro: "Selection", what: "this declaration"), at: Syntax(node))
      return []
    }
    guard let columns = ColumnModel.readStoredProperties(of: structDecl, report: report) else { return [] }
    // Qualified (`Outer.Row`): the extension sits at file scope, where a
    // nested type's own name does not resolve.
    let typeName = type.trimmedDescription
    let access = TableModel.memberAccess(of: declaration, lexicalContext: context.lexicalContext)
    let lookups = columns.map { "  if keyPath == \\\(typeName).\($0.identifier) { return \(stringLiteral($0.column)) }" }.joined(separator: "\n")
    // With @Table beside it, the table's expansion already reads and writes
    // rows: add only what a selection has beyond that.
    if isTable(declaration) {
      // `Columns` comes with the table.
      let decl: DeclSyntax = """
        extension \(type.trimmed): ChronicleQuery.Selection {
          \(raw: access)static func columnName(of keyPath: PartialKeyPath<\(raw: typeName)>) -> String? {
          \(raw: lookups)
            return nil
          }
        }
        """
      return [decl.cast(ExtensionDeclSyntax.self)]
    }
    // Each column's type through the alias the member expansion declares.
    let aliased = columns.map { column in
      var aliased = column
      aliased.valueType = "Self.\(SelectionMacro.typeAlias(of: column))"
      return aliased
    }
    let names = aliased.map { "\($0.valueType).columnNames(forProperty: \(stringLiteral($0.column)))" }
    let decl: DeclSyntax = """
      extension \(type.trimmed): ChronicleQuery.Selection {
        \(raw: ColumnModel.decoderInitializer(aliased, access: access))
        \(raw: access)static func columnName(of keyPath: PartialKeyPath<\(raw: typeName)>) -> String? {
        \(raw: lookups)
          return nil
        }
        \(raw: access)static func columnNames(forProperty name: String) -> [String] {
          \(raw: names.isEmpty ? "[]" : names.joined(separator: " + "))
        }
        \(raw: ColumnModel.columnAppender(aliased, typeName: typeName, access: access))
        \(raw: ColumnModel.selectedColumnAppender(aliased, typeName: typeName, access: access))
        \(raw: ColumnModel.jsonObjectValue(aliased, access: access))
        \(raw: ColumnModel.groupEncoder(aliased, access: access))
      }
      """
    return [decl.cast(ExtensionDeclSyntax.self)]
  }

  /// The private alias of a column's type that the member expansion
  /// declares: `_titleColumnType`.
  static func typeAlias(of column: ColumnModel) -> String {
    "_\(column.property)ColumnType"
  }
}

extension SelectionMacro: MemberMacro {
  public static func expansion(
    of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    // Diagnostics are reported once, by the extension expansion; an enum
    // selection and a `@Table` beside this macro generate no members here.
    guard let structDecl = declaration.as(StructDeclSyntax.self), !isTable(declaration),
      let columns = ColumnModel.readStoredProperties(of: structDecl, report: { _, _ in })
    else { return [] }
    let access = TableModel.memberAccess(of: declaration, lexicalContext: context.lexicalContext)
    let aliases: [DeclSyntax] = columns.map { "private typealias \(raw: typeAlias(of: $0)) = \(raw: $0.valueType)" }
    return [
      ColumnModel.columnsExpression(columns, typeName: structDecl.name.trimmedDescription, access: access),
      selectionAlias(access: access),
    ] + aliases
  }

  /// `@Table` is attached beside this macro: the table's expansion reads and
  /// writes rows and declares `Columns`.
  static func isTable(_ declaration: some DeclGroupSyntax) -> Bool {
    declaration.attributes.contains {
      ["Table", "ChronicleQuery.Table", "Chronicle.Table"].contains($0.as(AttributeSyntax.self)?.attributeName.trimmedDescription ?? "")
    }
  }
}
