/// SQL laid out a clause to a line, as upstream's snapshots show it:
///
/// ```sql
/// SELECT "reminders"."title", "remindersLists"."title"
/// FROM "reminders"
/// JOIN "remindersLists" ON ("reminders"."remindersListID" = "remindersLists"."id")
/// WHERE ("reminders"."id" IN (
///   SELECT "reminderTags"."reminderID"
///   FROM "reminderTags"
/// ))
/// ORDER BY "reminders"."title"
/// ```
///
/// For reading (a fragment's `description`, snapshot tests), never for
/// running: statements run as they were built. A clause keyword starts a
/// line where it stands in the statement itself or in a subquery, never
/// inside another parenthesis (`count(*) FILTER (WHERE …)`,
/// `group_concat(… ORDER BY …)`), a string literal or a quoted name.
/// Subqueries are indented; a trigger's statements too. SQL in lower case
/// (hand-written `#sql`) is left as it is.
enum SQLLayout {
  /// Keywords that start a line, longest first where one begins another.
  fileprivate static let clauses = [
    "LEFT OUTER JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "INNER JOIN", "CROSS JOIN", "JOIN",
    "FROM", "WHERE", "GROUP BY", "HAVING", "ORDER BY", "LIMIT", "SET", "RETURNING",
    "ON CONFLICT", "DO UPDATE SET", "DO NOTHING", "UNION ALL", "UNION", "INTERSECT", "EXCEPT",
    "AFTER", "BEFORE", "INSTEAD OF", "FOR EACH ROW",
  ]
  /// Keywords that start a statement: a line of their own unless the
  /// statement starts there, or they continue a phrase (`AFTER UPDATE OF`,
  /// `ON DELETE CASCADE`, `DEFAULT VALUES`).
  fileprivate static let statements = ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "VALUES"]
  fileprivate static let continuing: Set<String> = ["AFTER", "BEFORE", "OF", "ON", "DO", "DEFAULT", "INSTEAD OF"]

  static func lines(_ sql: String) -> String {
    var layout = Layout(Array(sql))
    layout.run()
    return layout.output
  }

  private struct Layout {
    let characters: [Character]
    var output = ""
    var index = 0
    var indent = 0
    /// For each open parenthesis: whether it holds a subquery (a block).
    var parentheses: [Bool] = []
    /// Parentheses open inside the innermost block (or the statement).
    var inlineDepth = 0
    var savedInlineDepths: [Int] = []
    /// Nothing written yet in this block or after `;`.
    var atStart = true
    /// Inside `INSERT INTO "t"`, before its column list.
    var inInsertHeader = false
    /// The keyword or word written last, with only spaces after it.
    var lastWord = ""

    init(_ characters: [Character]) { self.characters = characters }

    mutating func run() {
      while index < characters.count {
        let character = characters[index]
        switch character {
        case "'", "\"", "`": copyQuoted(closing: character)
        case "(": openParenthesis()
        case ")": closeParenthesis()
        case ";" where inlineDepth == 0: endStatement()
        case _ where character.isLetter && character.isUppercase && isWordStart: word()
        default:
          output.append(character)
          if character != " " { atStart = false; lastWord = "" }
          index += 1
        }
      }
    }

    var isWordStart: Bool {
      index == 0 || [" ", "\n", "("].contains(characters[index - 1])
    }

    mutating func newline() {
      while output.last == " " { output.removeLast() }
      output += "\n" + String(repeating: "  ", count: indent)
    }

    mutating func skipSpaces() {
      while index < characters.count, characters[index] == " " { index += 1 }
    }

    /// A string literal or quoted name, `''` inside it included.
    mutating func copyQuoted(closing: Character) {
      var end = index + 1
      while end < characters.count {
        if characters[end] == closing {
          if end + 1 < characters.count, characters[end + 1] == closing { end += 2; continue }
          break
        }
        end += 1
      }
      output.append(contentsOf: characters[index...min(end, characters.count - 1)])
      index = end + 1
      atStart = false
      lastWord = ""
    }

    mutating func openParenthesis() {
      var next = index + 1
      while next < characters.count, characters[next] == " " { next += 1 }
      if ["SELECT", "WITH", "VALUES"].contains(where: { matches($0, at: next) }) {
        // A subquery: its clauses on lines of their own, indented.
        output.append("(")
        parentheses.append(true)
        savedInlineDepths.append(inlineDepth)
        inlineDepth = 0
        indent += 1
        newline()
        index = next
        atStart = true
      } else {
        if inlineDepth == 0 && inInsertHeader { newline() }
        inInsertHeader = false
        output.append("(")
        parentheses.append(false)
        inlineDepth += 1
        index += 1
        atStart = false
      }
      lastWord = ""
    }

    mutating func closeParenthesis() {
      if parentheses.popLast() == true {
        indent = max(0, indent - 1)
        newline()
        inlineDepth = savedInlineDepths.popLast() ?? 0
      } else {
        inlineDepth = max(0, inlineDepth - 1)
      }
      output.append(")")
      index += 1
      atStart = false
      lastWord = ""
    }

    /// `;` between a trigger's statements, and the `END` after the last.
    mutating func endStatement() {
      output.append(";")
      index += 1
      skipSpaces()
      if matches("END", at: index) {
        indent = max(0, indent - 1)
        newline()
        output += "END"
        index += 3
        lastWord = "END"
      } else if index < characters.count {
        newline()
        atStart = true
        lastWord = ""
      }
    }

    mutating func word() {
      if inlineDepth == 0 {
        if let clause = SQLLayout.clauses.first(where: { matches($0, at: index) }), breaksBefore(clause) {
          if !atStart { newline() }
          emit(clause)
          return
        }
        if let statement = SQLLayout.statements.first(where: { matches($0, at: index) }) {
          let continues = SQLLayout.continuing.contains(lastWord)
          if !atStart && !continues { newline() }
          emit(statement)
          if statement == "INSERT" && !continues { inInsertHeader = true }
          if statement == "VALUES" && !continues {
            inInsertHeader = false
            skipSpaces()
            newline()
            atStart = true
          }
          return
        }
        if matches("BEGIN", at: index) {
          emit("BEGIN")
          indent += 1
          skipSpaces()
          newline()
          atStart = true
          return
        }
      }
      var end = index
      while end < characters.count, characters[end].isLetter || characters[end].isNumber || characters[end] == "_" { end += 1 }
      emit(String(characters[index..<end]))
    }

    func breaksBefore(_ clause: String) -> Bool {
      switch clause {
      case "FROM": lastWord != "DELETE"
      case "SET": lastWord != "DELETE" && lastWord != "UPDATE"  // ON DELETE SET NULL
      case "DO UPDATE SET", "DO NOTHING": lastWord != "ON CONFLICT"
      default: true
      }
    }

    mutating func emit(_ word: String) {
      output += word
      index += word.count
      atStart = false
      lastWord = word
    }

    /// Whether `keyword` is written at `position` as whole words.
    func matches(_ keyword: String, at position: Int) -> Bool {
      let keyword = Array(keyword)
      guard position + keyword.count <= characters.count,
        Array(characters[position..<position + keyword.count]) == keyword
      else { return false }
      let after = position + keyword.count
      return after == characters.count || !(characters[after].isLetter || characters[after].isNumber || characters[after] == "_")
    }
  }
}
