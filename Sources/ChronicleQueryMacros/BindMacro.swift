import SwiftSyntax
import SwiftSyntaxMacros

/// `#bind(value)` and `#bind(value, as: Representation.self)`: a Swift
/// value bound to the statement, typed as its representation.
public enum BindMacro: ExpressionMacro {
  public static func expansion(
    of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
  ) throws -> ExprSyntax {
    "ChronicleQuery.BoundValue.expression(\(node.arguments))"
  }
}
