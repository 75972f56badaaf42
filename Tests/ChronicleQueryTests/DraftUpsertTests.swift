import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// Drafts inserted with a conflict clause used to crash the process (a key
/// path resolved inside the pack-generic `insert(_:onConflict:…)`).
@Suite("Query builder: drafts inserted with a conflict clause")
struct DraftUpsertTests {
  let listID = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!

  func upsert(title: String) -> Insert<RemindersList, Void> {
    RemindersList.insert { RemindersList.Draft(id: listID, title: title) } onConflict: { $0.id } doUpdate: { row, excluded in
      row.title = excluded.title
      row.position += 1
    }
  }

  @Test func draftsWithAConflictTargetRenderAnUpsert() {
    assertInlineSnapshot(of: upsert(title: "Home").query.description, as: .lines) {
      """
      INSERT INTO "remindersLists"
      ("id", "title", "position")
      VALUES
      ('00000000-0000-0000-0000-000000000001', 'Home', 0)
      ON CONFLICT ("id")
      DO UPDATE SET "title" = "excluded"."title", "position" = ("remindersLists"."position" + 1)
      """
    }
  }

  @Test func draftsWithAnUpdateConditionAlone() throws {
    let fixture = try RemindersDatabase()
    let database = fixture.database
    func rename(to title: String) -> Insert<RemindersList, Void> {
      RemindersList.insert { RemindersList.Draft(id: listID, title: title) } onConflict: { $0.id } doUpdate: { $0.position += 1 } where: {
        $0.position < 1
      }
    }
    assertInlineSnapshot(of: rename(to: "Home").query.description, as: .lines) {
      """
      INSERT INTO "remindersLists"
      ("id", "title", "position")
      VALUES
      ('00000000-0000-0000-0000-000000000001', 'Home', 0)
      ON CONFLICT ("id")
      DO UPDATE SET "position" = ("remindersLists"."position" + 1)
      WHERE ("remindersLists"."position" < 1)
      """
    }
    // Inserted, updated once, then left as it is: the condition no longer holds.
    for title in ["Home", "Work", "Play"] { try database.write { db in try rename(to: title).execute(db) } }
    let rows = try database.read { db in try RemindersList.fetchAll(db) }
    #expect(rows.map { "\($0.title) \($0.position)" } == ["Home 1"])
  }

  @Test func draftsWithAConflictTargetInsertThenUpdate() throws {
    let fixture = try RemindersDatabase()
    let database = fixture.database
    try database.write { db in try upsert(title: "Home").execute(db) }
    try database.write { db in try upsert(title: "Work").execute(db) }
    let rows = try database.read { db in try RemindersList.fetchAll(db) }
    assertInlineSnapshot(of: rows.map { "\($0.id) \($0.title) \($0.position)" }.joined(separator: "\n"), as: .lines) {
      """
      00000000-0000-0000-0000-000000000001 Work 1
      """
    }
  }
}

/// Two results that used to be wrong: `find` with a subquery matched only its
/// first row, and a remainder by zero (NULL in SQLite) failed to decode.
@Suite("Query builder: find by subquery, remainder by zero")
struct SubqueryFindAndRemainderTests {
  @Test func findBySubqueryMatchesEveryRowItSelects() throws {
    let fixture = try RemindersDatabase()
    let database = fixture.database
    try database.write { db in
      try Tag.insert { Tag(title: "a", useCount: 1); Tag(title: "b", useCount: 2); Tag(title: "c", useCount: 3) }.execute(db)
    }
    let query = Tag.find(Tag.where { $0.useCount > 1 }.select(\.title)).select { ($0.title, $0.useCount % 0) }
    assertInlineSnapshot(of: query.query.description, as: .lines) {
      """
      SELECT "tags"."title", ("tags"."uses" % 0)
      FROM "tags"
      WHERE ("tags"."title" IN (
        SELECT "tags"."title"
        FROM "tags"
        WHERE ("tags"."uses" > 1)
      ))
      """
    }
    let rows = try database.read { db in try query.fetchAll(db) }
    assertInlineSnapshot(of: rows.map { "\($0.0) \(String(describing: $0.1))" }.joined(separator: "\n"), as: .lines) {
      """
      b nil
      c nil
      """
    }
  }
}
