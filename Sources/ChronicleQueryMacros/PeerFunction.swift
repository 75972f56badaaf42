import SwiftSyntax
import SwiftSyntaxMacros

/// What `@DatabaseFunction` and `@DatabaseCollation` read of the function
/// they are attached to, to name and place the `$name` peer they generate.
struct PeerFunction {
  /// `static` or `class`.
  let isStatic: Bool
  /// Declared in a type (or an extension of one), not at file scope.
  let isInType: Bool
  /// The type an instance method is called on, and whether it is a class
  /// (held weakly, as upstream does, so that a connection does not keep it
  /// alive); nil for a global or static function. An actor's method is
  /// isolated and cannot be called synchronously: `isActor` tells.
  let owner: (typeName: String, isClass: Bool, isActor: Bool)?
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
    let context = context.lexicalContext.first
    if isStatic || !isInType {
      owner = nil
    } else if let type = context?.as(StructDeclSyntax.self) {
      owner = (type.name.text, false, false)
    } else if let type = context?.as(EnumDeclSyntax.self) {
      owner = (type.name.text, false, false)
    } else if let type = context?.as(ClassDeclSyntax.self) {
      owner = (type.name.text, true, false)
    } else if let type = context?.as(ActorDeclSyntax.self) {
      owner = (type.name.text, false, true)
    } else {
      // An extension: whether its type is a class is not known here, so
      // the instance is held strongly.
      owner = (context?.as(ExtensionDeclSyntax.self)?.extendedType.trimmedDescription ?? "Self", false, false)
    }
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
