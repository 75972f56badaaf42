import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Table`: see the macro's declaration in ChronicleQuery for what it generates.
public enum TableMacro {}

extension TableMacro: MemberMacro {
  public static func expansion(
    of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    if let enumDecl = declaration.as(EnumDeclSyntax.self) {
      guard let cases = EnumSelection.readCases(of: enumDecl, report: { context.diagnose(Diagnostic(node: $1, message: $0)) }) else { return [] }
      let typeName = enumDecl.name.trimmedDescription
      return EnumTable.members(
        cases, typeName: typeName, tableName: TableModel.tableName(node: node, typeName: typeName),
        schemaName: TableModel.schemaName(node: node),
        access: TableModel.memberAccess(of: declaration, lexicalContext: context.lexicalContext))
    }
    guard let model = TableModel.read(node: node, declaration: declaration, context: context) else { return [] }
    return model.memberDeclarations()
  }
}

extension TableMacro: ExtensionMacro {
  public static func expansion(
    of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax, providingExtensionsOf type: some TypeSyntaxProtocol,
    conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    // Diagnostics are reported once, by the member expansion.
    if let enumDecl = declaration.as(EnumDeclSyntax.self) {
      guard let cases = EnumSelection.readCases(of: enumDecl, report: { _, _ in }) else { return [] }
      let table: DeclSyntax = "extension \(type.trimmed): ChronicleQuery.Table {}"
      return [EnumSelection.expansion(cases, type: type, access: TableModel.memberAccess(of: declaration, lexicalContext: context.lexicalContext)), table].map { $0.cast(ExtensionDeclSyntax.self) }
    }
    guard var model = TableModel.read(node: node, declaration: declaration, context: nil) else { return [] }
    model.access = TableModel.memberAccess(of: declaration, lexicalContext: context.lexicalContext)
    let decl: DeclSyntax = """
      extension \(type.trimmed): \(raw: model.primaryKey == nil ? "ChronicleQuery.Table" : "ChronicleQuery.Table, ChronicleQuery.PrimaryKeyedTable") {
        \(raw: model.decoderInitializer())
        \(raw: ColumnModel.columnAppender(model.columns, typeName: model.isGeneric ? "Self" : type.trimmedDescription, access: model.access, throughTableColumns: true))
      }
      """
    return [decl.cast(ExtensionDeclSyntax.self)]
  }
}

/// `@Column` and `@Ephemeral` only mark properties for `@Table`.
public enum ColumnMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] { [] }
}

public enum EphemeralMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] { [] }
}
