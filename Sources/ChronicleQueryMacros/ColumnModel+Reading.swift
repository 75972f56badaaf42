import SwiftDiagnostics
import SwiftSyntax

extension ColumnModel {
  /// The stored properties of a `@Table` or `@Selection` struct, as columns
  /// (skipping static, computed and `@Ephemeral` ones). Reports each
  /// property it cannot map and returns nil if there was one.
  static func readStoredProperties(
    of structDecl: StructDeclSyntax, report: (TableDiagnostic, Syntax) -> Void
  ) -> [ColumnModel]? {
    var columns: [ColumnModel] = []
    var failed = false
    let statics = staticPropertyTypes(of: structDecl)
    for member in structDecl.memberBlock.members {
      guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
      if variable.isStatic { continue }
      let attributes = variable.attributes.compactMap { $0.as(AttributeSyntax.self) }
      if attributes.contains(where: { $0.attributeName.trimmedDescription == "Ephemeral" }) { continue }
      // `@Columns` is StructuredQueries' older name for `@Column`.
      let columnAttribute = attributes.first { ["Column", "Columns"].contains($0.attributeName.trimmedDescription) }
      for binding in variable.bindings {
        guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else { continue }
        if let accessor = binding.accessorBlock {
          // Computed unless it only observes (willSet/didSet).
          if case .accessors(let list) = accessor.accessors,
             list.allSatisfy({ $0.accessorSpecifier.tokenKind == .keyword(.willSet) || $0.accessorSpecifier.tokenKind == .keyword(.didSet) }) {
          } else { continue }
        }
        let property = String(identifier.identifier.trimmedDescription.filter { $0 != "`" })
        let initializer = binding.initializer?.value
        guard let type = binding.typeAnnotation?.type.trimmedDescription ?? initializer.flatMap({ TableModel.inferType($0, statics: statics, modelName: structDecl.name.text) }) else {
          report(.typeNotInferable(property), Syntax(binding))
          failed = true
          continue
        }
        // `Self` in a default (`= Self.defaultColor`) names the model, also
        // where the default is repeated in its Draft.
        let defaultValue = initializer.map { SelfReferenceRewriter(typeName: structDecl.name.text).rewrite($0).trimmedDescription }
        var column = ColumnModel(
          property: property, identifier: identifier.identifier.text, column: property, type: type, valueType: type,
          isPrimaryKey: false, defaultValue: defaultValue)
        if let arguments = columnAttribute?.arguments?.as(LabeledExprListSyntax.self) {
          for argument in arguments {
            switch argument.label?.text {
            case nil:
              if let text = argument.expression.as(StringLiteralExprSyntax.self)?.representedLiteralValue { column.column = text }
            case "as":
              var representation = argument.expression.trimmedDescription
              if representation.hasSuffix(".self") { representation.removeLast(5) }
              // `Date?.UnixTimeRepresentation` names an optional already.
              let namesOptional = representation.hasSuffix("?") || representation.contains("?.")
              column.valueType = column.isOptional && !namesOptional ? representation + "?" : representation
            case "primaryKey":
              column.isPrimaryKey = argument.expression.trimmedDescription == "true"
            case "generated":
              column.isGenerated = argument.expression.trimmedDescription != "nil"
            default:
              break
            }
          }
        }
        // A collection needs a representation (`[String].JSONRepresentation`).
        if column.valueType == column.type, let unsupported = TableModel.unsupportedKind(binding.typeAnnotation?.type) {
          report(.unsupportedType(property: property, type: type, kind: unsupported), Syntax(binding))
          failed = true
          continue
        }
        if column.isOptional, column.defaultValue == nil, variable.bindingSpecifier.tokenKind == .keyword(.var) {
          column.defaultValue = "nil"
        }
        columns.append(column)
      }
    }
    return failed ? nil : columns
  }
}

extension ColumnModel {
  /// The model's static properties with their types, as declared
  /// (`static let epoch: Date = …`) or initialized (`static let epoch = Date(…)`),
  /// for the defaults that name them (`var startsAt = Self.epoch`).
  static func staticPropertyTypes(of structDecl: StructDeclSyntax) -> [String: String] {
    var types: [String: String] = [:]
    for member in structDecl.memberBlock.members {
      guard let variable = member.decl.as(VariableDeclSyntax.self), variable.isStatic else { continue }
      for binding in variable.bindings {
        guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else { continue }
        let name = identifier.identifier.text.filter { $0 != "`" }
        if let type = binding.typeAnnotation?.type.trimmedDescription ?? binding.initializer.flatMap({ TableModel.inferType($0.value) }) {
          types[name] = type
        }
      }
    }
    return types
  }
}

extension VariableDeclSyntax {
  var isStatic: Bool {
    modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
  }
}

/// Replaces `Self` with the model's name in an expression.
final class SelfReferenceRewriter: SyntaxRewriter {
  let typeName: String

  init(typeName: String) {
    self.typeName = typeName
    super.init()
  }

  override func visit(_ node: DeclReferenceExprSyntax) -> ExprSyntax {
    guard node.baseName.tokenKind == .keyword(.Self) else { return super.visit(node) }
    return ExprSyntax(node.with(\.baseName, .identifier(typeName, leadingTrivia: node.baseName.leadingTrivia, trailingTrivia: node.baseName.trailingTrivia)))
  }

  override func visit(_ node: IdentifierTypeSyntax) -> TypeSyntax {
    guard node.name.tokenKind == .keyword(.Self) else { return super.visit(node) }
    return TypeSyntax(node.with(\.name, .identifier(typeName, leadingTrivia: node.name.leadingTrivia, trailingTrivia: node.name.trailingTrivia)))
  }
}
