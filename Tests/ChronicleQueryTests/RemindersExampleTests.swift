import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// sqlite-data's Reminders example (Examples/Reminders/Schema.swift) written
/// as it is there: its models, scopes, column helpers, `Updates` extension,
/// schema, triggers and seed, with Chronicle underneath. Left out: SwiftUI's
/// `Color` (an `Int` here), `@Dependency`, the CloudKit `SyncEngine`.
@Suite("Query builder: the Reminders example's schema, triggers, seed, lists and forms")
struct RemindersExampleTests {
  @Test func schemaTriggersAndSeedRunAsWritten() throws {
    let fixture = try RemindersDatabase()
    let database = fixture.database
    var lines: [String] = []
    try database.write { db in
      db.add(function: $createDefaultRemindersList)
      db.add(function: $handleReminderStatusUpdate)
      try #sql(
        """
        CREATE TABLE "rLists" (
          "id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
          "color" INTEGER NOT NULL ON CONFLICT REPLACE DEFAULT \(raw: 0x4a99ef),
          "position" INTEGER NOT NULL ON CONFLICT REPLACE DEFAULT 0,
          "title" TEXT NOT NULL ON CONFLICT REPLACE DEFAULT ''
        ) STRICT
        """
      ).execute(db)
      try #sql("""
        CREATE TABLE "rListAssets" ("remindersListID" TEXT PRIMARY KEY NOT NULL REFERENCES "rLists"("id") ON DELETE CASCADE, "coverImage" BLOB) STRICT
        """).execute(db)
      try #sql("""
        CREATE TABLE "rReminders" (
          "id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
          "dueDate" TEXT,
          "isFlagged" INTEGER NOT NULL ON CONFLICT REPLACE DEFAULT 0,
          "notes" TEXT NOT NULL ON CONFLICT REPLACE DEFAULT '',
          "position" INTEGER NOT NULL ON CONFLICT REPLACE DEFAULT 0,
          "priority" INTEGER,
          "remindersListID" TEXT NOT NULL REFERENCES "rLists"("id") ON DELETE CASCADE,
          "status" INTEGER NOT NULL DEFAULT 0,
          "title" TEXT NOT NULL ON CONFLICT REPLACE DEFAULT ''
        ) STRICT
        """).execute(db)
      try #sql(#"CREATE TABLE "rTags" ("title" TEXT COLLATE NOCASE PRIMARY KEY NOT NULL) STRICT"#).execute(db)
      try #sql("""
        CREATE TABLE "rRemindersTags" (
          "id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
          "reminderID" TEXT NOT NULL REFERENCES "rReminders"("id") ON DELETE CASCADE,
          "tagID" TEXT NOT NULL REFERENCES "rTags"("title") ON DELETE CASCADE ON UPDATE CASCADE
        ) STRICT
        """).execute(db)
      try #sql(#"CREATE VIRTUAL TABLE "rReminderTexts" USING fts5("title", "notes", "tags", tokenize = 'trigram')"#).execute(db)

      try RList.createTemporaryTrigger(
        after: .insert { new in
          RList.find(new.id).update { $0.position = RList.select { ($0.position.max() ?? -1) + 1 } }
        }
      ).execute(db)
      try RReminder.createTemporaryTrigger(
        after: .insert { new in
          RReminder.find(new.id).update { $0.position = RReminder.select { ($0.position.max() ?? -1) + 1 } }
        }
      ).execute(db)
      try RList.createTemporaryTrigger(
        after: .delete { _ in
          Values($createDefaultRemindersList())
        } when: { _ in
          !RList.exists()
        }
      ).execute(db)
      try RReminder.createTemporaryTrigger(
        after: .insert { new in
          RReminderText.insert {
            RReminderText.Columns(rowid: new.rowid, title: new.title, notes: new.notes.replace("\n", " "), tags: "")
          }
        }
      ).execute(db)
      try RReminder.createTemporaryTrigger(
        after: .update {
          ($0.title, $0.notes)
        } forEachRow: { _, new in
          RReminderText
            .where { $0.rowid.eq(new.rowid) }
            .update {
              $0.title = new.title
              $0.notes = new.notes.replace("\n", " ")
            }
        }
      ).execute(db)
      try RReminder.createTemporaryTrigger(
        after: .delete { old in
          RReminderText.where { $0.rowid.eq(old.rowid) }.delete()
        }
      ).execute(db)
      func updateReminderTextTags(for reminderID: some QueryExpression<RReminder.ID>) -> UpdateOf<RReminderText> {
        RReminderText
          .where { $0.rowid.eq(RReminder.find(reminderID).select(\.rowid)) }
          .update {
            $0.tags =
              RReminderTag
              .order(by: \.tagID)
              .where { $0.reminderID.eq(reminderID) }
              .join(RTag.all) { $0.tagID.eq($1.primaryKey) }
              .select { ("#" + $1.title).groupConcat(" ") ?? "" }
          }
      }
      try RReminderTag.createTemporaryTrigger(after: .insert { new in updateReminderTextTags(for: new.reminderID) }).execute(db)
      try RReminderTag.createTemporaryTrigger(after: .delete { old in updateReminderTextTags(for: old.reminderID) }).execute(db)
      try RReminder.createTemporaryTrigger(
        after: .update {
          $0.status
        } forEachRow: { _, _ in
          Values($handleReminderStatusUpdate())
        } when: { _, new in
          new.status.eq(#bind(.completing))
        }
      ).execute(db)

      let listIDs = exampleListIDs
      let reminderIDs = exampleReminderIDs
      let now = exampleNow
      try db.seed {
        RList(id: listIDs[0], color: 1, title: "Personal")
        RList(id: listIDs[1], color: 2, title: "Family")
        RReminder(id: reminderIDs[0], dueDate: now.addingTimeInterval(-60 * 60 * 24), notes: "Milk\nEggs", remindersListID: listIDs[0], title: "Groceries")
        RReminder(id: reminderIDs[1], dueDate: now.addingTimeInterval(-60 * 60 * 24 * 2), isFlagged: true, remindersListID: listIDs[0], title: "Haircut")
        RReminder(id: reminderIDs[2], dueDate: now, remindersListID: listIDs[1], status: .completed, title: "Laundry")
        let tagIDs = ["car", "kids", "someday"]
        for tagID in tagIDs {
          RTag(title: tagID)
        }
        RReminderTag.Draft(reminderID: reminderIDs[0], tagID: tagIDs[2])
        RReminderTag.Draft(reminderID: reminderIDs[0], tagID: tagIDs[1])
      }
      try RReminder.find(reminderIDs[1]).update { $0.toggleStatus() }.execute(db)
      try RReminder.where { $0.status.eq(#bind(.completing)) }.update { $0.status = .completed }.execute(db)
      lines.append("texts: \(try RReminderText.select { ($0.rowid, $0.title, $0.notes, $0.tags) }.fetchAll(db))")
      lines.append("withTags: \(try RReminder.withTags.order { r, _, _ in r.title }.select { ($0.title, $2.title.groupConcat(", ")) }.fetchAll(db))")
      lines.append("withReminders: \(try RTag.withReminders.select { ($0.title, $2.id.count()) }.fetchAll(db))")
      lines.append("pastDue: \(try RReminder.where { $0.isPastDue }.select(\.title).fetchAll(db))")
      lines.append("scheduled: \(try RReminder.where { $0.isScheduled }.select(\.title).fetchAll(db))")
      lines.append("incomplete: \(try RReminder.incomplete.select { ($0.title, $0.position) }.fetchAll(db))")
      lines.append("lists: \(try RList.order(by: \.position).select { ($0.title, $0.position) }.fetchAll(db))")
      try RList.delete().execute(db)
    }
    lines.append("calls: \(exampleCalls.withLock { $0 })")
    assertInlineSnapshot(of: lines.joined(separator: "\n"), as: .lines) {
      """
      texts: [(1, "Groceries", "Milk Eggs", "#someday #kids"), (2, "Haircut", "", ""), (3, "Laundry", "", "")]
      withTags: [("Groceries", Optional("kids, someday")), ("Haircut", nil), ("Laundry", nil)]
      withReminders: [("car", 0), ("kids", 1), ("someday", 1)]
      pastDue: ["Groceries"]
      scheduled: ["Groceries"]
      incomplete: [("Groceries", 1)]
      lists: [("Personal", 1), ("Family", 2)]
      calls: ["handleReminderStatusUpdate", "createDefaultRemindersList"]
      """
    }
  }

  /// The lists screen's queries (Examples/Reminders/RemindersLists.swift).
  @Test func listsScreenQueries() throws {
    let fixture = try RemindersDatabase()
    let database = fixture.database
    try database.write { db in
      try db.execute(sql: exampleSchema)
      try db.seed {
        RList(id: exampleListIDs[0], color: 1, position: 1, title: "Personal")
        RList(id: exampleListIDs[1], color: 2, position: 2, title: "Family")
        RReminder(id: exampleReminderIDs[0], dueDate: exampleNow, isFlagged: true, remindersListID: exampleListIDs[0], title: "Groceries")
        RReminder(id: exampleReminderIDs[1], remindersListID: exampleListIDs[0], status: .completed, title: "Haircut")
        RReminder(id: exampleReminderIDs[2], remindersListID: exampleListIDs[1], title: "Laundry")
        RTag(title: "car")
        RTag(title: "kids")
        RReminderTag.Draft(reminderID: exampleReminderIDs[0], tagID: "kids")
      }
    }
    let lists = RList
      .group(by: \.id)
      .order(by: \.position)
      .leftJoin(RReminder.all) { $0.id.eq($1.remindersListID) && !$1.isCompleted }
      .select {
        ReminderListState.Columns(
          remindersCount: $1.id.count(),
          remindersList: $0
        )
      }
    let tags = RTag
      .order(by: \.title)
      .withReminders
      .having { $2.count().gt(0) }
      .select { tag, _, _ in tag }
    let stats = RReminder.select {
      Stats.Columns(
        allCount: $0.count(filter: !$0.isCompleted),
        flaggedCount: $0.count(filter: $0.isFlagged && !$0.isCompleted),
        scheduledCount: $0.count(filter: $0.isScheduled)
      )
    }
    var lines: [String] = []
    try database.write { db in
      lines.append("lists: " + (try lists.fetchAll(db)).map { "\($0.remindersList.title) \($0.remindersCount)" }.joined(separator: ", "))
      lines.append("tags: " + (try tags.fetchAll(db)).map(\.title).joined(separator: ", "))
      let counts = try stats.fetchOne(db) ?? Stats()
      lines.append("stats: all \(counts.allCount), flagged \(counts.flaggedCount), scheduled \(counts.scheduledCount)")
      var ids = try lists.fetchAll(db).map(\.remindersList.id)
      ids.reverse()
      try RList
        .where { $0.id.in(ids) }
        .update {
          let ids = Array(ids.enumerated())
          let (first, rest) = (ids.first!, ids.dropFirst())
          $0.position =
            rest
            .reduce(Case($0.id).when(first.element, then: first.offset)) { cases, id in
              cases.when(id.element, then: id.offset)
            }
            .else($0.position)
        }
        .execute(db)
      lines.append("moved: " + (try RList.order(by: \.position).select { ($0.title, $0.position) }.fetchAll(db)).map { "\($0.0) \($0.1)" }.joined(separator: ", "))
      try RTag.where { $0.title.in(["car"]) }.delete().execute(db)
    }
    lines += [lists.query.description, tags.query.description, stats.query.description]
    assertInlineSnapshot(of: lines.joined(separator: "\n"), as: .lines) {
      """
      lists: Personal 1, Family 1
      tags: kids
      stats: all 2, flagged 1, scheduled 1
      moved: Family 0, Personal 1
      SELECT count("rReminders"."id") AS "remindersCount", "rLists"."id" AS "id", "rLists"."color" AS "color", "rLists"."position" AS "position", "rLists"."title" AS "title"
      FROM "rLists"
      LEFT JOIN "rReminders" ON (("rLists"."id" = "rReminders"."remindersListID") AND NOT (("rReminders"."status" <> 0)))
      GROUP BY "rLists"."id"
      ORDER BY "rLists"."position"
      SELECT "rTags"."title"
      FROM "rTags"
      LEFT JOIN "rRemindersTags" ON ("rTags"."title" = "rRemindersTags"."tagID")
      LEFT JOIN "rReminders" ON ("rRemindersTags"."reminderID" = "rReminders"."id")
      GROUP BY "rTags"."title"
      HAVING (count("rReminders"."id") > 0)
      ORDER BY "rTags"."title"
      SELECT count("rReminders"."id") FILTER (WHERE NOT (("rReminders"."status" <> 0))) AS "allCount", count("rReminders"."id") FILTER (WHERE ("rReminders"."isFlagged" AND NOT (("rReminders"."status" <> 0)))) AS "flaggedCount", count("rReminders"."id") FILTER (WHERE (NOT (("rReminders"."status" <> 0)) AND ("rReminders"."dueDate" IS NOT NULL))) AS "scheduledCount"
      FROM "rReminders"
      """
    }
  }

  /// The detail screen's query (Examples/Reminders/RemindersDetail.swift):
  /// builder closures with `if` and `switch`, the joined `withTags` scope,
  /// five tables, the FTS5 table joined by `rowid`.
  @Test func reminderFormSave() throws {
    let fixture = try RemindersDatabase()
    let database = fixture.database
    try database.write { db in
      try db.execute(sql: exampleSchema)
      try db.seed {
        RList(id: exampleListIDs[0], color: 1, position: 1, title: "Personal")
        RTag(title: "car")
        RTag(title: "kids")
        RTag(title: "someday")
      }
    }
    func save(_ reminder: RReminder.Draft, selectedTags: [RTag]) throws -> UUID {
      try database.write { db in
        let reminderID = try RReminder.upsert { reminder }
          .returning(\.id)
          .fetchOne(db)!
        try RReminderTag
          .where { $0.reminderID.eq(reminderID) }
          .delete()
          .execute(db)
        try RReminderTag.insert {
          selectedTags.map { tag in
            RReminderTag.Draft(reminderID: reminderID, tagID: tag.id)
          }
        }
        .execute(db)
        return reminderID
      }
    }
    func selectedTags(_ reminderID: UUID) throws -> [String] {
      try database.read { db in
        try RTag
          .order(by: \.title)
          .join(RReminderTag.all) { $0.primaryKey.eq($1.tagID) }
          .where { $1.reminderID.eq(reminderID) }
          .select { tag, _ in tag }
          .fetchAll(db)
          .map(\.title)
      }
    }
    let id = try save(RReminder.Draft(remindersListID: exampleListIDs[0], title: "Groceries"), selectedTags: [RTag(title: "someday"), RTag(title: "car")])
    let firstTags = try selectedTags(id)
    var edited = try database.read { db in RReminder.Draft(try RReminder.find(id).fetchOne(db)!) }
    edited.title = "Groceries and gas"
    let sameID = try save(edited, selectedTags: [RTag(title: "kids")])
    let (list, reminders) = try database.read { db in
      (try RList.fetchOne(db)?.title, try RReminder.where { $0.remindersListID.eq(exampleListIDs[0]) }.fetchAll(db).map(\.title))
    }
    #expect(sameID == id)
    #expect(firstTags == ["car", "someday"])
    #expect(try selectedTags(id) == ["kids"])
    #expect(list == "Personal" && reminders == ["Groceries and gas"])
  }

  /// The tags form's top tags and the list form's save with its cover image
  /// (Examples/Reminders/TagsForm.swift, RemindersListForm.swift).
  @Test func tagsAndListForms() throws {
    let fixture = try RemindersDatabase()
    let database = fixture.database
    try database.write { db in
      try db.execute(sql: exampleSchema + """
        CREATE TABLE "rListAssets" ("remindersListID" TEXT PRIMARY KEY NOT NULL REFERENCES "rLists"("id") ON DELETE CASCADE,
          "coverImage" BLOB) STRICT;
        """)
      try db.seed {
        RList(id: exampleListIDs[0], color: 1, position: 1, title: "Personal")
        RReminder(id: exampleReminderIDs[0], remindersListID: exampleListIDs[0], title: "Groceries")
        RReminder(id: exampleReminderIDs[1], remindersListID: exampleListIDs[0], title: "Haircut")
        for title in ["adulting", "car", "kids", "night", "someday"] { RTag(title: title) }
        RReminderTag.Draft(reminderID: exampleReminderIDs[0], tagID: "someday")
        RReminderTag.Draft(reminderID: exampleReminderIDs[1], tagID: "someday")
        RReminderTag.Draft(reminderID: exampleReminderIDs[0], tagID: "kids")
        RReminderTag.Draft(reminderID: exampleReminderIDs[1], tagID: "car")
        RReminderTag.Draft(reminderID: exampleReminderIDs[0], tagID: "night")
      }
    }
    let (top, rest) = try database.read { db in
      let top = try RTag
        .withReminders
        .having { $2.count().gt(0) }
        .order { ($2.count().desc(), $0.title) }
        .select { tag, _, _ in tag }
        .limit(3)
        .fetchAll(db)
      let rest = try RTag
        .where { !$0.primaryKey.in(top.map(\.id)) }
        .order(by: \.title)
        .fetchAll(db)
      return (top.map(\.title), rest.map(\.title))
    }
    #expect(top == ["someday", "car", "kids"])
    #expect(rest == ["adulting", "night"])

    var remindersList = RList.Draft(try database.read { db in try RList.find(exampleListIDs[0]).fetchOne(db)! })
    remindersList.title = "Home"
    let coverImageData: Data? = Data([0xFF, 0xD8, 0xFF])
    try database.write { db in
      let remindersListID =
        try RList
        .upsert { remindersList }
        .returning(\.id)
        .fetchOne(db)
      guard let remindersListID else { Issue.record("No 'remindersListID'"); return }
      try RListAsset.upsert {
        RListAsset.Draft(remindersListID: remindersListID, coverImage: coverImageData)
      }
      .execute(db)
    }
    let (cover, title) = try database.read { db in
      (
        try RListAsset
          .where { $0.remindersListID.eq(exampleListIDs[0]) }
          .select(\.coverImage)
          .fetchOne(db) ?? nil,
        try RList.find(exampleListIDs[0]).select(\.title).fetchOne(db)
      )
    }
    #expect(cover == coverImageData && title == "Home")
  }
}

@Selection
private struct ReminderListState: Identifiable {
  var id: RList.ID { remindersList.id }
  var remindersCount: Int
  var remindersList: RList
}

@Selection
private struct Stats {
  var allCount = 0
  var flaggedCount = 0
  var scheduledCount = 0
}
