import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Selection`: see the macro's declaration in ChronicleQuery for what it generates.
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
    let names = columns.map { "\($0.valueType).columnNames(forProperty: \(stringLiteral($0.column)))" }
    let lookups = columns.map { "  if keyPath == \\\(typeName).\($0.identifier) { return \(stringLiteral($0.column)) }" }.joined(separator: "\n")
    // With @Table beside it, the table's expansion already reads and writes
    // rows: add only what a selection has beyond that.
    let isTable = declaration.attributes.contains {
      ["Table", "ChronicleQuery.Table", "Chronicle.Table"].contains($0.as(AttributeSyntax.self)?.attributeName.trimmedDescription ?? "")
    }
    if isTable {
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
    let decl: DeclSyntax = """
      extension \(type.trimmed): ChronicleQuery.Selection {
        \(ColumnModel.columnsExpression(columns, typeName: typeName, access: access))
        \(raw: ColumnModel.decoderInitializer(columns, access: access))
        \(raw: access)static func columnName(of keyPath: PartialKeyPath<\(raw: typeName)>) -> String? {
        \(raw: lookups)
          return nil
        }
        \(raw: access)static func columnNames(forProperty name: String) -> [String] {
          \(raw: names.isEmpty ? "[]" : names.joined(separator: " + "))
        }
        \(raw: ColumnModel.columnAppender(columns, typeName: typeName, access: access))
      }
      """
    return [decl.cast(ExtensionDeclSyntax.self)]
  }
}
