import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `#sql("...")`: SQL text with bound interpolations, checked for the
/// mistakes a compiler can see (unbalanced quotes and parentheses, `?`
/// placeholders that nothing would bind, interpolations inside quotes).
public enum SQLMacro: ExpressionMacro {
  public static func expansion(
    of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
  ) throws -> ExprSyntax {
    if let literal = node.arguments.first?.expression.as(StringLiteralExprSyntax.self) {
      for problem in SQLTextCheck.problems(in: literal) {
        context.diagnose(Diagnostic(node: problem.node, message: problem.message))
      }
    }
    // The text is made a QueryFragment by name: left to inference, a
    // literal where the context wants a String expression would be taken
    // as a String value and bound as text.
    var arguments = node.arguments
    if let first = arguments.first, first.expression.is(StringLiteralExprSyntax.self) {
      var fragment = first
      fragment.expression = "ChronicleQuery.QueryFragment(\(first.expression.trimmed))"
      arguments = LabeledExprListSyntax([fragment] + Array(arguments.dropFirst()))
    }
    return "ChronicleQuery.SQLQueryExpression(\(arguments))"
  }
}

enum SQLDiagnostic: DiagnosticMessage {
  case unterminated(Character)
  case unbalancedParentheses(Int)
  case placeholder
  case interpolationInQuotes

  var message: String {
    switch self {
    case .unterminated(let quote):
      return "#sql: unterminated \(quote == "'" ? "string literal" : "quoted identifier") (\(quote)...); close it with \(quote)"
    case .unbalancedParentheses(let depth):
      return depth > 0
        ? "#sql: \(depth) unclosed '('; add the missing ')'"
        : "#sql: \(-depth) ')' without a matching '('; remove it or add the '('"
    case .placeholder:
      return "#sql: '?' placeholders are not bound; interpolate the value instead: \\(value)"
    case .interpolationInQuotes:
      return "#sql: an interpolation inside quotes binds nothing (the quotes make it text); move it out of the quotes, or use \\(raw:) for text"
    }
  }

  var diagnosticID: MessageID {
    let id: String
    switch self {
    case .unterminated: id = "sqlUnterminated"
    case .unbalancedParentheses: id = "sqlParentheses"
    case .placeholder: id = "sqlPlaceholder"
    case .interpolationInQuotes: id = "sqlInterpolationInQuotes"
    }
    return MessageID(domain: "ChronicleQueryMacros", id: id)
  }

  var severity: DiagnosticSeverity { .error }
}

/// Scans the SQL of a string literal the way SQLite's tokenizer would,
/// treating interpolations as single tokens.
struct SQLTextCheck {
  struct Problem {
    var node: Syntax
    var message: SQLDiagnostic
  }

  private enum State { case code, single, double, bracket, backtick, lineComment, blockComment }

  static func problems(in literal: StringLiteralExprSyntax) -> [Problem] {
    let escapes = literal.openingPounds == nil
    var problems: [Problem] = []
    var state = State.code
    var depth = 0
    var previous: Character = " "
    for segment in literal.segments {
      if let interpolation = segment.as(ExpressionSegmentSyntax.self) {
        let isRaw = interpolation.expressions.first?.label?.text == "raw"
        if !isRaw, [.single, .double, .bracket, .backtick].contains(state) {
          problems.append(Problem(node: Syntax(interpolation), message: .interpolationInQuotes))
        }
        previous = " "
        continue
      }
      guard let text = segment.as(StringSegmentSyntax.self) else { continue }
      for character in decoded(text.content.text, escapes: escapes) {
        defer { previous = character }
        switch state {
        case .code:
          switch character {
          case "'": state = .single
          case "\"": state = .double
          case "[": state = .bracket
          case "`": state = .backtick
          case "(": depth += 1
          case ")": depth -= 1
          case "?": problems.append(Problem(node: Syntax(text), message: .placeholder))
          case "-" where previous == "-": state = .lineComment
          case "*" where previous == "/": state = .blockComment
          default: break
          }
        case .single: if character == "'" { state = .code }
        case .double: if character == "\"" { state = .code }
        case .bracket: if character == "]" { state = .code }
        case .backtick: if character == "`" { state = .code }
        case .lineComment: if character == "\n" { state = .code }
        case .blockComment: if character == "/", previous == "*" { state = .code }
        }
      }
    }
    // A doubled quote ('it''s') closes and reopens: the scan above handles it.
    switch state {
    case .single: problems.append(Problem(node: Syntax(literal), message: .unterminated("'")))
    case .double: problems.append(Problem(node: Syntax(literal), message: .unterminated("\"")))
    default: break
    }
    if depth != 0 { problems.append(Problem(node: Syntax(literal), message: .unbalancedParentheses(depth))) }
    return problems
  }

  /// The characters a literal segment stands for (`\"` is `"`).
  private static func decoded(_ source: String, escapes: Bool) -> [Character] {
    guard escapes else { return Array(source) }
    var result: [Character] = []
    var iterator = source.makeIterator()
    while let character = iterator.next() {
      guard character == "\\", let escaped = iterator.next() else {
        result.append(character)
        continue
      }
      switch escaped {
      case "n": result.append("\n")
      case "t": result.append("\t")
      case "0": result.append("\0")
      default: result.append(escaped)  // \" \' \\ and, harmlessly, \u{...}'s first character
      }
    }
    return result
  }
}
