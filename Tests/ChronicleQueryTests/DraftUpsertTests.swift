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
      INSERT INTO "remindersLists" ("id", "title", "position") VALUES ('00000000-0000-0000-0000-000000000001', 'Home', 0) ON CONFLICT ("id") DO UPDATE SET "title" = "excluded"."title", "position" = ("remindersLists"."position" + 1)
      """
    }
  }

  @Test func draftsWithAConflictTargetInsertThenUpdate() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-draft-upsert-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let database = try Chronicle.open(path: directory.appendingPathComponent("app.sqlite").path)
    try database.write { db in try db.execute(sql: remindersSchema) }
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
