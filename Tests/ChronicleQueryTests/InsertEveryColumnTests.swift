import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// `insert { $0 } values: { … }`, as upstream spells an insert into every
/// column: rows, and drafts whose keys are left to the database.
@Suite("Query builder: insert { $0 } values:")
struct InsertEveryColumnTests {
  @Test func rowsAndDrafts() throws {
    let fixture = try RemindersDatabase()
    let listID = UUID(uuidString: "00000000-0000-0000-0000-00000000000A")!
    let tags = Tag.insert { $0 } values: {
      Tag(title: "home", useCount: 2)
      Tag(title: "work")
    }
    let lists = RemindersList.insert { $0 } values: {
      RemindersList.Draft(id: listID, title: "Errands", position: 1)
    }
    let rows = try fixture.database.write { db in
      try tags.execute(db)
      try lists.execute(db)
      return (try Tag.order(by: \.title).fetchAll(db), try RemindersList.fetchAll(db))
    }
    assertInlineSnapshot(
      of: ([tags.query.description, lists.query.description] + rows.0.map { "\($0.title) \($0.useCount)" }
        + rows.1.map { "\($0.id) \($0.title) \($0.position)" }).joined(separator: "\n"),
      as: .lines
    ) {
      """
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('home', 2), ('work', 0)
      INSERT INTO "remindersLists"
      ("id", "title", "position")
      VALUES
      ('00000000-0000-0000-0000-00000000000a', 'Errands', 1)
      home 2
      work 0
      00000000-0000-0000-0000-00000000000A Errands 1
      """
    }
  }
}
