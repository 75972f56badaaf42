import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@DatabaseFunction`: see the macro's declaration in ChronicleQuery for what it generates.
public enum DatabaseFunctionMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    func report(_ message: FunctionDiagnostic, at syntax: some SyntaxProtocol) {
      context.diagnose(Diagnostic(node: Syntax(syntax), message: message))
    }
    guard let function = declaration.as(FunctionDeclSyntax.self) else {
      report(.notAFunction, at: node)
      return []
    }
    let signature = function.signature
    if signature.effectSpecifiers?.asyncSpecifier != nil {
      report(.async, at: function.name)
      return []
    }
    // A function that returns nothing gives SQL NULL (`NoResult`).
    let declaredResult = signature.returnClause?.type.trimmedDescription
    let returnType = declaredResult.map { $0 == "Void" || $0 == "()" ? "ChronicleQuery.NoResult" : $0 } ?? "ChronicleQuery.NoResult"
    let peer = PeerFunction(function, attribute: node, in: context)
    if peer.owner?.isActor == true {
      report(.actorMethod, at: function.name)
      return []
    }
    let (isStatic, accessPrefix, swiftName, sqlName) = (peer.isStatic, peer.accessPrefix, peer.swiftName, peer.sqlName)
    let isDeterministic = Self.isDeterministicArgument(node)
    let throwing = signature.effectSpecifiers?.throwsClause != nil ? "try " : ""
    let parameters = signature.parameterClause.parameters.map(Parameter.init)
    let typeName = context.makeUniqueName(swiftName).text
    let owner = isStatic ? "static " : ""
    // What the generated struct calls: the function, or the instance's method.
    let callee: String
    let ownerDeclaration: String
    let peerDeclaration: String
    if let instance = peer.owner {
      callee = "owner.\(swiftName)"
      ownerDeclaration = instance.isClass ? "weak let owner: \(instance.typeName)?" : "let owner: \(instance.typeName)"
      peerDeclaration = "\(accessPrefix)var $\(swiftName): \(typeName) { \(typeName)(owner: self) }"
    } else {
      callee = swiftName
      ownerDeclaration = "init() {}"
      peerDeclaration = "\(accessPrefix)\(owner)let $\(swiftName) = \(typeName)()"
    }
    let ownerCheck = peer.owner?.isClass == true
      ? "guard let owner else { throw ChronicleQuery.DatabaseFunctionError.instanceReleased(name) }\n    " : ""

    let body: String
    if parameters.count == 1, let element = parameters[0].sequenceElement {
      body = aggregate(
        parameters[0], element: element, returnType: returnType, callee: callee, ownerCheck: ownerCheck, throwing: throwing,
        accessPrefix: accessPrefix)
    } else {
      if let sequence = parameters.first(where: { $0.sequenceElement != nil }) {
        report(.sequenceAmongOthers, at: sequence.syntax)
        return []
      }
      body = scalar(parameters, returnType: returnType, callee: callee, ownerCheck: ownerCheck, throwing: throwing, accessPrefix: accessPrefix)
    }
    let conformance = parameters.count == 1 && parameters[0].sequenceElement != nil
      ? "ChronicleQuery.AggregateDatabaseFunction" : "ChronicleQuery.ScalarDatabaseFunction"
    return [
      """
      \(raw: accessPrefix)struct \(raw: typeName): \(raw: conformance) {
        \(raw: accessPrefix)typealias Output = \(raw: returnType)
        \(raw: accessPrefix)let name = \(raw: stringLiteral(sqlName))
        \(raw: accessPrefix)let isDeterministic = \(raw: isDeterministic ? "true" : "false")
        \(raw: accessPrefix)\(raw: ownerDeclaration)
      \(raw: body)
      }
      """,
      "\(raw: peerDeclaration)",
    ]
  }

  private static func scalar(
    _ parameters: [Parameter], returnType: String, callee: String, ownerCheck: String, throwing: String, accessPrefix: String
  ) -> String {
    let count = parameters.isEmpty ? "0" : parameters.map { "\($0.type).queryColumnCount" }.joined(separator: " + ")
    let reads = parameters.enumerated().map { index, parameter in
      "    let argument\(index) = try arguments.decodeColumns(\(parameter.type).self)"
    }.joined(separator: "\n")
    let call = parameters.enumerated().map { index, parameter in parameter.argumentLabel("argument\(index)") }.joined(separator: ", ")
    return """
        \(accessPrefix)var argumentCount: Int { \(count) }
        \(accessPrefix)func invoke(_ arguments: inout ChronicleQuery.SQLiteQueryDecoder) throws -> \(swiftResult(returnType)) {
      \(reads)
          \(ownerCheck)return \(throwing)\(callee)(\(call))
        }
      \(callAsFunction(parameters.map { ($0, $0.type) }, returnType: returnType, accessPrefix: accessPrefix))
      """
  }

  private static func aggregate(
    _ parameter: Parameter, element: String, returnType: String, callee: String, ownerCheck: String, throwing: String,
    accessPrefix: String
  ) -> String {
    // A tuple element (`some Sequence<(String, separator: String)>`) takes
    // one SQL argument per member, labeled as the member is.
    let members = tupleMembers(element) ?? [(parameter.label, element)]
    var calls = [aggregateCall(members, returnType: returnType, accessPrefix: accessPrefix)]
    // Optional members also take non-optional columns.
    let unwrapped = members.map { ($0.label, unwrappedOptional($0.type) ?? $0.type) }
    if unwrapped.map(\.1) != members.map(\.type) {
      calls.append(aggregateCall(unwrapped, returnType: returnType, accessPrefix: accessPrefix))
    }
    let count = members.map { "\($0.type).queryColumnCount" }.joined(separator: " + ")
    let reads = members.indices.map { "let member\($0) = try arguments.decodeColumns(\(members[$0].type).self)" }
    let value = members.count == 1
      ? "member0"
      : "(" + members.indices.map { index in members[index].label.map { "\($0): member\(index)" } ?? "member\(index)" }.joined(separator: ", ") + ")"
    return """
        \(accessPrefix)typealias Element = \(element)
        \(accessPrefix)var argumentCount: Int { \(count) }
        \(accessPrefix)func step(_ arguments: inout ChronicleQuery.SQLiteQueryDecoder) throws -> \(element) {
          \(reads.joined(separator: "\n    "))
          return \(value)
        }
        \(accessPrefix)func finalize(_ elements: [\(element)]) throws -> \(swiftResult(returnType)) {
          \(ownerCheck)return \(throwing)\(callee)(\(parameter.argumentLabel("elements")))
        }
      \(calls.joined(separator: "\n"))
      """
  }

  /// An aggregate's `callAsFunction`: an expression per member, then SQL's
  /// `FILTER (WHERE …)` as `filter:`.
  private static func aggregateCall(_ members: [(label: String?, type: String)], returnType: String, accessPrefix: String) -> String {
    let declared = members.enumerated().map { index, member in
      "\(member.label ?? "_") argument\(index): some ChronicleQuery.QueryExpression<\(member.type)>"
    } + ["filter: (any ChronicleQuery.QueryExpression<Bool>)? = nil"]
    let fragments = members.indices.map { "argument\($0).queryFragment" }.joined(separator: ", ")
    return """
        \(accessPrefix)func callAsFunction(\(declared.joined(separator: ", "))) -> ChronicleQuery.SQLQueryExpression<\(returnType)> {
          aggregateCall([\(fragments)], filter: filter)
        }
      """
  }

  /// The labels and types of a tuple of two or more members: `(String,
  /// separator: String)`; nil for any other type.
  private static func tupleMembers(_ type: String) -> [(label: String?, type: String)]? {
    guard let tuple = TypeSyntax(stringLiteral: type).as(TupleTypeSyntax.self), tuple.elements.count > 1 else { return nil }
    return tuple.elements.map { member in
      (member.firstName.flatMap { $0.text == "_" ? nil : $0.text }, member.type.trimmedDescription)
    }
  }

  /// `callAsFunction` with the function's labels, taking expressions of `types`.
  /// What the Swift function returns for a result of SQL type `returnType`:
  /// `Void` for a function that returns nothing, else the type itself.
  private static func swiftResult(_ returnType: String) -> String {
    returnType == "ChronicleQuery.NoResult" ? "Void" : returnType
  }

  private static func callAsFunction(_ parameters: [(Parameter, String)], returnType: String, accessPrefix: String) -> String {
    let declared = parameters.enumerated().map { index, pair in
      "\(pair.0.label ?? "_") argument\(index): some ChronicleQuery.QueryExpression<\(pair.1)>"
    }.joined(separator: ", ")
    let fragments = parameters.indices.map { "argument\($0).queryFragment" }.joined(separator: ", ")
    return """
        \(accessPrefix)func callAsFunction(\(declared)) -> ChronicleQuery.SQLQueryExpression<\(returnType)> {
          ChronicleQuery.SQLQueryExpression(
            ChronicleQuery.QueryFragment(sql: ChronicleQuery.quotedIdentifier(name) + "(") + [\(fragments)].joined(separator: ", ") + ChronicleQuery.QueryFragment(sql: ")"))
        }
      """
  }

  /// `Wrapped` for `Wrapped?` or `Optional<Wrapped>`.
  private static func unwrappedOptional(_ type: String) -> String? {
    if type.hasSuffix("?") { return String(type.dropLast()) }
    if type.hasPrefix("Optional<"), type.hasSuffix(">") { return String(type.dropFirst("Optional<".count).dropLast()) }
    return nil
  }

  private static func isDeterministicArgument(_ node: AttributeSyntax) -> Bool {
    guard case .argumentList(let arguments) = node.arguments else { return false }
    return arguments.contains {
      $0.label?.text == "isDeterministic" && $0.expression.as(BooleanLiteralExprSyntax.self)?.literal.tokenKind == .keyword(.true)
    }
  }
}

/// A parameter of the function: its label and type.
private struct Parameter {
  let syntax: FunctionParameterSyntax
  /// The argument label; nil for `_`.
  let label: String?
  let type: String

  init(_ syntax: FunctionParameterSyntax) {
    self.syntax = syntax
    let first = syntax.firstName.text
    label = first == "_" ? nil : first
    type = syntax.type.trimmedDescription
  }

  /// `T` for `some Sequence<T>` or `[T]`: the parameter of an aggregate.
  var sequenceElement: String? {
    let compact = String(type.filter { $0 != " " })
    for prefix in ["someSequence<", "anySequence<"] where compact.hasPrefix(prefix) && compact.hasSuffix(">") {
      let start = type.index(after: type.firstIndex(of: "<")!)
      let end = type.index(before: type.endIndex)
      return trimmed(String(type[start..<end]))
    }
    if type.hasPrefix("["), type.hasSuffix("]"), !type.contains(":") {
      return trimmed(String(type.dropFirst().dropLast()))
    }
    return nil
  }

  private func trimmed(_ text: String) -> String {
    String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
  }

  /// `label: value`, or `value` for an unlabeled parameter.
  func argumentLabel(_ value: String) -> String {
    label.map { "\($0): \(value)" } ?? value
  }
}

enum FunctionDiagnostic: DiagnosticMessage {
  case notAFunction, async, actorMethod, sequenceAmongOthers

  var message: String {
    switch self {
    case .notAFunction: "@DatabaseFunction applies to a function"
    case .async: "@DatabaseFunction cannot call an async function: SQLite calls it synchronously, inside a statement"
    case .actorMethod:
      "@DatabaseFunction cannot call an actor's method: SQLite calls it synchronously, outside the actor. Make it nonisolated or static, or move it out of the actor"
    case .sequenceAmongOthers:
      "an aggregate @DatabaseFunction takes one parameter, the sequence of the group's values; take the other values as part of each element, or write two functions"
    }
  }

  var diagnosticID: MessageID { MessageID(domain: "ChronicleQueryMacros", id: "\(self)") }
  var severity: DiagnosticSeverity { .error }
}
