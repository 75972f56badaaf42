import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@DatabaseCollation`: see the macro's declaration in ChronicleQuery for what it generates.
public enum DatabaseCollationMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    func report(_ message: CollationDiagnostic, at syntax: some SyntaxProtocol) {
      context.diagnose(Diagnostic(node: Syntax(syntax), message: message))
    }
    guard let function = declaration.as(FunctionDeclSyntax.self) else {
      report(.notAFunction, at: node)
      return []
    }
    let signature = function.signature
    var valid = true
    if let effects = signature.effectSpecifiers {
      if effects.asyncSpecifier != nil { report(.async, at: function.name); valid = false }
      if let throwsClause = effects.throwsClause { report(.throwing, at: throwsClause); valid = false }
    }
    let parameters = Array(signature.parameterClause.parameters)
    if parameters.count != 2 || parameters.contains(where: { $0.type.trimmedDescription != "String" }) {
      report(.notTwoStrings, at: signature.parameterClause)
      valid = false
    }
    if signature.returnClause?.type.trimmedDescription != "CollationOrder" {
      report(.notCollationOrder, at: signature.returnClause.map(Syntax.init) ?? Syntax(function.name))
      valid = false
    }
    guard valid else { return [] }
    let peer = PeerFunction(function, attribute: node, in: context)
    let (isStatic, accessPrefix, swiftName, sqlName) = (peer.isStatic, peer.accessPrefix, peer.swiftName, peer.sqlName)
    let labels = parameters.map { $0.firstName.text == "_" ? "" : "\($0.firstName.text): " }
    if peer.isInType, !isStatic {
      // An instance method: the collation holds on to the instance it was read from.
      return [
        """
        \(raw: accessPrefix)var $\(raw: swiftName): GRDB.DatabaseCollation {
          ChronicleQuery._databaseCollation(\(raw: stringLiteral(sqlName)), owner: self) { owner, lhs, rhs in
            owner.\(raw: swiftName)(\(raw: labels[0])lhs, \(raw: labels[1])rhs)
          }
        }
        """
      ]
    }
    let owner = isStatic ? "static " : ""
    return [
      """
      \(raw: accessPrefix)\(raw: owner)let $\(raw: swiftName) = ChronicleQuery._databaseCollation(\(raw: stringLiteral(sqlName))) { lhs, rhs in
        \(raw: swiftName)(\(raw: labels[0])lhs, \(raw: labels[1])rhs)
      }
      """
    ]
  }
}

enum CollationDiagnostic: DiagnosticMessage {
  case notAFunction, async, throwing, notTwoStrings, notCollationOrder

  var message: String {
    switch self {
    case .notAFunction: "@DatabaseCollation applies to a function"
    case .async: "@DatabaseCollation cannot call an async function: SQLite calls it synchronously, for each comparison"
    case .throwing:
      "@DatabaseCollation functions cannot throw: SQLite has no way to fail a comparison, and a collating sequence must order every pair of texts; remove 'throws'"
    case .notTwoStrings:
      "@DatabaseCollation functions take two 'String' arguments: SQLite calls a collating sequence with the two texts it compares"
    case .notCollationOrder: "@DatabaseCollation functions return 'CollationOrder' (.ascending, .same or .descending)"
    }
  }

  var diagnosticID: MessageID { MessageID(domain: "ChronicleQueryMacros", id: "collation.\(self)") }
  var severity: DiagnosticSeverity { .error }
}
