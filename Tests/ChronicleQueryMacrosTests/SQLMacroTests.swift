import ChronicleQueryMacros
import MacroTesting
import Testing

@Suite("#sql macro", .macros(["sql": SQLMacro.self]))
struct SQLMacroTests {
  @Test func expansionPassesTheArgumentsThrough() {
    assertMacro {
      #"""
      #sql("coalesce(date(\(dueDate)) < date(\(now)), 0)", as: Bool.self)
      """#
    } expansion: {
      #"""
      ChronicleQuery.SQLQueryExpression(ChronicleQuery.QueryFragment("coalesce(date(\(dueDate)) < date(\(now)), 0)"), as: Bool.self)
      """#
    }
  }

  @Test func wellFormedSQLHasNoDiagnostics() {
    assertMacro {
      #"""
      #sql("""
        SELECT "it's" FROM t -- a comment with ' and ?
        WHERE x = 'a ? b' AND y = '\(raw: name)' /* ( */
        """)
      """#
    } expansion: {
      #"""
      ChronicleQuery.SQLQueryExpression(ChronicleQuery.QueryFragment("""
        SELECT "it's" FROM t -- a comment with ' and ?
        WHERE x = 'a ? b' AND y = '\(raw: name)' /* ( */
        """))
      """#
    }
  }

  @Test func placeholdersAreRefused() {
    assertMacro {
      #"""
      #sql("SELECT * FROM items WHERE price > ?")
      """#
    } diagnostics: {
      #"""
      #sql("SELECT * FROM items WHERE price > ?")
            ┬──────────────────────────────────
            ╰─ 🛑 #sql: '?' placeholders are not bound; interpolate the value instead: \(value)
      """#
    }
  }

  @Test func interpolationInsideQuotesIsRefused() {
    assertMacro {
      #"""
      #sql("SELECT * FROM items WHERE title = '\(title)'")
      """#
    } diagnostics: {
      #"""
      #sql("SELECT * FROM items WHERE title = '\(title)'")
                                               ┬───────
                                               ╰─ 🛑 #sql: an interpolation inside quotes binds nothing (the quotes make it text); move it out of the quotes, or use \(raw:) for text
      """#
    }
  }

  @Test func unbalancedQuotesAndParenthesesAreRefused() {
    assertMacro {
      #"""
      #sql("SELECT coalesce((price, 0) FROM items WHERE title = 'milk")
      """#
    } diagnostics: {
      """
      #sql("SELECT coalesce((price, 0) FROM items WHERE title = 'milk")
           ┬──────────────────────────────────────────────────────────
           ├─ 🛑 #sql: unterminated string literal ('...); close it with '
           ╰─ 🛑 #sql: 1 unclosed '('; add the missing ')'
      """
    }
  }
}
