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

        public struct Columns: ChronicleQuery.QueryExpression, ChronicleQuery._NamedColumnList {
          public typealias QueryValue = Stats
          public let queryFragment: ChronicleQuery.QueryFragment
          public let _columnFragments: [ChronicleQuery.QueryFragment]
          public static var _columnNames: [String] {
            [String.columnNames(forProperty: "title"), Count.columnNames(forProperty: "total"), Date?.columnNames(forProperty: "updatedAt")].flatMap {
              $0
            }
          }
          public init(title: some ChronicleQuery.QueryExpression<String>, count: some ChronicleQuery.QueryExpression<Count> = ChronicleQuery.SQLQueryExpression<Count>(value: 0), updatedAt: some ChronicleQuery.QueryExpression<Date?> = ChronicleQuery._NullColumns<Date?>()) {
            self.queryFragment = [title.queryFragment, count.queryFragment, updatedAt.queryFragment].joined(separator: ", ")
            self._columnFragments = [ChronicleQuery._columnFragments(of: title), ChronicleQuery._columnFragments(of: count), ChronicleQuery._columnFragments(of: updatedAt)].flatMap {
              $0
            }
          }
        }

        public typealias Selection = Columns

        private typealias _titleColumnType = String

        private typealias _countColumnType = Count

        private typealias _updatedAtColumnType = Date?
      }

      extension Stats: ChronicleQuery.Selection {
        public init(decoder: inout some ChronicleQuery.QueryDecoder) throws {
        self.title = try decoder.decodeColumns(Self._titleColumnType.self)
        self.count = try decoder.decodeColumns(Self._countColumnType.self)
        self.updatedAt = try decoder.decodeColumns(Self._updatedAtColumnType.self)
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
          Self._titleColumnType.columnNames(forProperty: "title") + Self._countColumnType.columnNames(forProperty: "total") + Self._updatedAtColumnType.columnNames(forProperty: "updatedAt")
        }
        public static func appendColumns(named name: String, of output: Stats, to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
        Self._titleColumnType.appendColumns(named: "title", of: output.title, to: &values)
        Self._countColumnType.appendColumns(named: "total", of: output.count, to: &values)
        Self._updatedAtColumnType.appendColumns(named: "updatedAt", of: output.updatedAt, to: &values)
        }
        public static func appendSelectedColumns(named name: String, of output: Stats, to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
        Self._titleColumnType.appendSelectedColumns(named: "title", of: output.title, to: &values)
        Self._countColumnType.appendSelectedColumns(named: "total", of: output.count, to: &values)
        Self._updatedAtColumnType.appendSelectedColumns(named: "updatedAt", of: output.updatedAt, to: &values)
        }
        public static func jsonObjectValue(named name: String, prefix: String) -> String {
        ChronicleQuery.jsonObjectSQL([("title", Self._titleColumnType.jsonObjectValue(named: "title", prefix: prefix)), ("total", Self._countColumnType.jsonObjectValue(named: "total", prefix: prefix)), ("updatedAt", Self._updatedAtColumnType.jsonObjectValue(named: "updatedAt", prefix: prefix))])
        }
        public func encode(to encoder: inout some ChronicleQuery.QueryEncoder) throws(ChronicleQuery.QueryEncodingError) {
        try encoder.encode(ChronicleQuery._GroupMemberColumn<Self._titleColumnType>("title"), self.title)
        try encoder.encode(ChronicleQuery._GroupMemberColumn<Self._countColumnType>("total"), self.count)
        try encoder.encode(ChronicleQuery._GroupMemberColumn<Self._updatedAtColumnType>("updatedAt"), self.updatedAt)
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

  /// An enum: one case per row, each case's value in columns of its own.
  @Test func enumExpansion() {
    assertMacro {
      """
      @Selection
      enum Kind {
        case note(String)
        case image(picture: Image)
      }
      """
    } expansion: {
      #"""
      enum Kind {
        case note(String)
        case image(picture: Image)
      }

      extension Kind: ChronicleQuery.Selection, ChronicleQuery.EnumSelection {
        public struct Columns: ChronicleQuery.QueryExpression {
          public typealias QueryValue = Kind
          public let queryFragment: ChronicleQuery.QueryFragment
          /// The case `note` holding `value`: its columns, NULL for the other cases'.
          public static func note(_ value: some ChronicleQuery.QueryExpression<String>) -> Columns {
            Columns(queryFragment: ([value.queryFragment] + Image.columnNames(forProperty: "image").map { _ in
                  ChronicleQuery.QueryFragment(sql: "NULL")
                }).joined(separator: ", "))
          }
          /// The case `image` holding `value`: its columns, NULL for the other cases'.
          public static func image(_ value: some ChronicleQuery.QueryExpression<Image>) -> Columns {
            Columns(queryFragment: (String.columnNames(forProperty: "note").map { _ in
                  ChronicleQuery.QueryFragment(sql: "NULL")
                } + [value.queryFragment]).joined(separator: ", "))
          }
        }
        public typealias Selection = Columns
        /// The value of the case `note`, nil for another case.
        public var note: String? {
          if case .note(let value) = self {
            return value
          }
          return nil
        }
        /// The value of the case `image`, nil for another case.
        public var image: Image? {
          if case .image(let value) = self {
            return value
          }
          return nil
        }
        public init(decoder: inout some ChronicleQuery.QueryDecoder) throws {
          let start = decoder
          let noteValue = try decoder.decodeColumns(String?.self)
          let imageValue = try decoder.decodeColumns(Image?.self)
          if let noteValue {
            self = .note(noteValue)
          } else if let imageValue {
            self = .image(picture: imageValue)
          } else {
            throw start.noCase(of: "Kind", cases: ["note", "image"])
          }
        }
        public static func columnName(of keyPath: PartialKeyPath<Kind>) -> String? {
          if keyPath == \Kind.note {
            return "note"
          }
        if keyPath == \Kind.image {
            return "image"
          }
          return nil
        }
        public static func columnNames(forProperty name: String) -> [String] {
          String.columnNames(forProperty: "note") + Image.columnNames(forProperty: "image")
        }
        public static func appendColumns(named name: String, of output: Kind, to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
          String?.appendColumns(named: "note", of: output.note, to: &values)
          Image?.appendColumns(named: "image", of: output.image, to: &values)
        }
      }
      """#
    }
  }

  @Test func enumCasesMustEachHoldOneValue() {
    assertMacro {
      """
      @Selection
      enum Kind {
        case none
        case pair(String, Int)
        case note(String)
      }
      """
    } diagnostics: {
      """
      @Selection
      enum Kind {
        case none
             ┬───
             ╰─ 🛑 case 'none' must hold exactly one value (its column, or a @Selection struct's columns): write 'case none(Value)'
        case pair(String, Int)
             ┬────────────────
             ╰─ 🛑 case 'pair' must hold exactly one value (its column, or a @Selection struct's columns): write 'case pair(Value)'
        case note(String)
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

  /// A default naming a static property of the model (`Self.epoch`,
  /// `Launch.limit`) takes the type that property declares or is
  /// initialized with. (One naming another type's static, `Palette.blue`,
  /// still needs its type spelled: `unsupportedAndUninferableTypesAreRefused`.)
  @Test func defaultsNamingTheModelsStaticsTakeTheirTypes() {
    assertMacro {
      """
      @Selection
      struct Launch {
        static let epoch = Date(timeIntervalSince1970: 42)
        static var limit: Int { 3 }
        var startsAt = Self.epoch
        var cap = Launch.limit
      }
      """
    } expansion: {
      #"""
      struct Launch {
        static let epoch = Date(timeIntervalSince1970: 42)
        static var limit: Int { 3 }
        var startsAt = Self.epoch
        var cap = Launch.limit

        public struct Columns: ChronicleQuery.QueryExpression, ChronicleQuery._NamedColumnList {
          public typealias QueryValue = Launch
          public let queryFragment: ChronicleQuery.QueryFragment
          public let _columnFragments: [ChronicleQuery.QueryFragment]
          public static var _columnNames: [String] {
            [Date.columnNames(forProperty: "startsAt"), Int.columnNames(forProperty: "cap")].flatMap {
              $0
            }
          }
          public init(startsAt: some ChronicleQuery.QueryExpression<Date> = ChronicleQuery.SQLQueryExpression<Date>(value: Launch.epoch), cap: some ChronicleQuery.QueryExpression<Int> = ChronicleQuery.SQLQueryExpression<Int>(value: Launch.limit)) {
            self.queryFragment = [startsAt.queryFragment, cap.queryFragment].joined(separator: ", ")
            self._columnFragments = [ChronicleQuery._columnFragments(of: startsAt), ChronicleQuery._columnFragments(of: cap)].flatMap {
              $0
            }
          }
        }

        public typealias Selection = Columns

        private typealias _startsAtColumnType = Date

        private typealias _capColumnType = Int
      }

      extension Launch: ChronicleQuery.Selection {
        public init(decoder: inout some ChronicleQuery.QueryDecoder) throws {
        self.startsAt = try decoder.decodeColumns(Self._startsAtColumnType.self)
        self.cap = try decoder.decodeColumns(Self._capColumnType.self)
        }
        public static func columnName(of keyPath: PartialKeyPath<Launch>) -> String? {
          if keyPath == \Launch.startsAt {
            return "startsAt"
          }
        if keyPath == \Launch.cap {
            return "cap"
          }
          return nil
        }
        public static func columnNames(forProperty name: String) -> [String] {
          Self._startsAtColumnType.columnNames(forProperty: "startsAt") + Self._capColumnType.columnNames(forProperty: "cap")
        }
        public static func appendColumns(named name: String, of output: Launch, to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
        Self._startsAtColumnType.appendColumns(named: "startsAt", of: output.startsAt, to: &values)
        Self._capColumnType.appendColumns(named: "cap", of: output.cap, to: &values)
        }
        public static func appendSelectedColumns(named name: String, of output: Launch, to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
        Self._startsAtColumnType.appendSelectedColumns(named: "startsAt", of: output.startsAt, to: &values)
        Self._capColumnType.appendSelectedColumns(named: "cap", of: output.cap, to: &values)
        }
        public static func jsonObjectValue(named name: String, prefix: String) -> String {
        ChronicleQuery.jsonObjectSQL([("startsAt", Self._startsAtColumnType.jsonObjectValue(named: "startsAt", prefix: prefix)), ("cap", Self._capColumnType.jsonObjectValue(named: "cap", prefix: prefix))])
        }
        public func encode(to encoder: inout some ChronicleQuery.QueryEncoder) throws(ChronicleQuery.QueryEncodingError) {
        try encoder.encode(ChronicleQuery._GroupMemberColumn<Self._startsAtColumnType>("startsAt"), self.startsAt)
        try encoder.encode(ChronicleQuery._GroupMemberColumn<Self._capColumnType>("cap"), self.cap)
        }
      }
      """#
    }
  }
}
