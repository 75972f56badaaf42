import ChronicleNaming
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// A stored property that maps to a column.
struct ColumnModel {
  /// The property's name, without backticks: the column's default name.
  var property: String
  /// The property's name as Swift code writes it (`` `class` ``).
  var identifier: String
  var column: String
  /// The property's Swift type.
  var type: String
  /// The type stored in the database: the representation, or the property type.
  var valueType: String
  var isPrimaryKey: Bool
  var defaultValue: String?
  /// A generated column (`@Column(generated: .virtual)`): read, never written.
  var isGenerated = false
  var isOptional: Bool { type.hasSuffix("?") || type.hasPrefix("Optional<") }
}

/// What `@Table` reads from the struct it is attached to.
struct TableModel {
  var typeName: String
  var tableName: String
  /// The schema `@Table(…, schema: "main")` names, or nil.
  var schemaName: String? = nil
  var columns: [ColumnModel]
  /// The struct has generic parameters (`PragmaTableInfo<Base: Table>`):
  /// its statics are computed, as a generic type has no static storage.
  var isGeneric = false
  /// The primary key; nil for a table without one (a join table, a log):
  /// it is then a `Table` but not a `PrimaryKeyedTable`, and has no `Draft`.
  var primaryKey: ColumnModel?
  /// The access modifier of generated members (see ``memberAccess(of:in:)``).
  var access = "public "

  /// Reads the declaration; reports problems to `context` (when given) and returns nil.
  static func read(node: AttributeSyntax, declaration: some DeclGroupSyntax, context: (any MacroExpansionContext)?) -> TableModel? {
    guard var model = readModel(node: node, declaration: declaration, context: context) else { return nil }
    model.access = memberAccess(of: declaration, lexicalContext: context?.lexicalContext ?? [])
    return model
  }

  /// The modifier generated members take: `public` (needed when the type is
  /// public, harmless when it is internal) unless the type, or one it is
  /// nested in, is private or fileprivate; there a public (or, in the
  /// generated extension, internal) member whose signature names the type
  /// does not compile, so members are `fileprivate`.
  static func memberAccess(of declaration: some DeclGroupSyntax, lexicalContext: [Syntax]) -> String {
    func isPrivate(_ modifiers: DeclModifierListSyntax?) -> Bool {
      modifiers?.contains { [.keyword(.private), .keyword(.fileprivate)].contains($0.name.tokenKind) } ?? false
    }
    if isPrivate(declaration.modifiers) { return "fileprivate " }
    let enclosing = lexicalContext.compactMap { $0.asProtocol(WithModifiersSyntax.self)?.modifiers }
    return enclosing.contains(where: isPrivate) ? "fileprivate " : "public "
  }

  private static func readModel(node: AttributeSyntax, declaration: some DeclGroupSyntax, context: (any MacroExpansionContext)?) -> TableModel? {
    func report(_ message: TableDiagnostic, at syntax: some SyntaxProtocol, fixIts: [FixIt] = []) {
      context?.diagnose(Diagnostic(node: Syntax(syntax), message: message, fixIts: fixIts))
    }
    guard let structDecl = declaration.as(StructDeclSyntax.self) else {
      if let classDecl = declaration.as(ClassDeclSyntax.self) {
        let fix = FixIt(
          message: TableFixIt.useStruct,
          changes: [.replace(oldNode: Syntax(classDecl.classKeyword), newNode: Syntax(TokenSyntax.keyword(.struct, leadingTrivia: classDecl.classKeyword.leadingTrivia, trailingTrivia: classDecl.classKeyword.trailingTrivia)))])
        report(.notAStruct(macro: "Table", what: "a class"), at: classDecl.classKeyword, fixIts: [fix])
      } else {
        report(.notAStruct(macro: "Table", what: "this declaration"), at: node)
      }
      return nil
    }
    let typeName = structDecl.name.trimmedDescription
    let tableName = tableName(node: node, typeName: typeName)

    guard var columns = ColumnModel.readStoredProperties(of: structDecl, report: { report($0, at: $1) }) else { return nil }
    // The primary key, as upstream picks it: the marked column, else the
    // property named `id`. A table without either has no primary key in
    // Swift (a join table, a view, a row of other tables' rows).
    let keyIndex = columns.firstIndex(where: \.isPrimaryKey) ?? columns.firstIndex { $0.property == "id" }
    let isGeneric = structDecl.genericParameterClause != nil
    guard let keyIndex else {
      return TableModel(typeName: typeName, tableName: tableName, schemaName: schemaName(node: node), columns: columns, isGeneric: isGeneric, primaryKey: nil)
    }
    columns[keyIndex].isPrimaryKey = true
    return TableModel(
      typeName: typeName, tableName: tableName, schemaName: schemaName(node: node), columns: columns, isGeneric: isGeneric,
      primaryKey: columns[keyIndex])
  }

  /// The name `@Table("…")` gives, or the type's default table name.
  static func tableName(node: AttributeSyntax, typeName: String) -> String {
    stringArgument(labeled: nil, of: node) ?? defaultTableName(typeName)
  }

  /// The schema `@Table(schema: "…")` gives, or nil.
  static func schemaName(node: AttributeSyntax) -> String? {
    stringArgument(labeled: "schema", of: node)
  }

  private static func stringArgument(labeled label: String?, of node: AttributeSyntax) -> String? {
    guard let argument = node.arguments?.as(LabeledExprListSyntax.self)?.first(where: { $0.label?.text == label }) else { return nil }
    return argument.expression.as(StringLiteralExprSyntax.self)?.representedLiteralValue
  }

  /// The type of a literal or constructor call initializer, or of a
  /// static member of the model (`Self.epoch`, `Event.epoch`) found in
  /// `statics`, the model's static properties with the types they declare
  /// or initialize.
  static func inferType(_ expression: ExprSyntax, statics: [String: String] = [:], modelName: String = "") -> String? {
    if let member = expression.as(MemberAccessExprSyntax.self),
       let base = member.base?.as(DeclReferenceExprSyntax.self),
       base.baseName.tokenKind == .keyword(.Self) || base.baseName.text == modelName {
      return statics[member.declName.baseName.text.filter { $0 != "`" }]
    }
    if expression.is(StringLiteralExprSyntax.self) { return "String" }
    if expression.is(IntegerLiteralExprSyntax.self) { return "Int" }
    if expression.is(FloatLiteralExprSyntax.self) { return "Double" }
    if expression.is(BooleanLiteralExprSyntax.self) { return "Bool" }
    if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
      return inferType(prefix.expression, statics: statics, modelName: modelName)
    }
    if let call = expression.as(FunctionCallExprSyntax.self),
       let callee = call.calledExpression.as(DeclReferenceExprSyntax.self),
       callee.baseName.text.first?.isUppercase == true {
      // `Optional("hi")`: the argument's type, optional.
      if callee.baseName.text == "Optional", call.arguments.count == 1, let wrapped = call.arguments.first.flatMap({ inferType($0.expression, statics: statics, modelName: modelName) }) {
        return wrapped + "?"
      }
      return callee.baseName.text
    }
    return nil
  }

  /// Why a declared type cannot be a column, if it obviously cannot.
  static func unsupportedKind(_ type: TypeSyntax?) -> String? {
    guard var type else { return nil }
    if let optional = type.as(OptionalTypeSyntax.self) { type = optional.wrappedType }
    if let array = type.as(ArrayTypeSyntax.self) {
      // Bytes are a BLOB, as `Data` is.
      return array.element.trimmedDescription == "UInt8" ? nil : "an array"
    }
    if type.is(DictionaryTypeSyntax.self) { return "a dictionary" }
    if type.is(TupleTypeSyntax.self) { return "a tuple" }
    if type.is(FunctionTypeSyntax.self) { return "a function" }
    if let identifier = type.as(IdentifierTypeSyntax.self), ["Set", "Array", "Dictionary"].contains(identifier.name.text) {
      return "a collection"
    }
    return nil
  }
}

enum TableDiagnostic: DiagnosticMessage {
  case notAStruct(macro: String, what: String)
  case typeNotInferable(String)
  case unsupportedType(property: String, type: String, kind: String)

  var message: String {
    switch self {
    case .notAStruct(let macro, let what):
      return "@\(macro) applies to a struct, not \(what): rows are values"
    case .typeNotInferable(let property):
      return "cannot tell the column type of '\(property)': add a type annotation"
    case .unsupportedType(let property, let type, let kind):
      return "'\(property)' is \(kind) ('\(type)'), which no column can hold: store it as JSON with '@Column(as: \(type).JSONRepresentation.self)', or mark it '@Ephemeral'"
    }
  }

  var diagnosticID: MessageID {
    let id: String
    switch self {
    case .notAStruct: id = "notAStruct"
    case .typeNotInferable: id = "typeNotInferable"
    case .unsupportedType: id = "unsupportedType"
    }
    return MessageID(domain: "ChronicleQueryMacros", id: id)
  }
  var severity: DiagnosticSeverity { .error }
}

enum TableFixIt: FixItMessage {
  case useStruct
  var message: String { "Replace 'class' with 'struct'" }
  var fixItID: MessageID { MessageID(domain: "ChronicleQueryMacros", id: "useStruct") }
}
