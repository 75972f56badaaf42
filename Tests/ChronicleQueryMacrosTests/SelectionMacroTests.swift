import ChronicleQueryMacros
import MacroTesting
import Testing

@Suite("@Selection macro", .macros(["Selection": SelectionMacro.self, "Column": ColumnMacro.self, "Ephemeral": EphemeralMacro.self]))
struct SelectionMacroTests {
  @Test func expansion() {
    assertMacro {
      """
      @Selection
      struct Stats {
        var title: String
        @Column("total", as: Count.self) var count = 0
        var updatedAt: Date?
        @Ephemeral var isExpanded = false
        var label: String { title }
      }
      """
    } expansion: {
      #"""
      struct Stats {
        var title: String
        var count = 0
        var updatedAt: Date?
        var isExpanded = false
        var label: String { title }
      }

      extension Stats: ChronicleQuery.Selection {
        public struct Columns: ChronicleQuery.QueryExpression {
          public typealias QueryValue = Stats
          public let queryFragment: ChronicleQuery.QueryFragment
          public init(title: some ChronicleQuery.QueryExpression<String>, count: some ChronicleQuery.QueryExpression<Count>, updatedAt: some ChronicleQuery.QueryExpression<Date?>) {
            self.queryFragment = [title.queryFragment, count.queryFragment, updatedAt.queryFragment].joined(separator: ", ")
          }
        }
        public init(decoder: inout ChronicleQuery.QueryDecoder) throws {
        self.title = try decoder.decode(String.self).queryOutput
        self.count = try decoder.decode(Count.self).queryOutput
        self.updatedAt = try decoder.decode(Date?.self).queryOutput
        }
        public static func columnName(of keyPath: PartialKeyPath<Stats>) -> String? {
          if keyPath == \Stats.title {
            return "title"
          }
        if keyPath == \Stats.count {
            return "total"
          }
        if keyPath == \Stats.updatedAt {
            return "updatedAt"
          }
          return nil
        }
        public static func columnNames(forProperty name: String) -> [String] {
          String.columnNames(forProperty: "title") + Count.columnNames(forProperty: "total") + Date?.columnNames(forProperty: "updatedAt")
        }
        public static func appendColumns(named name: String, of output: Stats, to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
        String.appendColumns(named: "title", of: output.title, to: &values)
        Count.appendColumns(named: "total", of: output.count, to: &values)
        Date?.appendColumns(named: "updatedAt", of: output.updatedAt, to: &values)
        }
      }
      """#
    }
  }

  /// Beside `@Table` (which already reads and writes rows), only `Columns`
  /// and the key path lookup are added: a table type that queries can also
  /// build (common tables, views).
  @Test func besideTable() {
    assertMacro {
      """
      @Table @Selection
      struct CommentThread {
        let id: Int
        var depth: Int
      }
      """
    } expansion: {
      #"""
      @Table
      struct CommentThread {
        let id: Int
        var depth: Int
      }

      extension CommentThread: ChronicleQuery.Selection {
        public static func columnName(of keyPath: PartialKeyPath<CommentThread>) -> String? {
          if keyPath == \CommentThread.id {
            return "id"
          }
        if keyPath == \CommentThread.depth {
            return "depth"
          }
          return nil
        }
      }
      """#
    }
  }

  @Test func enumsAreRefused() {
    assertMacro {
      """
      @Selection
      enum Kind {
        case link(String)
      }
      """
    } diagnostics: {
      """
      @Selection
      ┬─────────
      ╰─ 🛑 @Selection applies to a struct, not an enum (enum selections are not supported yet): rows are values
      enum Kind {
        case link(String)
      }
      """
    }
  }

  @Test func untypedPropertiesAreRefused() {
    assertMacro {
      """
      @Selection
      struct Row {
        var title = makeTitle()
        var tags: [String]
      }
      """
    } diagnostics: {
      """
      @Selection
      struct Row {
        var title = makeTitle()
            ┬──────────────────
            ╰─ 🛑 cannot tell the column type of 'title': add a type annotation
        var tags: [String]
            ┬─────────────
            ╰─ 🛑 'tags' is an array ('[String]'), which no column can hold: store it as JSON with '@Column(as: [String].JSONRepresentation.self)', or mark it '@Ephemeral'
      }
      """
    }
  }
}
