import ChronicleQueryMacros
import MacroTesting
import Testing

@Suite("@DatabaseCollation macro", .macros(["DatabaseCollation": DatabaseCollationMacro.self]))
struct DatabaseCollationMacroTests {
  @Test func globalFunction() {
    assertMacro {
      """
      @DatabaseCollation
      func reversed(_ lhs: String, _ rhs: String) -> CollationOrder {
        CollationOrder(rhs, lhs)
      }
      """
    } expansion: {
      """
      func reversed(_ lhs: String, _ rhs: String) -> CollationOrder {
        CollationOrder(rhs, lhs)
      }

      let $reversed = ChronicleQuery._databaseCollation("reversed") { lhs, rhs in
        reversed(lhs, rhs)
      }
      """
    }
  }

  @Test func staticMethodWithANameAndLabels() {
    assertMacro {
      """
      enum Collations {
        @DatabaseCollation("case_insensitive")
        public static func caseInsensitive(left lhs: String, right rhs: String) -> CollationOrder {
          CollationOrder(lhs.lowercased(), rhs.lowercased())
        }
      }
      """
    } expansion: {
      """
      enum Collations {
        public static func caseInsensitive(left lhs: String, right rhs: String) -> CollationOrder {
          CollationOrder(lhs.lowercased(), rhs.lowercased())
        }

        public static let $caseInsensitive = ChronicleQuery._databaseCollation("case_insensitive") { lhs, rhs in
          caseInsensitive(left: lhs, right: rhs)
        }
      }
      """
    }
  }

  @Test func instanceMethod() {
    assertMacro {
      """
      final class Engine {
        @DatabaseCollation("engine_reversed")
        func reversed(_ lhs: String, _ rhs: String) -> CollationOrder {
          CollationOrder(rhs, lhs)
        }
      }
      """
    } expansion: {
      """
      final class Engine {
        func reversed(_ lhs: String, _ rhs: String) -> CollationOrder {
          CollationOrder(rhs, lhs)
        }

        var $reversed: GRDB.DatabaseCollation {
          ChronicleQuery._databaseCollation("engine_reversed", owner: self) { owner, lhs, rhs in
            owner.reversed(lhs, rhs)
          }
        }
      }
      """
    }
  }

  @Test func misuseIsNamed() {
    assertMacro {
      """
      @DatabaseCollation
      func chronological(_ lhs: Date, _ rhs: Date) throws -> CollationOrder {
        CollationOrder(lhs, rhs)
      }
      struct Engine {
        @DatabaseCollation
        func compare(_ lhs: String, _ rhs: String) -> Bool {
          lhs < rhs
        }
      }
      """
    } diagnostics: {
      """
      @DatabaseCollation
      func chronological(_ lhs: Date, _ rhs: Date) throws -> CollationOrder {
                                                   ┬─────
                        │                          ╰─ 🛑 @DatabaseCollation functions cannot throw: SQLite has no way to fail a comparison, and a collating sequence must order every pair of texts; remove 'throws'
                        ┬─────────────────────────
                        ╰─ 🛑 @DatabaseCollation functions take two 'String' arguments: SQLite calls a collating sequence with the two texts it compares
        CollationOrder(lhs, rhs)
      }
      struct Engine {
        @DatabaseCollation
        func compare(_ lhs: String, _ rhs: String) -> Bool {
                                                   ┬──────
                                                   ╰─ 🛑 @DatabaseCollation functions return 'CollationOrder' (.ascending, .same or .descending)
          lhs < rhs
        }
      }
      """
    }
  }
}
