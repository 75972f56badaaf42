import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// A generic `@Table` over one of SQLite's table-valued functions, as
/// upstream's SelectTests declares them: the rows of `pragma_table_info` and
/// `pragma_foreign_key_list` for any table, read under an alias named after
/// it, selected, filtered and joined like a table's. SQL and rows.
@Suite("Query builder: generic tables over table-valued functions")
struct TableValuedFunctionTests {
  @Table
  struct ForeignKey<Base: Table> {
    static var tableAlias: String? { "\(Base.tableName)References" }
    static var tableFragment: QueryFragment {
      "pragma_foreign_key_list(\(quote: Base.tableName, delimiter: .text))"
    }

    let id: Int
    @Column("seq") let sequence: Int
    let table: String
    let from: String
    let to: String
    @Column("on_delete") let onDelete: String
  }

  @Test func aTableInfoReadForTwoTables() throws {
    let fixture = try RemindersDatabase()
    let lists = ColumnInfo<RemindersList>.all
    let required = ColumnInfo<Reminder>.where { $0.isNotNull && !$0.isPrimaryKey }.order(by: \.position).select(\.name)
    assertInlineSnapshot(of: [try fixture.database.sqlAndRows(lists), try fixture.database.sqlAndRows(required)].joined(separator: "\n"), as: .lines) {
      #"""
      SELECT "remindersListsColumns"."cid", "remindersListsColumns"."name", "remindersListsColumns"."type", "remindersListsColumns"."notnull", "remindersListsColumns"."dflt_value", "remindersListsColumns"."pk"
      FROM pragma_table_info('remindersLists') AS "remindersListsColumns"
      ColumnInfo<RemindersList>(position: 0, name: "id", type: "TEXT", isNotNull: true, defaultValue: Optional("uuid()"), isPrimaryKey: true)
      ColumnInfo<RemindersList>(position: 1, name: "title", type: "TEXT", isNotNull: true, defaultValue: Optional("\'\'"), isPrimaryKey: false)
      ColumnInfo<RemindersList>(position: 2, name: "position", type: "INTEGER", isNotNull: true, defaultValue: Optional("0"), isPrimaryKey: false)
      SELECT "remindersColumns"."name"
      FROM pragma_table_info('reminders') AS "remindersColumns"
      WHERE ("remindersColumns"."notnull" AND NOT ("remindersColumns"."pk"))
      ORDER BY "remindersColumns"."cid"
      remindersListID
      title
      isCompleted
      score
      """#
    }
  }

  @Test func aForeignKeyListJoinedToItsTablesColumns() throws {
    let fixture = try RemindersDatabase()
    let query = ForeignKey<Reminder>
      .join(ColumnInfo<Reminder>.all) { $0.from.eq($1.name) }
      .select { ($0.table, $0.from, $0.to, $0.onDelete, $1.type, $1.isNotNull) }
    assertInlineSnapshot(of: try fixture.database.sqlAndRows(query), as: .lines) {
      """
      SELECT "remindersReferences"."table", "remindersReferences"."from", "remindersReferences"."to", "remindersReferences"."on_delete", "remindersColumns"."type", "remindersColumns"."notnull"
      FROM pragma_foreign_key_list('reminders') AS "remindersReferences"
      JOIN pragma_table_info('reminders') AS "remindersColumns" ON ("remindersReferences"."from" = "remindersColumns"."name")
      ("remindersLists", "remindersListID", "id", "CASCADE", "TEXT", true)
      """
    }
  }

  @Test func textQuotedAsALiteral() {
    let name = "it's"
    let fragment: QueryFragment = "pragma_table_info(\(quote: name, delimiter: .text)), \(quote: name)"
    #expect(fragment.description == #"pragma_table_info('it''s'), "it's""#)
    #expect(QueryFragment(quote: #"a "b""#).description == #""a ""b""""#)
  }
}
