/// How ``QueryFragment/init(quote:delimiter:)`` and the `\(quote:delimiter:)`
/// interpolation quote text: as an identifier (`"reminders"`) or as a text
/// literal (`'reminders'`, for a table-valued function's argument).
public enum QuoteDelimiter: String, Sendable {
  case identifier = "\""
  case text = "'"

  /// `text` between this delimiter, the delimiter inside it doubled.
  func quote(_ text: String) -> String {
    switch self {
    case .identifier:
      return quotedIdentifier(text)
    case .text:
      return QueryBinding.text(text).sqlLiteral
    }
  }
}

extension QueryFragment {
  /// `text` quoted as SQL: `QueryFragment(quote: "reminders")` is
  /// `"reminders"`, with `delimiter: .text` `'reminders'`.
  public init(quote text: String, delimiter: QuoteDelimiter = .identifier) {
    self.init(sql: delimiter.quote(text))
  }
}
