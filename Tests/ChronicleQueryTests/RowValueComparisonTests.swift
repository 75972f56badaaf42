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
      SELECT "notes"."body"
      FROM "notes"
      WHERE (("notes"."createdAt", "notes"."updatedAt") IS ('2023-11-14 22:13:20.000', NULL))
      early
      SELECT "notes"."body"
      FROM "notes"
      WHERE (("notes"."createdAt", "notes"."updatedAt") = ('2023-11-14 22:13:20.000', '2023-11-14 22:14:20.000'))
      edited
      SELECT "notes"."body"
      FROM "notes"
      WHERE (("notes"."createdAt", "notes"."updatedAt") < ('2023-11-14 23:13:20.000', NULL))
      ORDER BY "notes"."id"
      early, edited
      SELECT "notes"."body"
      FROM "notes"
      WHERE (("notes"."createdAt", "notes"."updatedAt") >= ('2023-11-14 22:13:20.000', '2023-11-14 22:14:20.000'))
      ORDER BY "notes"."id"
      edited, late
      SELECT "notes"."body"
      FROM "notes"
      WHERE (("notes"."createdAt", "notes"."updatedAt") = ("notes"."createdAt", "notes"."updatedAt"))
      ORDER BY "notes"."id"
      edited
      SELECT "tags"."title"
      FROM "tags"
      WHERE (("tags"."title", "tags"."uses") = ('work', 3))
      work
      SELECT "tags"."title"
      FROM "tags"
      WHERE (("tags"."title", "tags"."uses") IS NOT ('work', 3))
      home
      SELECT "tags"."title"
      FROM "tags"
      WHERE (("tags"."title", "tags"."uses") > ('home', 2))
      work
      SELECT "tags"."title"
      FROM "tags"
      WHERE (("tags"."title", "tags"."uses") <= ('home', 5))
      home
      """
    }
  }

  /// On an outer join's nullable side: where the join found no row its
  /// columns are NULL, so `=`, `<`… read NULL and drop the row, `IS` reads
  /// false and `IS NOT` true.
  @Test func onTheNullableSideOfAnOuterJoin() throws {
    let fixture = try RemindersDatabase()
    let early = Timestamps(createdAt: start, updatedAt: nil)
    let late = Timestamps(createdAt: start.addingTimeInterval(3600), updatedAt: nil)
    try fixture.database.write { db in
      try Note.insert {
        Note(id: 1, body: "home", timestamps: early)
        Note(id: 2, body: "work", timestamps: late)
      }.execute(db)
      try Tag.insert { Tag(title: "home", useCount: 1); Tag(title: "work", useCount: 2); Tag(title: "idle", useCount: 3) }.execute(db)
    }
    let tagsAndNotes = Tag.leftJoin(Note.all) { $0.title.eq($1.body) }.order { tag, _ in tag.title }
    let work = Note(id: 2, body: "work", timestamps: late)
    var lines: [String] = []
    func run(_ query: some SelectStatement<String>) throws {
      lines.append(query.query.description)
      lines.append(try fixture.database.read { try query.fetchAll($0) }.joined(separator: ", "))
    }
    try run(tagsAndNotes.where { $1.timestamps == early }.select { tag, _ in tag.title })
    try run(tagsAndNotes.where { $1.timestamps != early }.select { tag, _ in tag.title })
    try run(tagsAndNotes.where { $1.timestamps.eq(late) }.select { tag, _ in tag.title })
    try run(tagsAndNotes.where { $1.timestamps.neq(late) }.select { tag, _ in tag.title })
    try run(tagsAndNotes.where { $1.timestamps < late }.select { tag, _ in tag.title })
    try run(tagsAndNotes.where { $1.timestamps.gte(early) && $0.useCount > 1 }.select { tag, _ in tag.title })
    try run(tagsAndNotes.where { $1 == work }.select { tag, _ in tag.title })
    try run(tagsAndNotes.where { $1.isNot(work) }.select { tag, _ in tag.title })
    try run(tagsAndNotes.where { $1.lt(work) }.select { tag, _ in tag.title })
    let output = lines.joined(separator: "\n")
    assertInlineSnapshot(of: output, as: .lines) {
      """
      SELECT "tags"."title"
      FROM "tags"
      LEFT JOIN "notes" ON ("tags"."title" = "notes"."body")
      WHERE (("notes"."createdAt", "notes"."updatedAt") IS ('2023-11-14 22:13:20.000', NULL))
      ORDER BY "tags"."title"
      home
      SELECT "tags"."title"
      FROM "tags"
      LEFT JOIN "notes" ON ("tags"."title" = "notes"."body")
      WHERE (("notes"."createdAt", "notes"."updatedAt") IS NOT ('2023-11-14 22:13:20.000', NULL))
      ORDER BY "tags"."title"
      idle, work
      SELECT "tags"."title"
      FROM "tags"
      LEFT JOIN "notes" ON ("tags"."title" = "notes"."body")
      WHERE (("notes"."createdAt", "notes"."updatedAt") = ('2023-11-14 23:13:20.000', NULL))
      ORDER BY "tags"."title"

      SELECT "tags"."title"
      FROM "tags"
      LEFT JOIN "notes" ON ("tags"."title" = "notes"."body")
      WHERE (("notes"."createdAt", "notes"."updatedAt") <> ('2023-11-14 23:13:20.000', NULL))
      ORDER BY "tags"."title"
      home
      SELECT "tags"."title"
      FROM "tags"
      LEFT JOIN "notes" ON ("tags"."title" = "notes"."body")
      WHERE (("notes"."createdAt", "notes"."updatedAt") < ('2023-11-14 23:13:20.000', NULL))
      ORDER BY "tags"."title"
      home
      SELECT "tags"."title"
      FROM "tags"
      LEFT JOIN "notes" ON ("tags"."title" = "notes"."body")
      WHERE ((("notes"."createdAt", "notes"."updatedAt") >= ('2023-11-14 22:13:20.000', NULL)) AND ("tags"."uses" > 1))
      ORDER BY "tags"."title"
      work
      SELECT "tags"."title"
      FROM "tags"
      LEFT JOIN "notes" ON ("tags"."title" = "notes"."body")
      WHERE (("notes"."id", "notes"."body", "notes"."createdAt", "notes"."updatedAt") IS (2, 'work', '2023-11-14 23:13:20.000', NULL))
      ORDER BY "tags"."title"
      work
      SELECT "tags"."title"
      FROM "tags"
      LEFT JOIN "notes" ON ("tags"."title" = "notes"."body")
      WHERE (("notes"."id", "notes"."body", "notes"."createdAt", "notes"."updatedAt") IS NOT (2, 'work', '2023-11-14 23:13:20.000', NULL))
      ORDER BY "tags"."title"
      home, idle
      SELECT "tags"."title"
      FROM "tags"
      LEFT JOIN "notes" ON ("tags"."title" = "notes"."body")
      WHERE (("notes"."id", "notes"."body", "notes"."createdAt", "notes"."updatedAt") < (2, 'work', '2023-11-14 23:13:20.000', NULL))
      ORDER BY "tags"."title"
      home
      """
    }
  }
}
