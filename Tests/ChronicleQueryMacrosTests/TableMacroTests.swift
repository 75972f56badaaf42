import ChronicleQueryMacros
import MacroTesting
import Testing

@Suite("@Table macro", .macros(["Table": TableMacro.self, "Column": ColumnMacro.self, "Columns": ColumnMacro.self, "Ephemeral": EphemeralMacro.self]))
struct TableMacroTests {
  @Test func aClassIsRefusedWithAFixIt() {
    assertMacro {
      """
      @Table
      class Item {
        let id: Int
      }
      """
    } diagnostics: {
      """
      @Table
      class Item {
      ┬────
      ╰─ 🛑 @Table applies to a struct, not a class: rows are values
         ✏️ Replace 'class' with 'struct'
        let id: Int
      }
      """
    } fixes: {
      """
      @Table
      struct Item {
        let id: Int
      }
      """
    } expansion: {
      #"""
      struct Item {
        let id: Int

        public static let tableName = "items"

        public struct TableColumns: ChronicleQuery.PrimaryKeyedTableDefinition {
          public typealias QueryValue = Item
          public typealias PrimaryKey = Int
          public let id: ChronicleQuery.TableColumn<Item, Int>
          public let _qualifier: String
          public init(qualifier: String) {
            self._qualifier = qualifier
            self.id = ChronicleQuery.TableColumn("id", qualifier: qualifier, keyPath: \Item.id)
          }
          public var primaryKey: ChronicleQuery.TableColumn<Item, Int> {
            id
          }
          public var queryFragment: ChronicleQuery.QueryFragment {
            [id.queryFragment].joined(separator: ", ")
          }
          public static var allColumns: [any ChronicleQuery.TableColumnExpression<Item>] {
            let columns = TableColumns(qualifier: Item.tableName)
            return [columns.id]
          }
        }

        public struct Columns: ChronicleQuery.QueryExpression, ChronicleQuery._NamedColumnList {
          public typealias QueryValue = Item
          public let queryFragment: ChronicleQuery.QueryFragment
          public let _columnFragments: [ChronicleQuery.QueryFragment]
          public static var _columnNames: [String] {
            [Int.columnNames(forProperty: "id")].flatMap {
              $0
            }
          }
          public init(id: some ChronicleQuery.QueryExpression<Int>) {
            self.queryFragment = [id.queryFragment].joined(separator: ", ")
            self._columnFragments = [ChronicleQuery._columnFragments(of: id)].flatMap {
              $0
            }
          }
        }

        public typealias Selection = Columns

        public static let columns = TableColumns(qualifier: tableName)

        public struct Draft: ChronicleQuery.TableRowDraft {
          public typealias Base = Item
          public struct Columns: ChronicleQuery.QueryExpression, ChronicleQuery._NamedColumnList {
            public typealias QueryValue = Draft
            public let queryFragment: ChronicleQuery.QueryFragment
            public let _columnFragments: [ChronicleQuery.QueryFragment]
            public static var _columnNames: [String] {
              [Int?.columnNames(forProperty: "id")].flatMap {
                $0
              }
            }
            public init(id: some ChronicleQuery.QueryExpression<Int?> = ChronicleQuery._NullColumns<Int?>()) {
              self.queryFragment = [id.queryFragment].joined(separator: ", ")
              self._columnFragments = [ChronicleQuery._columnFragments(of: id)].flatMap {
                $0
              }
            }
          }
          public var id: Int?
          public init(id: Int? = nil) {
            self.id = id
          }
          public init(_ row: Item) {
            self.id = row.id
          }
          public var insertValues: [(column: String, value: ChronicleQuery.QueryBinding)] {
            var values: [(column: String, value: ChronicleQuery.QueryBinding)] = []
            if let id {
              Int.appendColumns(named: "id", of: id, to: &values)
            }
            return values
          }
        }
      }

      extension Item: ChronicleQuery.Table, ChronicleQuery.PrimaryKeyedTable {
        public init(decoder: inout some ChronicleQuery.QueryDecoder) throws {
        self.id = try decoder.decodeColumn(Self.columns.id)
        }
        public static func appendColumns(named name: String, of output: Item, to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
        ChronicleQuery.TableColumn.appendColumns(as: Self.columns.id, named: "id", of: output.id, to: &values)
        }
      }
      """#
    }
  }

  /// A join table or a log has no primary key: it is a plain `Table`
  /// (select, insert, delete by condition) with no `Draft` and no `find`.
  /// `schema:` alone keeps the default table name and adds `schemaName`.
  @Test func aSchemaNamedWithoutATableName() {
    assertMacro {
      """
      @Table(schema: "temp")
      struct Scratch {
        var note: String
      }
      """
    } expansion: {
      #"""
      struct Scratch {
        var note: String

        public static let tableName = "scratches"

        public static let schemaName: String? = "temp"

        public struct TableColumns: ChronicleQuery.TableDefinition {
          public typealias QueryValue = Scratch
          public let note: ChronicleQuery.TableColumn<Scratch, String>
          public let _qualifier: String
          public init(qualifier: String) {
            self._qualifier = qualifier
            self.note = ChronicleQuery.TableColumn("note", qualifier: qualifier, keyPath: \Scratch.note)
          }
          public var queryFragment: ChronicleQuery.QueryFragment {
            [note.queryFragment].joined(separator: ", ")
          }
          public static var allColumns: [any ChronicleQuery.TableColumnExpression<Scratch>] {
            let columns = TableColumns(qualifier: Scratch.tableName)
            return [columns.note]
          }
        }

        public struct Columns: ChronicleQuery.QueryExpression, ChronicleQuery._NamedColumnList {
          public typealias QueryValue = Scratch
          public let queryFragment: ChronicleQuery.QueryFragment
          public let _columnFragments: [ChronicleQuery.QueryFragment]
          public static var _columnNames: [String] {
            [String.columnNames(forProperty: "note")].flatMap {
              $0
            }
          }
          public init(note: some ChronicleQuery.QueryExpression<String>) {
            self.queryFragment = [note.queryFragment].joined(separator: ", ")
            self._columnFragments = [ChronicleQuery._columnFragments(of: note)].flatMap {
              $0
            }
          }
        }

        public typealias Selection = Columns

        public static let columns = TableColumns(qualifier: tableName)
      }

      extension Scratch: ChronicleQuery.Table {
        public init(decoder: inout some ChronicleQuery.QueryDecoder) throws {
        self.note = try decoder.decodeColumn(Self.columns.note)
        }
        public static func appendColumns(named name: String, of output: Scratch, to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
        ChronicleQuery.TableColumn.appendColumns(as: Self.columns.note, named: "note", of: output.note, to: &values)
        }
      }
      """#
    }
  }

  @Test func aStructWithoutPrimaryKeyIsAPlainTable() {
    assertMacro {
      """
      @Table
      struct ReminderTag {
        var reminderID: Int
        var tagID: Int
      }
      """
    } expansion: {
      #"""
      struct ReminderTag {
        var reminderID: Int
        var tagID: Int

        public static let tableName = "reminderTags"

        public struct TableColumns: ChronicleQuery.TableDefinition {
          public typealias QueryValue = ReminderTag
          public let reminderID: ChronicleQuery.TableColumn<ReminderTag, Int>
          public let tagID: ChronicleQuery.TableColumn<ReminderTag, Int>
          public let _qualifier: String
          public init(qualifier: String) {
            self._qualifier = qualifier
            self.reminderID = ChronicleQuery.TableColumn("reminderID", qualifier: qualifier, keyPath: \ReminderTag.reminderID)
            self.tagID = ChronicleQuery.TableColumn("tagID", qualifier: qualifier, keyPath: \ReminderTag.tagID)
          }
          public var queryFragment: ChronicleQuery.QueryFragment {
            [reminderID.queryFragment, tagID.queryFragment].joined(separator: ", ")
          }
          public static var allColumns: [any ChronicleQuery.TableColumnExpression<ReminderTag>] {
            let columns = TableColumns(qualifier: ReminderTag.tableName)
            return [columns.reminderID, columns.tagID]
          }
        }

        public struct Columns: ChronicleQuery.QueryExpression, ChronicleQuery._NamedColumnList {
          public typealias QueryValue = ReminderTag
          public let queryFragment: ChronicleQuery.QueryFragment
          public let _columnFragments: [ChronicleQuery.QueryFragment]
          public static var _columnNames: [String] {
            [Int.columnNames(forProperty: "reminderID"), Int.columnNames(forProperty: "tagID")].flatMap {
              $0
            }
          }
          public init(reminderID: some ChronicleQuery.QueryExpression<Int>, tagID: some ChronicleQuery.QueryExpression<Int>) {
            self.queryFragment = [reminderID.queryFragment, tagID.queryFragment].joined(separator: ", ")
            self._columnFragments = [ChronicleQuery._columnFragments(of: reminderID), ChronicleQuery._columnFragments(of: tagID)].flatMap {
              $0
            }
          }
        }

        public typealias Selection = Columns

        public static let columns = TableColumns(qualifier: tableName)
      }

      extension ReminderTag: ChronicleQuery.Table {
        public init(decoder: inout some ChronicleQuery.QueryDecoder) throws {
        self.reminderID = try decoder.decodeColumn(Self.columns.reminderID)
        self.tagID = try decoder.decodeColumn(Self.columns.tagID)
        }
        public static func appendColumns(named name: String, of output: ReminderTag, to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
        ChronicleQuery.TableColumn.appendColumns(as: Self.columns.reminderID, named: "reminderID", of: output.reminderID, to: &values)
        ChronicleQuery.TableColumn.appendColumns(as: Self.columns.tagID, named: "tagID", of: output.tagID, to: &values)
        }
      }
      """#
    }
  }

  /// A generic struct has no static storage: its table name and columns
  /// are computed, and its extension names it `Self`.
  @Test func aGenericStructComputesItsStatics() {
    assertMacro {
      """
      @Table
      struct ColumnInfo<Base: Table> {
        let name: String
      }
      """
    } expansion: {
      #"""
      struct ColumnInfo<Base: Table> {
        let name: String

        public static var tableName: String {
          "columnInfos"
        }

        public struct TableColumns: ChronicleQuery.TableDefinition {
          public typealias QueryValue = ColumnInfo
          public let name: ChronicleQuery.TableColumn<ColumnInfo, String>
          public let _qualifier: String
          public init(qualifier: String) {
            self._qualifier = qualifier
            self.name = ChronicleQuery.TableColumn("name", qualifier: qualifier, keyPath: \ColumnInfo.name)
          }
          public var queryFragment: ChronicleQuery.QueryFragment {
            [name.queryFragment].joined(separator: ", ")
          }
          public static var allColumns: [any ChronicleQuery.TableColumnExpression<ColumnInfo>] {
            let columns = TableColumns(qualifier: ColumnInfo.tableName)
            return [columns.name]
          }
        }

        public struct Columns: ChronicleQuery.QueryExpression, ChronicleQuery._NamedColumnList {
          public typealias QueryValue = ColumnInfo
          public let queryFragment: ChronicleQuery.QueryFragment
          public let _columnFragments: [ChronicleQuery.QueryFragment]
          public static var _columnNames: [String] {
            [String.columnNames(forProperty: "name")].flatMap {
              $0
            }
          }
          public init(name: some ChronicleQuery.QueryExpression<String>) {
            self.queryFragment = [name.queryFragment].joined(separator: ", ")
            self._columnFragments = [ChronicleQuery._columnFragments(of: name)].flatMap {
              $0
            }
          }
        }

        public typealias Selection = Columns

        public static var columns: TableColumns {
          TableColumns(qualifier: tableName)
        }
      }

      extension ColumnInfo: ChronicleQuery.Table {
        public init(decoder: inout some ChronicleQuery.QueryDecoder) throws {
        self.name = try decoder.decodeColumn(Self.columns.name)
        }
        public static func appendColumns(named name: String, of output: Self, to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
        ChronicleQuery.TableColumn.appendColumns(as: Self.columns.name, named: "name", of: output.name, to: &values)
        }
      }
      """#
    }
  }

  /// `@Columns`, StructuredQueries' older name for `@Column`, reads the same
  /// options: here the primary key.
  @Test func theOlderColumnsSpellingIsColumn() {
    assertMacro {
      """
      @Table
      struct Tag {
        @Columns(primaryKey: true) var title: String
        var uses = 0
      }
      """
    } expansion: {
      #"""
      struct Tag {
        var title: String
        var uses = 0

        public static let tableName = "tags"

        public struct TableColumns: ChronicleQuery.PrimaryKeyedTableDefinition {
          public typealias QueryValue = Tag
          public typealias PrimaryKey = String
          public let title: ChronicleQuery.TableColumn<Tag, String>
          public let uses: ChronicleQuery.TableColumn<Tag, Int>
          public let _qualifier: String
          public init(qualifier: String) {
            self._qualifier = qualifier
            self.title = ChronicleQuery.TableColumn("title", qualifier: qualifier, keyPath: \Tag.title)
            self.uses = ChronicleQuery.TableColumn("uses", qualifier: qualifier, keyPath: \Tag.uses)
          }
          public var primaryKey: ChronicleQuery.TableColumn<Tag, String> {
            title
          }
          public var queryFragment: ChronicleQuery.QueryFragment {
            [title.queryFragment, uses.queryFragment].joined(separator: ", ")
          }
          public static var allColumns: [any ChronicleQuery.TableColumnExpression<Tag>] {
            let columns = TableColumns(qualifier: Tag.tableName)
            return [columns.title, columns.uses]
          }
        }

        public struct Columns: ChronicleQuery.QueryExpression, ChronicleQuery._NamedColumnList {
          public typealias QueryValue = Tag
          public let queryFragment: ChronicleQuery.QueryFragment
          public let _columnFragments: [ChronicleQuery.QueryFragment]
          public static var _columnNames: [String] {
            [String.columnNames(forProperty: "title"), Int.columnNames(forProperty: "uses")].flatMap {
              $0
            }
          }
          public init(title: some ChronicleQuery.QueryExpression<String>, uses: some ChronicleQuery.QueryExpression<Int> = ChronicleQuery.SQLQueryExpression<Int>(value: 0)) {
            self.queryFragment = [title.queryFragment, uses.queryFragment].joined(separator: ", ")
            self._columnFragments = [ChronicleQuery._columnFragments(of: title), ChronicleQuery._columnFragments(of: uses)].flatMap {
              $0
            }
          }
        }

        public typealias Selection = Columns

        public static let columns = TableColumns(qualifier: tableName)

        public struct Draft: ChronicleQuery.TableRowDraft {
          public typealias Base = Tag
          public struct Columns: ChronicleQuery.QueryExpression, ChronicleQuery._NamedColumnList {
            public typealias QueryValue = Draft
            public let queryFragment: ChronicleQuery.QueryFragment
            public let _columnFragments: [ChronicleQuery.QueryFragment]
            public static var _columnNames: [String] {
              [String?.columnNames(forProperty: "title"), Int.columnNames(forProperty: "uses")].flatMap {
                $0
              }
            }
            public init(title: some ChronicleQuery.QueryExpression<String?> = ChronicleQuery._NullColumns<String?>(), uses: some ChronicleQuery.QueryExpression<Int> = ChronicleQuery.SQLQueryExpression<Int>(value: 0)) {
              self.queryFragment = [title.queryFragment, uses.queryFragment].joined(separator: ", ")
              self._columnFragments = [ChronicleQuery._columnFragments(of: title), ChronicleQuery._columnFragments(of: uses)].flatMap {
                $0
              }
            }
          }
          public var title: String?
          public var uses: Int
          public init(title: String? = nil, uses: Int = 0) {
            self.title = title
            self.uses = uses
          }
          public init(_ row: Tag) {
            self.title = row.title
            self.uses = row.uses
          }
          public var insertValues: [(column: String, value: ChronicleQuery.QueryBinding)] {
            var values: [(column: String, value: ChronicleQuery.QueryBinding)] = []
            if let title {
              String.appendColumns(named: "title", of: title, to: &values)
            }
            Int.appendColumns(named: "uses", of: uses, to: &values)
            return values
          }
        }
      }

      extension Tag: ChronicleQuery.Table, ChronicleQuery.PrimaryKeyedTable {
        public init(decoder: inout some ChronicleQuery.QueryDecoder) throws {
        self.title = try decoder.decodeColumn(Self.columns.title)
        self.uses = try decoder.decodeColumn(Self.columns.uses)
        }
        public static func appendColumns(named name: String, of output: Tag, to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
        ChronicleQuery.TableColumn.appendColumns(as: Self.columns.title, named: "title", of: output.title, to: &values)
        ChronicleQuery.TableColumn.appendColumns(as: Self.columns.uses, named: "uses", of: output.uses, to: &values)
        }
      }
      """#
    }
  }

  @Test func unsupportedAndUninferableTypesAreRefused() {
    assertMacro {
      """
      @Table
      struct Item {
        let id: Int
        var tags: [String] = []
        var color = Color.blue
      }
      """
    } diagnostics: {
      """
      @Table
      struct Item {
        let id: Int
        var tags: [String] = []
            ┬──────────────────
            ╰─ 🛑 'tags' is an array ('[String]'), which no column can hold: store it as JSON with '@Column(as: [String].JSONRepresentation.self)', or mark it '@Ephemeral'
        var color = Color.blue
            ┬─────────────────
            ╰─ 🛑 cannot tell the column type of 'color': add a type annotation
      }
      """
    }
  }

  /// A collection stored through a representation is a column; an optional
  /// representation spelled on the optional type is not made optional twice.
  @Test func representationsOfCollectionsAndOptionals() {
    assertMacro {
      """
      @Table
      struct Item {
        let id: Int
        @Column(as: [String].JSONRepresentation.self) var tags: [String] = []
        @Column(as: Date?.UnixTimeRepresentation.self) var endedAt: Date?
        @Column(as: Date.UnixTimeRepresentation.self) var startedAt: Date?
      }
      """
    } expansion: {
      #"""
      struct Item {
        let id: Int
        var tags: [String] = []
        var endedAt: Date?
        var startedAt: Date?

        public static let tableName = "items"

        public struct TableColumns: ChronicleQuery.PrimaryKeyedTableDefinition {
          public typealias QueryValue = Item
          public typealias PrimaryKey = Int
          public let id: ChronicleQuery.TableColumn<Item, Int>
          public let tags: ChronicleQuery.TableColumn<Item, [String].JSONRepresentation>
          public let endedAt: ChronicleQuery.TableColumn<Item, Date?.UnixTimeRepresentation>
          public let startedAt: ChronicleQuery.TableColumn<Item, Date.UnixTimeRepresentation?>
          public let _qualifier: String
          public init(qualifier: String) {
            self._qualifier = qualifier
            self.id = ChronicleQuery.TableColumn("id", qualifier: qualifier, keyPath: \Item.id)
            self.tags = ChronicleQuery.TableColumn("tags", qualifier: qualifier, keyPath: \Item.tags)
            self.endedAt = ChronicleQuery.TableColumn("endedAt", qualifier: qualifier, keyPath: \Item.endedAt)
            self.startedAt = ChronicleQuery.TableColumn("startedAt", qualifier: qualifier, keyPath: \Item.startedAt)
          }
          public var primaryKey: ChronicleQuery.TableColumn<Item, Int> {
            id
          }
          public var queryFragment: ChronicleQuery.QueryFragment {
            [id.queryFragment, tags.queryFragment, endedAt.queryFragment, startedAt.queryFragment].joined(separator: ", ")
          }
          public static var allColumns: [any ChronicleQuery.TableColumnExpression<Item>] {
            let columns = TableColumns(qualifier: Item.tableName)
            return [columns.id, columns.tags, columns.endedAt, columns.startedAt]
          }
        }

        public struct Columns: ChronicleQuery.QueryExpression, ChronicleQuery._NamedColumnList {
          public typealias QueryValue = Item
          public let queryFragment: ChronicleQuery.QueryFragment
          public let _columnFragments: [ChronicleQuery.QueryFragment]
          public static var _columnNames: [String] {
            [Int.columnNames(forProperty: "id"), [String].JSONRepresentation.columnNames(forProperty: "tags"), Date?.UnixTimeRepresentation.columnNames(forProperty: "endedAt"), Date.UnixTimeRepresentation?.columnNames(forProperty: "startedAt")].flatMap {
              $0
            }
          }
          public init(id: some ChronicleQuery.QueryExpression<Int>, tags: some ChronicleQuery.QueryExpression<[String].JSONRepresentation> = ChronicleQuery.SQLQueryExpression<[String].JSONRepresentation>(value: []), endedAt: some ChronicleQuery.QueryExpression<Date?.UnixTimeRepresentation> = ChronicleQuery._NullColumns<Date?.UnixTimeRepresentation>(), startedAt: some ChronicleQuery.QueryExpression<Date.UnixTimeRepresentation?> = ChronicleQuery._NullColumns<Date.UnixTimeRepresentation?>()) {
            self.queryFragment = [id.queryFragment, tags.queryFragment, endedAt.queryFragment, startedAt.queryFragment].joined(separator: ", ")
            self._columnFragments = [ChronicleQuery._columnFragments(of: id), ChronicleQuery._columnFragments(of: tags), ChronicleQuery._columnFragments(of: endedAt), ChronicleQuery._columnFragments(of: startedAt)].flatMap {
              $0
            }
          }
        }

        public typealias Selection = Columns

        public static let columns = TableColumns(qualifier: tableName)

        public struct Draft: ChronicleQuery.TableRowDraft {
          public typealias Base = Item
          public struct Columns: ChronicleQuery.QueryExpression, ChronicleQuery._NamedColumnList {
            public typealias QueryValue = Draft
            public let queryFragment: ChronicleQuery.QueryFragment
            public let _columnFragments: [ChronicleQuery.QueryFragment]
            public static var _columnNames: [String] {
              [Int?.columnNames(forProperty: "id"), [String].JSONRepresentation.columnNames(forProperty: "tags"), Date?.UnixTimeRepresentation.columnNames(forProperty: "endedAt"), Date.UnixTimeRepresentation?.columnNames(forProperty: "startedAt")].flatMap {
                $0
              }
            }
            public init(id: some ChronicleQuery.QueryExpression<Int?> = ChronicleQuery._NullColumns<Int?>(), tags: some ChronicleQuery.QueryExpression<[String].JSONRepresentation> = ChronicleQuery.SQLQueryExpression<[String].JSONRepresentation>(value: []), endedAt: some ChronicleQuery.QueryExpression<Date?.UnixTimeRepresentation> = ChronicleQuery._NullColumns<Date?.UnixTimeRepresentation>(), startedAt: some ChronicleQuery.QueryExpression<Date.UnixTimeRepresentation?> = ChronicleQuery._NullColumns<Date.UnixTimeRepresentation?>()) {
              self.queryFragment = [id.queryFragment, tags.queryFragment, endedAt.queryFragment, startedAt.queryFragment].joined(separator: ", ")
              self._columnFragments = [ChronicleQuery._columnFragments(of: id), ChronicleQuery._columnFragments(of: tags), ChronicleQuery._columnFragments(of: endedAt), ChronicleQuery._columnFragments(of: startedAt)].flatMap {
                $0
              }
            }
          }
          public var id: Int?
          public var tags: [String]
          public var endedAt: Date?
          public var startedAt: Date?
          public init(id: Int? = nil, tags: [String] = [], endedAt: Date? = nil, startedAt: Date? = nil) {
            self.id = id
            self.tags = tags
            self.endedAt = endedAt
            self.startedAt = startedAt
          }
          public init(_ row: Item) {
            self.id = row.id
            self.tags = row.tags
            self.endedAt = row.endedAt
            self.startedAt = row.startedAt
          }
          public var insertValues: [(column: String, value: ChronicleQuery.QueryBinding)] {
            var values: [(column: String, value: ChronicleQuery.QueryBinding)] = []
            if let id {
              Int.appendColumns(named: "id", of: id, to: &values)
            }
            [String].JSONRepresentation.appendColumns(named: "tags", of: tags, to: &values)
            Date?.UnixTimeRepresentation.appendColumns(named: "endedAt", of: endedAt, to: &values)
            Date.UnixTimeRepresentation?.appendColumns(named: "startedAt", of: startedAt, to: &values)
            return values
          }
        }
      }

      extension Item: ChronicleQuery.Table, ChronicleQuery.PrimaryKeyedTable {
        public init(decoder: inout some ChronicleQuery.QueryDecoder) throws {
        self.id = try decoder.decodeColumn(Self.columns.id)
        self.tags = try decoder.decodeColumn(Self.columns.tags)
        self.endedAt = try decoder.decodeColumn(Self.columns.endedAt)
        self.startedAt = try decoder.decodeColumn(Self.columns.startedAt)
        }
        public static func appendColumns(named name: String, of output: Item, to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
        ChronicleQuery.TableColumn.appendColumns(as: Self.columns.id, named: "id", of: output.id, to: &values)
        ChronicleQuery.TableColumn.appendColumns(as: Self.columns.tags, named: "tags", of: output.tags, to: &values)
        ChronicleQuery.TableColumn.appendColumns(as: Self.columns.endedAt, named: "endedAt", of: output.endedAt, to: &values)
        ChronicleQuery.TableColumn.appendColumns(as: Self.columns.startedAt, named: "startedAt", of: output.startedAt, to: &values)
        }
      }
      """#
    }
  }

  /// A generated column is decoded but left out of the Draft and of row
  /// inserts; `Self` in a default names the model in the Draft too.
  @Test func generatedColumnsAndDefaultsThatNameSelf() {
    assertMacro {
      """
      @Table
      struct Chore {
        static let defaultColor = 7
        let id: Int
        var color: Int = Self.defaultColor
        @Column(generated: .virtual) let isOpen: Bool
      }
      """
    } expansion: {
      #"""
      struct Chore {
        static let defaultColor = 7
        let id: Int
        var color: Int = Self.defaultColor
        let isOpen: Bool

        public static let tableName = "chores"

        public struct TableColumns: ChronicleQuery.PrimaryKeyedTableDefinition {
          public typealias QueryValue = Chore
          public typealias PrimaryKey = Int
          public let id: ChronicleQuery.TableColumn<Chore, Int>
          public let color: ChronicleQuery.TableColumn<Chore, Int>
          public let isOpen: ChronicleQuery.TableColumn<Chore, Bool>
          public let _qualifier: String
          public init(qualifier: String) {
            self._qualifier = qualifier
            self.id = ChronicleQuery.TableColumn("id", qualifier: qualifier, keyPath: \Chore.id)
            self.color = ChronicleQuery.TableColumn("color", qualifier: qualifier, keyPath: \Chore.color)
            self.isOpen = ChronicleQuery.TableColumn("isOpen", qualifier: qualifier, keyPath: \Chore.isOpen)
          }
          public var primaryKey: ChronicleQuery.TableColumn<Chore, Int> {
            id
          }
          public var queryFragment: ChronicleQuery.QueryFragment {
            [id.queryFragment, color.queryFragment, isOpen.queryFragment].joined(separator: ", ")
          }
          public static var allColumns: [any ChronicleQuery.TableColumnExpression<Chore>] {
            let columns = TableColumns(qualifier: Chore.tableName)
            return [columns.id, columns.color, columns.isOpen]
          }
        }

        public struct Columns: ChronicleQuery.QueryExpression, ChronicleQuery._NamedColumnList {
          public typealias QueryValue = Chore
          public let queryFragment: ChronicleQuery.QueryFragment
          public let _columnFragments: [ChronicleQuery.QueryFragment]
          public static var _columnNames: [String] {
            [Int.columnNames(forProperty: "id"), Int.columnNames(forProperty: "color"), Bool.columnNames(forProperty: "isOpen")].flatMap {
              $0
            }
          }
          public init(id: some ChronicleQuery.QueryExpression<Int>, color: some ChronicleQuery.QueryExpression<Int> = ChronicleQuery.SQLQueryExpression<Int>(value: Chore.defaultColor), isOpen: some ChronicleQuery.QueryExpression<Bool>) {
            self.queryFragment = [id.queryFragment, color.queryFragment, isOpen.queryFragment].joined(separator: ", ")
            self._columnFragments = [ChronicleQuery._columnFragments(of: id), ChronicleQuery._columnFragments(of: color), ChronicleQuery._columnFragments(of: isOpen)].flatMap {
              $0
            }
          }
        }

        public typealias Selection = Columns

        public static let columns = TableColumns(qualifier: tableName)

        public struct Draft: ChronicleQuery.TableRowDraft {
          public typealias Base = Chore
          public struct Columns: ChronicleQuery.QueryExpression, ChronicleQuery._NamedColumnList {
            public typealias QueryValue = Draft
            public let queryFragment: ChronicleQuery.QueryFragment
            public let _columnFragments: [ChronicleQuery.QueryFragment]
            public static var _columnNames: [String] {
              [Int?.columnNames(forProperty: "id"), Int.columnNames(forProperty: "color")].flatMap {
                $0
              }
            }
            public init(id: some ChronicleQuery.QueryExpression<Int?> = ChronicleQuery._NullColumns<Int?>(), color: some ChronicleQuery.QueryExpression<Int> = ChronicleQuery.SQLQueryExpression<Int>(value: Chore.defaultColor)) {
              self.queryFragment = [id.queryFragment, color.queryFragment].joined(separator: ", ")
              self._columnFragments = [ChronicleQuery._columnFragments(of: id), ChronicleQuery._columnFragments(of: color)].flatMap {
                $0
              }
            }
          }
          public var id: Int?
          public var color: Int
          public init(id: Int? = nil, color: Int = Chore.defaultColor) {
            self.id = id
            self.color = color
          }
          public init(_ row: Chore) {
            self.id = row.id
            self.color = row.color
          }
          public var insertValues: [(column: String, value: ChronicleQuery.QueryBinding)] {
            var values: [(column: String, value: ChronicleQuery.QueryBinding)] = []
            if let id {
              Int.appendColumns(named: "id", of: id, to: &values)
            }
            Int.appendColumns(named: "color", of: color, to: &values)
            return values
          }
        }
      }

      extension Chore: ChronicleQuery.Table, ChronicleQuery.PrimaryKeyedTable {
        public init(decoder: inout some ChronicleQuery.QueryDecoder) throws {
        self.id = try decoder.decodeColumn(Self.columns.id)
        self.color = try decoder.decodeColumn(Self.columns.color)
        self.isOpen = try decoder.decodeColumn(Self.columns.isOpen)
        }
        public static func appendColumns(named name: String, of output: Chore, to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
        ChronicleQuery.TableColumn.appendColumns(as: Self.columns.id, named: "id", of: output.id, to: &values)
        ChronicleQuery.TableColumn.appendColumns(as: Self.columns.color, named: "color", of: output.color, to: &values)
        }
      }
      """#
    }
  }

  @Test func expansion() {
    assertMacro {
      """
      @Table
      struct Category {
        let id: UUID
        @Column("name") var title = ""
        var notes: String?
        @Ephemeral var isSelected = false
      }
      """
    } expansion: {
      #"""
      struct Category {
        let id: UUID
        var title = ""
        var notes: String?
        var isSelected = false

        public static let tableName = "categories"

        public struct TableColumns: ChronicleQuery.PrimaryKeyedTableDefinition {
          public typealias QueryValue = Category
          public typealias PrimaryKey = UUID
          public let id: ChronicleQuery.TableColumn<Category, UUID>
          public let title: ChronicleQuery.TableColumn<Category, String>
          public let notes: ChronicleQuery.TableColumn<Category, String?>
          public let _qualifier: String
          public init(qualifier: String) {
            self._qualifier = qualifier
            self.id = ChronicleQuery.TableColumn("id", qualifier: qualifier, keyPath: \Category.id)
            self.title = ChronicleQuery.TableColumn("name", qualifier: qualifier, keyPath: \Category.title)
            self.notes = ChronicleQuery.TableColumn("notes", qualifier: qualifier, keyPath: \Category.notes)
          }
          public var primaryKey: ChronicleQuery.TableColumn<Category, UUID> {
            id
          }
          public var queryFragment: ChronicleQuery.QueryFragment {
            [id.queryFragment, title.queryFragment, notes.queryFragment].joined(separator: ", ")
          }
          public static var allColumns: [any ChronicleQuery.TableColumnExpression<Category>] {
            let columns = TableColumns(qualifier: Category.tableName)
            return [columns.id, columns.title, columns.notes]
          }
        }

        public struct Columns: ChronicleQuery.QueryExpression, ChronicleQuery._NamedColumnList {
          public typealias QueryValue = Category
          public let queryFragment: ChronicleQuery.QueryFragment
          public let _columnFragments: [ChronicleQuery.QueryFragment]
          public static var _columnNames: [String] {
            [UUID.columnNames(forProperty: "id"), String.columnNames(forProperty: "name"), String?.columnNames(forProperty: "notes")].flatMap {
              $0
            }
          }
          public init(id: some ChronicleQuery.QueryExpression<UUID>, title: some ChronicleQuery.QueryExpression<String> = ChronicleQuery.SQLQueryExpression<String>(value: ""), notes: some ChronicleQuery.QueryExpression<String?> = ChronicleQuery._NullColumns<String?>()) {
            self.queryFragment = [id.queryFragment, title.queryFragment, notes.queryFragment].joined(separator: ", ")
            self._columnFragments = [ChronicleQuery._columnFragments(of: id), ChronicleQuery._columnFragments(of: title), ChronicleQuery._columnFragments(of: notes)].flatMap {
              $0
            }
          }
        }

        public typealias Selection = Columns

        public static let columns = TableColumns(qualifier: tableName)

        public struct Draft: ChronicleQuery.TableRowDraft {
          public typealias Base = Category
          public struct Columns: ChronicleQuery.QueryExpression, ChronicleQuery._NamedColumnList {
            public typealias QueryValue = Draft
            public let queryFragment: ChronicleQuery.QueryFragment
            public let _columnFragments: [ChronicleQuery.QueryFragment]
            public static var _columnNames: [String] {
              [UUID?.columnNames(forProperty: "id"), String.columnNames(forProperty: "name"), String?.columnNames(forProperty: "notes")].flatMap {
                $0
              }
            }
            public init(id: some ChronicleQuery.QueryExpression<UUID?> = ChronicleQuery._NullColumns<UUID?>(), title: some ChronicleQuery.QueryExpression<String> = ChronicleQuery.SQLQueryExpression<String>(value: ""), notes: some ChronicleQuery.QueryExpression<String?> = ChronicleQuery._NullColumns<String?>()) {
              self.queryFragment = [id.queryFragment, title.queryFragment, notes.queryFragment].joined(separator: ", ")
              self._columnFragments = [ChronicleQuery._columnFragments(of: id), ChronicleQuery._columnFragments(of: title), ChronicleQuery._columnFragments(of: notes)].flatMap {
                $0
              }
            }
          }
          public var id: UUID?
          public var title: String
          public var notes: String?
          public init(id: UUID? = nil, title: String = "", notes: String? = nil) {
            self.id = id
            self.title = title
            self.notes = notes
          }
          public init(_ row: Category) {
            self.id = row.id
            self.title = row.title
            self.notes = row.notes
          }
          public var insertValues: [(column: String, value: ChronicleQuery.QueryBinding)] {
            var values: [(column: String, value: ChronicleQuery.QueryBinding)] = []
            if let id {
              UUID.appendColumns(named: "id", of: id, to: &values)
            }
            String.appendColumns(named: "name", of: title, to: &values)
            String?.appendColumns(named: "notes", of: notes, to: &values)
            return values
          }
        }
      }

      extension Category: ChronicleQuery.Table, ChronicleQuery.PrimaryKeyedTable {
        public init(decoder: inout some ChronicleQuery.QueryDecoder) throws {
        self.id = try decoder.decodeColumn(Self.columns.id)
        self.title = try decoder.decodeColumn(Self.columns.title)
        self.notes = try decoder.decodeColumn(Self.columns.notes)
        }
        public static func appendColumns(named name: String, of output: Category, to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
        ChronicleQuery.TableColumn.appendColumns(as: Self.columns.id, named: "id", of: output.id, to: &values)
        ChronicleQuery.TableColumn.appendColumns(as: Self.columns.title, named: "name", of: output.title, to: &values)
        ChronicleQuery.TableColumn.appendColumns(as: Self.columns.notes, named: "notes", of: output.notes, to: &values)
        }
      }
      """#
    }
  }

  /// An enum: a table whose rows are its cases, each case's value in columns of its own.
  @Test func anEnumIsATableOfItsCases() {
    assertMacro {
      """
      @Table("posts")
      enum Post {
        case photo(Photo)
        @Column("body")
        case note(String = "")
      }
      """
    } expansion: {
      #"""
      enum Post {
        case photo(Photo)
        case note(String = "")

        public static let tableName = "posts"

        public struct TableColumns: ChronicleQuery.TableDefinition {
          public typealias QueryValue = Post
          public let photo: ChronicleQuery.TableColumn<Post, Photo?>
          public let note: ChronicleQuery.TableColumn<Post, String?>
          public let _qualifier: String
          public init(qualifier: String) {
            self._qualifier = qualifier
            self.photo = ChronicleQuery.TableColumn("photo", qualifier: qualifier, keyPath: \Post.photo)
            self.note = ChronicleQuery.TableColumn("body", qualifier: qualifier, keyPath: \Post.note)
          }
          public var queryFragment: ChronicleQuery.QueryFragment {
            [photo.queryFragment, note.queryFragment].joined(separator: ", ")
          }
          public static var allColumns: [any ChronicleQuery.TableColumnExpression<Post>] {
            let columns = TableColumns(qualifier: Post.tableName)
            return [columns.photo, columns.note]
          }
        }

        public static let columns = TableColumns(qualifier: tableName)
      }

      extension Post: ChronicleQuery.Selection, ChronicleQuery.EnumSelection {
        public struct Columns: ChronicleQuery.QueryExpression {
          public typealias QueryValue = Post
          public let queryFragment: ChronicleQuery.QueryFragment
          /// The case `photo` holding `value`: its columns, NULL for the other cases'.
          public static func photo(_ value: some ChronicleQuery.QueryExpression<Photo>) -> Columns {
            Columns(queryFragment: ([value.queryFragment] + String.columnNames(forProperty: "body").map { _ in
                  ChronicleQuery.QueryFragment(sql: "NULL")
                }).joined(separator: ", "))
          }
          /// The case `note` holding `value`: its columns, NULL for the other cases'.
          public static func note(_ value: some ChronicleQuery.QueryExpression<String>) -> Columns {
            Columns(queryFragment: (Photo.columnNames(forProperty: "photo").map { _ in
                  ChronicleQuery.QueryFragment(sql: "NULL")
                } + [value.queryFragment]).joined(separator: ", "))
          }
        }
        public typealias Selection = Columns
        /// The value of the case `photo`, nil for another case.
        public var photo: Photo? {
          if case .photo(let value) = self {
            return value
          }
          return nil
        }
        /// The value of the case `note`, nil for another case.
        public var note: String? {
          if case .note(let value) = self {
            return value
          }
          return nil
        }
        public init(decoder: inout some ChronicleQuery.QueryDecoder) throws {
          let start = decoder
          let photoValue = try decoder.decodeColumns(Photo?.self)
          let noteValue = try decoder.decodeColumns(String?.self)
          if let photoValue {
            self = .photo(photoValue)
          } else if let noteValue {
            self = .note(noteValue)
          } else {
            throw start.noCase(of: "Post", cases: ["photo", "note"])
          }
        }
        public static func columnName(of keyPath: PartialKeyPath<Post>) -> String? {
          if keyPath == \Post.photo {
            return "photo"
          }
        if keyPath == \Post.note {
            return "body"
          }
          return nil
        }
        public static func columnNames(forProperty name: String) -> [String] {
          Photo.columnNames(forProperty: "photo") + String.columnNames(forProperty: "body")
        }
        public static func appendColumns(named name: String, of output: Post, to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
          Photo?.appendColumns(named: "photo", of: output.photo, to: &values)
          String?.appendColumns(named: "body", of: output.note, to: &values)
        }
      }

      extension Post: ChronicleQuery.Table {
      }
      """#
    }
  }

  @Test func anEnumsCasesMustEachHoldOneValue() {
    assertMacro {
      """
      @Table
      enum Post {
        case draft
        case note(String)
      }
      """
    } diagnostics: {
      """
      @Table
      enum Post {
        case draft
             ┬────
             ╰─ 🛑 case 'draft' must hold exactly one value (its column, or a @Selection struct's columns): write 'case draft(Value)'
        case note(String)
      }
      """
    }
  }

  /// A private type's members are fileprivate (a public member naming a
  /// private type does not compile), and a property named by a keyword
  /// keeps its backticks wherever Swift code names it.
  @Test func aPrivateTypeWithAKeywordProperty() {
    assertMacro {
      """
      @Table
      private struct Entry {
        var `default`: String
      }
      """
    } expansion: {
      #"""
      private struct Entry {
        var `default`: String

        fileprivate static let tableName = "entries"

        fileprivate struct TableColumns: ChronicleQuery.TableDefinition {
          fileprivate typealias QueryValue = Entry
          fileprivate let `default`: ChronicleQuery.TableColumn<Entry, String>
          fileprivate let _qualifier: String
          fileprivate init(qualifier: String) {
            self._qualifier = qualifier
            self.`default` = ChronicleQuery.TableColumn("default", qualifier: qualifier, keyPath: \Entry.`default`)
          }
          fileprivate var queryFragment: ChronicleQuery.QueryFragment {
            [`default`.queryFragment].joined(separator: ", ")
          }
          fileprivate static var allColumns: [any ChronicleQuery.TableColumnExpression<Entry>] {
            let columns = TableColumns(qualifier: Entry.tableName)
            return [columns.`default`]
          }
        }

        fileprivate struct Columns: ChronicleQuery.QueryExpression, ChronicleQuery._NamedColumnList {
          fileprivate typealias QueryValue = Entry
          fileprivate let queryFragment: ChronicleQuery.QueryFragment
          fileprivate let _columnFragments: [ChronicleQuery.QueryFragment]
          fileprivate static var _columnNames: [String] {
            [String.columnNames(forProperty: "default")].flatMap {
              $0
            }
          }
          fileprivate init(`default`: some ChronicleQuery.QueryExpression<String>) {
            self.queryFragment = [`default`.queryFragment].joined(separator: ", ")
            self._columnFragments = [ChronicleQuery._columnFragments(of: `default`)].flatMap {
              $0
            }
          }
        }

        fileprivate typealias Selection = Columns

        fileprivate static let columns = TableColumns(qualifier: tableName)
      }

      extension Entry: ChronicleQuery.Table {
        fileprivate init(decoder: inout some ChronicleQuery.QueryDecoder) throws {
        self.`default` = try decoder.decodeColumn(Self.columns.`default`)
        }
        fileprivate static func appendColumns(named name: String, of output: Entry, to values: inout [(column: String, value: ChronicleQuery.QueryBinding)]) {
        ChronicleQuery.TableColumn.appendColumns(as: Self.columns.`default`, named: "default", of: output.`default`, to: &values)
        }
      }
      """#
    }
  }
}
