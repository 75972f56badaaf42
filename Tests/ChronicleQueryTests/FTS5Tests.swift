import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

import ChronicleTestSupport

@Suite("Query builder: FTS5 full-text search")
struct FTS5Tests {
  @Test func sql() {
    assertInlineSnapshot(
      of: ReminderText.where { $0.match("milk") }.order { $0.bm25() }
        .select { ($0.rowid, $0.title.highlight("<b>", "</b>"), $0.notes.snippet("<b>", "</b>", "…", 8)) }.query.description,
      as: .lines) {
      """
      SELECT "reminderTexts"."rowid", highlight("reminderTexts", 0, '<b>', '</b>'), snippet("reminderTexts", 1, '<b>', '</b>', '…', 8)
      FROM "reminderTexts"
      WHERE ("reminderTexts" MATCH 'milk')
      ORDER BY bm25("reminderTexts")
      """
    }
    assertInlineSnapshot(
      of: ReminderText.where { $0.tags.match("home") }.order { $0.bm25(10, 1, 0.5).desc() }.select(\.rowid).query.description,
      as: .lines) {
      """
      SELECT "reminderTexts"."rowid"
      FROM "reminderTexts"
      WHERE ("reminderTexts"."tags" MATCH 'home')
      ORDER BY bm25("reminderTexts", 10.0, 1.0, 0.5) DESC
      """
    }
  }

  @Test("the seeds' search: match, bm25 ranking, highlight and snippet on a real index")
  func search() throws {
    let directory = try TemporaryDirectory()
    let database = try Chronicle.open(path: directory.path("app.sqlite"))
    try database.write { db in
      try #sql(QueryFragment(sql: reminderTextsSchema)).execute(db)
      try ReminderText.insert {
        ReminderText(rowid: 1, title: "Buy milk", notes: "Oat milk, not cow milk, from the corner shop on the way home", tags: "errands")
        ReminderText(rowid: 2, title: "Call mom", notes: "Ask about the milkshake recipe", tags: "family")
        ReminderText(rowid: 3, title: "Finish report", notes: "Numbers for the quarter", tags: "work")
      }.execute(db)
    }
    try database.read { db in
      let ranked = try ReminderText.where { $0.match("milk") }.order { $0.bm25() }.select(\.rowid).fetchAll(db)
      #expect(ranked == [1, 2])  // three matches in 1, one (in "milkshake", trigrams) in 2

      let highlighted = try ReminderText.where { $0.match("milk") }.order(by: \.rowid)
        .select { ($0.title.highlight("<b>", "</b>"), $0.notes.highlight("[", "]")) }.fetchAll(db)
      #expect(highlighted.map(\.0) == ["Buy <b>milk</b>", "Call mom"])
      #expect(highlighted.map(\.1) == ["Oat [milk], not cow [milk], from the corner shop on the way home", "Ask about the [milk]shake recipe"])

      let snippets = try ReminderText.where { $0.match("corner") }.select { $0.notes.snippet("<b>", "</b>", "…", 4) }.fetchAll(db)
      #expect(snippets.count == 1)
      #expect(snippets[0].contains("<b>corner</b>") && snippets[0].hasPrefix("…") && snippets[0].hasSuffix("…"))

      #expect(try ReminderText.where { $0.tags.match("work") }.select(\.title).fetchAll(db) == ["Finish report"])
      #expect(try ReminderText.where { $0.title.match("milk") }.count().fetchOne(db) == 1)
    }
    // The virtual table is schema, not synced rows: a replay recreates it
    // (empty: its rows are not in the log) and the replay still succeeds.
    let replayPath = directory.path("replay.sqlite")
    _ = try database.replay(into: replayPath)
    let replayed = try DatabaseQueue(path: replayPath)
    #expect(try replayed.read { db in try ReminderText.where { $0.match("milk") }.fetchCount(db) } == 0)
  }

  @Test("an index kept by a trigger follows merged rows: the trigger writes only the untracked virtual table")
  func indexFollowsSync() async throws {
    let directory = try TemporaryDirectory()
    func open(_ name: String) throws -> ChronicleDatabase {
      let database = try Chronicle.open(path: directory.path(name))
      try database.write { db in
        try db.execute(sql: remindersSchema + reminderTextsSchema + """
          CREATE TRIGGER "reminders_index" AFTER INSERT ON "reminders" BEGIN
            INSERT INTO "reminderTexts" ("title", "notes", "tags") VALUES (new."title", ifnull(new."notes", ''), '');
          END;
          """)
      }
      return database
    }
    let phone = try open("phone.sqlite")
    let laptop = try open("laptop.sqlite")
    try await phone.write { db in
      try RemindersList.insert { RemindersList.Draft(title: "Home") }.execute(db)
      let home = try RemindersList.select(\.id).fetchOne(db)!
      try Reminder.insert { Reminder.Draft(remindersListID: home, title: "Buy oat milk", notes: "corner shop") }.execute(db)
    }
    _ = try await SyncEngine(for: laptop, transport: .memory(phone)).fetchChanges()
    let found = try await laptop.read { db in
      try ReminderText.where { $0.match("oat milk") }.select { $0.title.highlight("*", "*") }.fetchAll(db)
    }
    #expect(found == ["Buy *oat* *milk*"])
  }

  /// `rank` and weights named by column, as upstream spells them; `rank`
  /// is bm25 with default weights.
  @Test func rankAndWeightsByColumn() throws {
    let directory = try TemporaryDirectory()
    let database = try Chronicle.open(path: directory.path("app.sqlite"))
    try database.write { db in
      try #sql(QueryFragment(sql: reminderTextsSchema)).execute(db)
      try ReminderText.insert {
        ReminderText(rowid: 1, title: "Buy milk", notes: "Oat milk from the shop", tags: "errands")
        ReminderText(rowid: 2, title: "Call mom", notes: "Ask about milk", tags: "milk family")
      }.execute(db)
    }
    let byRank = ReminderText.where { $0.match("milk") }.order { $0.rank }.select { ($0.rowid, $0.rank, $0.bm25()) }
    let tagsFirst = ReminderText.where { $0.match("milk") }.order { $0.bm25([\.tags: 100, \.title: 0.5]) }.select(\.rowid)
    let titleFirst = ReminderText.where { $0.match("milk") }.order { $0.bm25([\.title: 100, \.tags: 0.01]) }.select(\.rowid)
    let (ranked, weighted, byTitle) = try database.read { db in
      (try byRank.fetchAll(db), try tagsFirst.fetchAll(db), try titleFirst.fetchAll(db))
    }
    #expect(ranked.allSatisfy { $0.1 == $0.2 }, "rank is bm25 with default weights: \(ranked)")
    assertInlineSnapshot(
      of: [
        byRank.query.description, "\(ranked.map(\.0))", tagsFirst.query.description, "\(weighted)",
        titleFirst.query.description, "\(byTitle)",
      ].joined(separator: "\n"), as: .lines) {
      """
      SELECT "reminderTexts"."rowid", "reminderTexts"."rank", bm25("reminderTexts")
      FROM "reminderTexts"
      WHERE ("reminderTexts" MATCH 'milk')
      ORDER BY "reminderTexts"."rank"
      [2, 1]
      SELECT "reminderTexts"."rowid"
      FROM "reminderTexts"
      WHERE ("reminderTexts" MATCH 'milk')
      ORDER BY bm25("reminderTexts", 0.5, 1.0, 100.0)
      [2, 1]
      SELECT "reminderTexts"."rowid"
      FROM "reminderTexts"
      WHERE ("reminderTexts" MATCH 'milk')
      ORDER BY bm25("reminderTexts", 100.0, 1.0, 0.01)
      [1, 2]
      """
    }
  }

  /// Upstream's outer join of a table with its index (`$1.tags.highlight`,
  /// `$1.bm25()`), and the functions through an alias of the index.
  @Test func onTheNullableSideOfAnOuterJoinAndThroughAnAlias() throws {
    let fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try #sql(QueryFragment(sql: reminderTextsSchema)).execute(db)
      try Note.insert {
        Note(id: 1, body: "milk", timestamps: Timestamps(createdAt: Date(timeIntervalSince1970: 0), updatedAt: nil))
        Note(id: 2, body: "report", timestamps: Timestamps(createdAt: Date(timeIntervalSince1970: 0), updatedAt: nil))
        Note(id: 3, body: "none", timestamps: Timestamps(createdAt: Date(timeIntervalSince1970: 0), updatedAt: nil))
      }.execute(db)
      try ReminderText.insert {
        ReminderText(rowid: 1, title: "Buy milk", notes: "Oat milk", tags: "errands home")
        ReminderText(rowid: 2, title: "Finish report", notes: "Numbers", tags: "work")
      }.execute(db)
    }
    let joined = Note
      .leftJoin(ReminderText.all) { $0.id.eq($1.rowid) }
      .order { note, text in (text.bm25(), note.id) }
      .select { ($0.id, $1.tags.highlight("**", "**"), $1.notes.snippet("[", "]", "…", 4)) }
    let aliased = ReminderText.as(FoundText.self)
      .where { $0.match("milk") }
      .order { $0.bm25() }
      .select { ($0.rowid, $0.title.highlight("<", ">"), $0.rank) }
    let (joinedRows, aliasedRows) = try fixture.database.read { db in (try joined.fetchAll(db), try aliased.fetchAll(db)) }
    var lines = [joined.query.description]
    for row in joinedRows { lines.append("\(row)") }
    lines.append(aliased.query.description)
    for (rowid, title, rank) in aliasedRows { lines.append("\(rowid) \(title) rank below 0: \(rank.map { $0 < 0 } ?? false)") }
    assertInlineSnapshot(of: lines.joined(separator: "\n"), as: .lines) {
      """
      SELECT "notes"."id", CASE WHEN "reminderTexts"."rowid" IS NULL THEN NULL ELSE highlight("reminderTexts", 2, '**', '**') END, CASE WHEN "reminderTexts"."rowid" IS NULL THEN NULL ELSE snippet("reminderTexts", 1, '[', ']', '…', 4) END
      FROM "notes"
      LEFT JOIN "reminderTexts" ON ("notes"."id" = "reminderTexts"."rowid")
      ORDER BY CASE WHEN "reminderTexts"."rowid" IS NULL THEN NULL ELSE bm25("reminderTexts") END, "notes"."id"
      (3, nil, nil)
      (1, Optional("errands home"), Optional("Oat milk"))
      (2, Optional("work"), Optional("Numbers"))
      SELECT "foundTexts"."rowid", highlight("foundTexts"."reminderTexts", 0, '<', '>'), "foundTexts"."rank"
      FROM "reminderTexts" AS "foundTexts"
      WHERE ("foundTexts"."reminderTexts" MATCH 'milk')
      ORDER BY bm25("foundTexts"."reminderTexts")
      1 Buy <milk> rank below 0: true
      """
    }
  }
}

private enum FoundText: AliasName {}
