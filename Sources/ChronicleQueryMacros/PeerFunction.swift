import SwiftSyntax
import SwiftSyntaxMacros

/// What `@DatabaseFunction` and `@DatabaseCollation` read of the function
/// they are attached to, to name and place the `$name` peer they generate.
struct PeerFunction {
  /// `static` or `class`.
  let isStatic: Bool
  /// Declared in a type (or an extension of one), not at file scope.
  let isInType: Bool
  /// The peer's access modifier and a space, or nothing: the function's own
  /// (`fileprivate` for a `private` one, so the peer is seen beside it).
  let accessPrefix: String
  /// The Swift function's name.
  let swiftName: String
  /// The name in SQL: the attribute's first unlabelled string, or the Swift name.
  let sqlName: String

  init(_ function: FunctionDeclSyntax, attribute: AttributeSyntax, in context: some MacroExpansionContext) {
    let modifiers = function.modifiers.map(\.name.text)
    isStatic = modifiers.contains("static") || modifiers.contains("class")
    isInType = context.lexicalContext.first.map {
      $0.is(StructDeclSyntax.self) || $0.is(ClassDeclSyntax.self) || $0.is(EnumDeclSyntax.self)
        || $0.is(ExtensionDeclSyntax.self) || $0.is(ActorDeclSyntax.self)
    } ?? false
    let access = modifiers.first { ["public", "package", "internal", "fileprivate", "private"].contains($0) }
    accessPrefix = access.map { $0 == "private" ? "fileprivate " : "\($0) " } ?? ""
    swiftName = function.name.text
    sqlName = Self.nameArgument(attribute) ?? swiftName
  }

  private static func nameArgument(_ node: AttributeSyntax) -> String? {
    guard case .argumentList(let arguments) = node.arguments,
          let first = arguments.first, first.label == nil,
          let literal = first.expression.as(StringLiteralExprSyntax.self) else { return nil }
    return literal.segments.compactMap { $0.as(StringSegmentSyntax.self)?.content.text }.joined()
  }
}
