import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder

/// `@Selection` on an enum: each case holds one value, stored in columns of
/// its own (the case's name, or a column group's columns), which are NULL
/// for the other cases. The row's case is the first whose columns hold a
/// value. (Upstream builds this on swift-case-paths' `@CasePathable`; here
/// the macro gives each case the optional accessor that `@CasePathable`'s
/// dynamic member lookup gives, `kind.note`, and queries reach a case's
/// column through it: `$0.kind.note`.)
enum EnumSelection {
  struct Case {
    var name: String
    /// The case's column: its name, or `@Column("…")`'s (a column group's
    /// columns take their own names).
    var column: String
    /// The associated value's type, as written.
    var valueType: String
    /// The type that stores it: `valueType`, or `@Column(as: …)`'s representation.
    var storageType: String
    /// The associated value's label, if it has one (`case note(text: String)`).
    var label: String?
  }

  /// The cases of `enumDecl`, or nil after reporting a case that does not hold exactly one value.
  static func readCases(of enumDecl: EnumDeclSyntax, report: (EnumSelectionDiagnostic, Syntax) -> Void) -> [Case]? {
    var cases: [Case] = []
    var valid = true
    for member in enumDecl.memberBlock.members {
      guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
      let columnAttribute = caseDecl.attributes.compactMap { $0.as(AttributeSyntax.self) }
        .first { ["Column", "Columns"].contains($0.attributeName.trimmedDescription) }
      var columnName: String?
      var representation: String?
      for argument in columnAttribute?.arguments?.as(LabeledExprListSyntax.self) ?? [] {
        switch argument.label?.text {
        case nil: columnName = argument.expression.as(StringLiteralExprSyntax.self)?.representedLiteralValue
        case "as": representation = String(argument.expression.trimmedDescription.dropLast(argument.expression.trimmedDescription.hasSuffix(".self") ? 5 : 0))
        default: break
        }
      }
      for element in caseDecl.elements {
        let name = element.name.trimmedDescription
        guard let parameters = element.parameterClause?.parameters, parameters.count == 1, let parameter = parameters.first else {
          report(.caseHoldsNoSingleValue(name), Syntax(element))
          valid = false
          continue
        }
        let caseName = name.filter { $0 != "`" }
        cases.append(Case(
          name: caseName, column: columnName ?? caseName, valueType: parameter.type.trimmedDescription,
          storageType: representation ?? parameter.type.trimmedDescription,
          label: parameter.firstName.map(\.text).flatMap { $0 == "_" ? nil : $0 }))
      }
    }
    if cases.isEmpty {
      report(.noCases, Syntax(enumDecl.name))
      return nil
    }
    return valid ? cases : nil
  }

  /// The extension that makes the enum a `Selection`.
  static func expansion(_ cases: [Case], type: some TypeSyntaxProtocol, access: String) -> DeclSyntax {
    let typeName = type.trimmedDescription
    let accessors = cases.map { item in
      """
        /// The value of the case `\(item.name)`, nil for another case.
        \(access)var \(identifier(item.name)): \(item.valueType)? {
          if case .\(identifier(item.name))(let value) = self { return value }
          return nil
        }
      """
    }.joined(separator: "\n")
    let nulls = { (item: Case) in
      "\(item.storageType).columnNames(forProperty: \(stringLiteral(item.column))).map { _ in ChronicleQuery.QueryFragment(sql: \"NULL\") }"
    }
    let constructors = cases.enumerated().map { index, item in
      let parts = cases.enumerated().map { other, otherCase in
        other == index ? "[value.queryFragment]" : nulls(otherCase)
      }.joined(separator: " + ")
      return """
            /// The case `\(item.name)` holding `value`: its columns, NULL for the other cases'.
            \(access)static func \(identifier(item.name))(_ value: some ChronicleQuery.QueryExpression<\(item.storageType)>) -> Columns {
              Columns(queryFragment: (\(parts)).joined(separator: ", "))
            }
        """
    }.joined(separator: "\n")
    let reads = cases.map { "    let \(identifier(item: $0)) = try decoder.decodeColumns(\($0.storageType)?.self)" }.joined(separator: "\n")
    let choices = cases.map { item in
      "if let \(identifier(item: item)) { self = .\(identifier(item.name))(\(item.label.map { "\($0): " } ?? "")\(identifier(item: item))) }"
    }.joined(separator: " else ")
    let names = cases.map { "\($0.storageType).columnNames(forProperty: \(stringLiteral($0.column)))" }.joined(separator: " + ")
    let lookups = cases.map { "  if keyPath == \\\(typeName).\(identifier($0.name)) { return \(stringLiteral($0.column)) }" }.joined(separator: "\n")
    let appends = cases.map {
      "    \($0.storageType)?.appendColumns(named: \(stringLiteral($0.column)), of: output.\(identifier($0.name)), to: &values)"
    }.joined(separator: "\n")
    let caseList = cases.map { stringLiteral($0.name) }.joined(separator: ", ")
    return """
      extension \(type.trimmed): ChronicleQuery.Selection, ChronicleQuery.EnumSelection {
        \(raw: access)struct Columns: ChronicleQuery.QueryExpression {
          \(raw: access)typealias QueryValue = \(raw: typeName)
          \(raw: access)let queryFragment: ChronicleQuery.QueryFragment
      \(raw: constructors)
        }
        \(raw: access)typealias Selection = Columns
      \(raw: accessors)
        \(raw: access)init(decoder: inout some ChronicleQuery.QueryDecoder) throws {
          let start = decoder
      \(raw: reads)
          \(raw: choices) else {
            throw start.noCase(of: \(raw: stringLiteral(typeName)), cases: [\(raw: caseList)])
          }
        }
        \(raw: access)static func columnName(of keyPath: PartialKeyPath<\(raw: typeName)>) -> String? {
        \(raw: lookups)
          return nil
        }
        \(raw: access)static func columnNames(forProperty name: String) -> [String] {
          \(raw: names)
        }
        \(raw: access)static func appendColumns(named name: String, of output: \(raw: typeName), to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
      \(raw: appends)
        }
      }
      """
  }

  /// A case name as a Swift identifier (backquoted when it is a keyword).
  static func identifier(_ name: String) -> String {
    ["default", "case", "self", "Type", "class", "struct", "enum", "func", "var", "let", "in", "is", "as", "nil", "true", "false"].contains(name) ? "`\(name)`" : name
  }

  /// The local variable that holds a case's decoded value.
  private static func identifier(item: Case) -> String { "\(item.name)Value" }
}

enum EnumSelectionDiagnostic: DiagnosticMessage {
  case caseHoldsNoSingleValue(String)
  case noCases

  var message: String {
    switch self {
    case .caseHoldsNoSingleValue(let name):
      return "case '\(name)' must hold exactly one value (its column, or a @Selection struct's columns): write 'case \(name)(Value)'"
    case .noCases:
      return "an enum selection needs at least one case, each holding one value"
    }
  }

  var diagnosticID: MessageID {
    switch self {
    case .caseHoldsNoSingleValue: MessageID(domain: "ChronicleQueryMacros", id: "caseHoldsNoSingleValue")
    case .noCases: MessageID(domain: "ChronicleQueryMacros", id: "noCases")
    }
  }
  var severity: DiagnosticSeverity { .error }
}
