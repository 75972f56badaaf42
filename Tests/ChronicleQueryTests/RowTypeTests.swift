import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

// Row types as upstream's JSON tests write them: a `@Table` holding whole
// rows of other tables and JSON arrays of rows, filled from a grouped join.
@Table("rtUsers") private struct RTUser: Codable { let id: Int; var name = "" }
@Table("rtLists") private struct RTList: Codable { let id: Int; var title = "" }
@Table("rtReminders") private struct RTReminder: Codable {
  static let incomplete = Self.where { !$0.isCompleted }
  let id: Int
  var assignedUserID: Int?
  var isCompleted = false
  var listID: Int
  var title = ""
}
@Table("rtTags") private struct RTTag: Codable { let id: Int; var title = "" }
/// A join table: no property is named `id`, so it has no primary key in Swift.
@Table("rtReminderTags") private struct RTReminderTag { let reminderID: Int; let tagID: Int }
/// The key is the property named `id`, even when it is a `var` and not first.
@Table("rtSettings") private struct RTSetting { var name = ""; var id: Int }

@Table private struct RTReminderRow {
  let assignedUser: RTUser?
  let reminder: RTReminder
  @Column(as: [RTTag].JSONRepresentation.self)
  let tags: [RTTag]
}

@Suite("Query builder: row types holding tables, JSON arrays of rows, JSON functions")
struct RowTypeTests {
  let fixture: RemindersDatabase

  init() throws {
    fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: """
        CREATE TABLE rtUsers (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '') STRICT;
        CREATE TABLE rtLists (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '') STRICT;
        CREATE TABLE rtReminders (id INTEGER PRIMARY KEY, assignedUserID INTEGER, isCompleted INTEGER NOT NULL DEFAULT 0,
          listID INTEGER NOT NULL, title TEXT NOT NULL DEFAULT '') STRICT;
        CREATE TABLE rtTags (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '') STRICT;
        CREATE TABLE rtReminderTags (reminderID INTEGER NOT NULL, tagID INTEGER NOT NULL) STRICT;
        CREATE TABLE rtSettings (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '') STRICT;
        INSERT INTO rtUsers VALUES (1, 'Blob');
        INSERT INTO rtLists VALUES (1, 'Personal');
        INSERT INTO rtReminders VALUES (1, 1, 0, 1, 'Groceries'), (2, NULL, 0, 1, 'Haircut'), (3, NULL, 1, 1, 'Laundry');
        INSERT INTO rtTags VALUES (3, 'someday'), (4, 'optional');
        INSERT INTO rtReminderTags VALUES (1, 3), (1, 4), (2, 3);
        INSERT INTO rtSettings VALUES (1, 'theme'), (2, 'language');
        """)
    }
  }

  @Test func aRowOfWholeRowsAndAJSONArrayOfRowsFromAGroupedJoin() throws {
    let query = RTReminder
      .group(by: \.id)
      .leftJoin(RTReminderTag.all) { $0.id.eq($1.reminderID) }
      .leftJoin(RTTag.all) { $1.tagID.eq($2.id) }
      .leftJoin(RTUser.all) { $0.assignedUserID.eq($3.id) }
      .select { reminder, _, tag, user in
        RTReminderRow.Columns(assignedUser: user, reminder: reminder, tags: tag.jsonGroupArray())
      }
      .order { reminder, _, _, _ in reminder.id }
    let rows = try fixture.database.read { db in try query.fetchAll(db) }
    let lines = [query.query.description] + rows.map { row in
      "\(row.reminder.title) by \(row.assignedUser?.name ?? "nobody"): [" + row.tags.map { "\($0.id) \($0.title)" }.joined(separator: ", ") + "]"
    }
    assertInlineSnapshot(of: lines.joined(separator: "\n"), as: .lines) {
      """
      SELECT "rtUsers"."id" AS "id_1", "rtUsers"."name" AS "name", "rtReminders"."id" AS "id_2", "rtReminders"."assignedUserID" AS "assignedUserID", "rtReminders"."isCompleted" AS "isCompleted", "rtReminders"."listID" AS "listID", "rtReminders"."title" AS "title", json_group_array(CASE WHEN ("rtTags"."id" IS NOT NULL) THEN json_object('id', json_quote("rtTags"."id"), 'title', json_quote("rtTags"."title")) END) FILTER (WHERE ("rtTags"."id" IS NOT NULL)) AS "tags"
      FROM "rtReminders"
      LEFT JOIN "rtReminderTags" ON ("rtReminders"."id" = "rtReminderTags"."reminderID")
      LEFT JOIN "rtTags" ON ("rtReminderTags"."tagID" = "rtTags"."id")
      LEFT JOIN "rtUsers" ON ("rtReminders"."assignedUserID" = "rtUsers"."id")
      GROUP BY "rtReminders"."id"
      ORDER BY "rtReminders"."id"
      Groceries by Blob: [3 someday, 4 optional]
      Haircut by nobody: [3 someday]
      Laundry by nobody: []
      """
    }
  }

  @Test func jsonFunctionsAndValuesReadAsSwiftValues() throws {
    let length = RTReminder.select { $0.title.jsonGroupArray().jsonArrayLength() }
    let patched = Values(#bind(["a": 1]).jsonPatch(#bind(["b": 2])))
    let (count, merged) = try fixture.database.read { db in (try length.fetchOne(db), try patched.fetchOne(db)) }
    assertInlineSnapshot(of: [length.query.description, "\(count ?? -1)", patched.query.description, "\(merged?.sorted { $0.key < $1.key } ?? [])"].joined(separator: "\n"), as: .lines) {
      """
      SELECT json_array_length(json_group_array("rtReminders"."title"))
      FROM "rtReminders"
      3
      SELECT json_patch('{"a":1}', '{"b":2}')
      [(key: "a", value: 1), (key: "b", value: 2)]
      """
    }
  }

  @Test func thePrimaryKeyIsThePropertyNamedID() throws {
    func hasPrimaryKey(_ table: any Table.Type) -> Bool { table is any PrimaryKeyedTable.Type }
    #expect(hasPrimaryKey(RTSetting.self))
    #expect(!hasPrimaryKey(RTReminderTag.self))
    #expect(!hasPrimaryKey(RTReminderRow.self))
    let language = RTSetting.find(2).select(\.name)
    let name = try fixture.database.read { db in try language.fetchOne(db) }
    assertInlineSnapshot(of: [language.query.description, name ?? "nil"].joined(separator: "\n"), as: .lines) {
      """
      SELECT "rtSettings"."name"
      FROM "rtSettings"
      WHERE ("rtSettings"."id" IN (2))
      language
      """
    }
  }

  @Test func everyTableHasARowidAndARowReadsAsOneJSONObject() throws {
    // The Reminders example's spellings: `new.rowid` in a trigger body and
    // `find(id).select(\.rowid)` on a table that does not declare it.
    let rename = RTReminder.createTemporaryTrigger(
      "renameSetting",
      after: .update { ($0.title, $0.listID) } forEachRow: { _, new in
        RTSetting.where { $0.id.eq(new.rowid) }.update { $0.name = new.title }
      })
    let rowid = RTReminder.find(2).select(\.rowid)
    let withList = RTReminder.join(RTList.all) { $0.listID.eq($1.id) }.select { ($0.title, $1.jsonObject()) }.order { r, _ in r.id }
    let (names, rowids, rows) = try fixture.database.write { db in
      try rename.execute(db)
      try RTReminder.find(2).update { $0.title = "Barber" }.execute(db)
      return (
        try RTSetting.order(by: \.id).select(\.name).fetchAll(db), try rowid.fetchAll(db), try withList.fetchAll(db)
      )
    }
    let lines = [rename.query.description, names.joined(separator: ", "), rowid.query.description, "\(rowids)", withList.query.description]
      + rows.map { "\($0.0): \($0.1.id) \($0.1.title)" }
    assertInlineSnapshot(of: lines.joined(separator: "\n"), as: .lines) {
      """
      CREATE TEMPORARY TRIGGER "renameSetting"
      AFTER UPDATE OF "title", "listID" ON "rtReminders"
      FOR EACH ROW BEGIN
        UPDATE "rtSettings"
        SET "name" = "new"."title"
        WHERE ("rtSettings"."id" = "new"."rowid");
      END
      theme, Barber
      SELECT "rtReminders"."rowid"
      FROM "rtReminders"
      WHERE ("rtReminders"."id" IN (2))
      [2]
      SELECT "rtReminders"."title", json_object('id', json_quote("rtLists"."id"), 'title', json_quote("rtLists"."title"))
      FROM "rtReminders"
      JOIN "rtLists" ON ("rtReminders"."listID" = "rtLists"."id")
      ORDER BY "rtReminders"."id"
      Groceries: 1 Personal
      Barber: 1 Personal
      Laundry: 1 Personal
      """
    }
  }
}
