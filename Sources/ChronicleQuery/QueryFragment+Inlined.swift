extension QueryFragment {
  /// The SQL with every bound value written in place as a literal, for the
  /// statements SQLite does not let bind values: `CREATE VIEW` and
  /// `CREATE TRIGGER` bodies.
  ///
  /// Only `?` outside string literals, quoted identifiers and comments are
  /// placeholders, as SQLite reads them.
  public var inlinedSQL: String {
    var result = ""
    result.reserveCapacity(sql.utf8.count)
    var values = bindings.makeIterator()
    var characters = sql.makeIterator()
    var closing: Character?  // the quote or comment end being read
    var previous: Character?
    while let character = characters.next() {
      defer { previous = character }
      if let end = closing {
        result.append(character)
        if end == "\n" || end == "]" || end == "'" || end == "\"" || end == "`" {
          if character == end { closing = nil }
        } else if end == "/", character == "/", previous == "*" {
          closing = nil
        }
        continue
      }
      switch character {
      case "'", "\"", "`": closing = character
      case "[": closing = "]"
      case "-" where previous == "-": closing = "\n"
      case "*" where previous == "/": closing = "/"
      case "?":
        if let value = values.next() {
          result += value.sqlLiteral
          continue
        }
      default: break
      }
      result.append(character)
    }
    return result
  }
}
