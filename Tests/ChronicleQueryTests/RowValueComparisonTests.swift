import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// Whole rows and column groups compared with a value, as SQLite's row
/// values, with the SQL and the rows they select.
@Suite("Query builder: comparing whole rows and column groups")
struct RowValueComparisonTests {
  let start = Date(timeIntervalSince1970: 1_700_000_000)

  @Test func columnGroupsAndRows() throws {
    let fixture = try RemindersDatabase()
    let early = Timestamps(createdAt: start, updatedAt: nil)
    let edited = Timestamps(createdAt: start, updatedAt: start.addingTimeInterval(60))
    let late = Timestamps(createdAt: start.addingTimeInterval(3600), updatedAt: nil)
    try fixture.database.write { db in
      try Note.insert {
        Note(id: 1, body: "early", timestamps: early)
        Note(id: 2, body: "edited", timestamps: edited)
        Note(id: 3, body: "late", timestamps: late)
      }.execute(db)
      try Tag.insert { Tag(title: "home", useCount: 2); Tag(title: "work", useCount: 3) }.execute(db)
    }
    let sameGroup = Note.where { $0.timestamps == early }.select(\.body)
    let groupEq = Note.where { $0.timestamps.eq(edited) }.select(\.body)
    let before = Note.where { $0.timestamps < late }.order(by: \.id).select(\.body)
    let atOrAfter = Note.where { $0.timestamps.gte(edited) }.order(by: \.id).select(\.body)
    let groupToColumns = Note.where { $0.timestamps.eq(Timestamps.Columns(createdAt: $0.timestamps.createdAt, updatedAt: $0.timestamps.updatedAt)) }
      .order(by: \.id).select(\.body)
    let wholeRow = Tag.where { $0.eq(Tag(title: "work", useCount: 3)) }.select(\.title)
    let notRow = Tag.where { $0 != Tag(title: "work", useCount: 3) }.select(\.title)
    let afterRow = Tag.where { $0 > Tag(title: "home", useCount: 2) }.select(\.title)
    let upToRow = Tag.where { $0.lte(Tag(title: "home", useCount: 5)) }.select(\.title)
    let output = try fixture.database.read { db in
      [
        sameGroup.query.description, try sameGroup.fetchAll(db).joined(separator: ", "),
        groupEq.query.description, try groupEq.fetchAll(db).joined(separator: ", "),
        before.query.description, try before.fetchAll(db).joined(separator: ", "),
        atOrAfter.query.description, try atOrAfter.fetchAll(db).joined(separator: ", "),
        groupToColumns.query.description, try groupToColumns.fetchAll(db).joined(separator: ", "),
        wholeRow.query.description, try wholeRow.fetchAll(db).joined(separator: ", "),
        notRow.query.description, try notRow.fetchAll(db).joined(separator: ", "),
        afterRow.query.description, try afterRow.fetchAll(db).joined(separator: ", "),
        upToRow.query.description, try upToRow.fetchAll(db).joined(separator: ", "),
      ].joined(separator: "\n")
    }
    assertInlineSnapshot(of: output, as: .lines) {
      """
      SELECT "notes"."body" FROM "notes" WHERE (("notes"."createdAt", "notes"."updatedAt") IS ('2023-11-14 22:13:20.000', NULL))
      early
      SELECT "notes"."body" FROM "notes" WHERE (("notes"."createdAt", "notes"."updatedAt") = ('2023-11-14 22:13:20.000', '2023-11-14 22:14:20.000'))
      edited
      SELECT "notes"."body" FROM "notes" WHERE (("notes"."createdAt", "notes"."updatedAt") < ('2023-11-14 23:13:20.000', NULL)) ORDER BY "notes"."id"
      early, edited
      SELECT "notes"."body" FROM "notes" WHERE (("notes"."createdAt", "notes"."updatedAt") >= ('2023-11-14 22:13:20.000', '2023-11-14 22:14:20.000')) ORDER BY "notes"."id"
      edited, late
      SELECT "notes"."body" FROM "notes" WHERE (("notes"."createdAt", "notes"."updatedAt") = ("notes"."createdAt", "notes"."updatedAt")) ORDER BY "notes"."id"
      edited
      SELECT "tags"."title" FROM "tags" WHERE (("tags"."title", "tags"."uses") = ('work', 3))
      work
      SELECT "tags"."title" FROM "tags" WHERE (("tags"."title", "tags"."uses") IS NOT ('work', 3))
      home
      SELECT "tags"."title" FROM "tags" WHERE (("tags"."title", "tags"."uses") > ('home', 2))
      work
      SELECT "tags"."title" FROM "tags" WHERE (("tags"."title", "tags"."uses") <= ('home', 5))
      home
      """
    }
  }
}
