import Chronicle
import Foundation
import InlineSnapshotTesting
import Synchronization
import Testing

@Table
nonisolated private struct RList: Hashable, Identifiable {
  let id: UUID
  var color: Int = Self.defaultColor
  var position = 0
  var title = ""
  static var defaultColor: Int { 0x4a99ef }
  static var defaultTitle: String { "Personal" }
}
extension RList.Draft: Identifiable {}

@Table
nonisolated private struct RListAsset: Hashable, Identifiable {
  @Column(primaryKey: true)
  let remindersListID: RList.ID
  var coverImage: Data?
  var id: RList.ID { remindersListID }
}

@Table
nonisolated private struct RReminder: Hashable, Identifiable {
  let id: UUID
  var dueDate: Date?
  var isFlagged = false
  var notes = ""
  var position = 0
  var priority: Priority?
  var remindersListID: RList.ID
  var status: Status = .incomplete
  var title = ""
  var isCompleted: Bool { status != .incomplete }
  enum Priority: Int, QueryBindable { case low = 1, medium, high }
  enum Status: Int, QueryBindable { case completed = 1, completing = 2, incomplete = 0 }
}
extension Updates<RReminder> {
  mutating func toggleStatus() {
    self.status = Case(self.status)
      .when(#bind(.incomplete), then: #bind(.completing))
      .else(#bind(.incomplete))
  }
}
extension RReminder.Draft: Identifiable {}

@Table
nonisolated private struct RTag: Hashable, Identifiable {
  @Column(primaryKey: true)
  var title: String
  var id: String { title }
}

extension RReminder {
  static let incomplete = Self.where { !$0.isCompleted }
  static let withTags = group(by: \.id)
    .leftJoin(RReminderTag.all) { $0.id.eq($1.reminderID) }
    .leftJoin(RTag.all) { $1.tagID.eq($2.primaryKey) }
}

private let exampleListIDs = (1...2).map { UUID(uuidString: "00000000-0000-0000-0000-00000000000\($0)")! }
private let exampleReminderIDs = (1...3).map { UUID(uuidString: "00000000-0000-0000-0000-0000000000a\($0)")! }

/// The example's tables, for the tests that do not run its migration.
private let exampleSchema = """
  CREATE TABLE "rLists" ("id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
    "color" INTEGER NOT NULL ON CONFLICT REPLACE DEFAULT 0, "position" INTEGER NOT NULL ON CONFLICT REPLACE DEFAULT 0,
    "title" TEXT NOT NULL ON CONFLICT REPLACE DEFAULT '') STRICT;
  CREATE TABLE "rReminders" ("id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()), "dueDate" TEXT,
    "isFlagged" INTEGER NOT NULL ON CONFLICT REPLACE DEFAULT 0, "notes" TEXT NOT NULL ON CONFLICT REPLACE DEFAULT '',
    "position" INTEGER NOT NULL ON CONFLICT REPLACE DEFAULT 0, "priority" INTEGER,
    "remindersListID" TEXT NOT NULL REFERENCES "rLists"("id") ON DELETE CASCADE, "status" INTEGER NOT NULL DEFAULT 0,
    "title" TEXT NOT NULL ON CONFLICT REPLACE DEFAULT '') STRICT;
  CREATE TABLE "rTags" ("title" TEXT COLLATE NOCASE PRIMARY KEY NOT NULL) STRICT;
  CREATE TABLE "rRemindersTags" ("id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()),
    "reminderID" TEXT NOT NULL REFERENCES "rReminders"("id") ON DELETE CASCADE,
    "tagID" TEXT NOT NULL REFERENCES "rTags"("title") ON DELETE CASCADE ON UPDATE CASCADE) STRICT;
  """

/// The example reads the clock through `@Dependency(\\.date.now)`.
private let exampleNow = Date(timeIntervalSince1970: 1_800_000_000)

nonisolated extension RReminder.TableColumns {
  var isCompleted: some QueryExpression<Bool> { status.neq(RReminder.Status.incomplete) }
  var isPastDue: some QueryExpression<Bool> {
    let now = exampleNow
    return !isCompleted && #sql("coalesce(date(\(dueDate)) < date(\(now)), 0)")
  }
  var isScheduled: some QueryExpression<Bool> { !isCompleted && dueDate.isNot(nil) }
}

nonisolated extension RTag {
  static let withReminders = group(by: \.primaryKey)
    .leftJoin(RReminderTag.all) { $0.primaryKey.eq($1.tagID) }
    .leftJoin(RReminder.all) { $1.reminderID.eq($2.id) }
}

@Table("rRemindersTags")
nonisolated private struct RReminderTag: Identifiable {
  let id: UUID
  let reminderID: RReminder.ID
  let tagID: RTag.ID
}

@Table
private struct RReminderText: FTS5 {
  let rowid: Int
  let title: String
  let notes: String
  let tags: String
}

/// The example's functions start tasks; these count their calls.
private let exampleCalls = Mutex<[String]>([])
@DatabaseFunction
nonisolated private func createDefaultRemindersList() { exampleCalls.withLock { $0.append("createDefaultRemindersList") } }
@DatabaseFunction
nonisolated private func handleReminderStatusUpdate() { exampleCalls.withLock { $0.append("handleReminderStatusUpdate") } }

/// sqlite-data's Reminders example (Examples/Reminders/Schema.swift) written
/// as it is there: its models, scopes, column helpers, `Updates` extension,
/// schema, triggers and seed, with Chronicle underneath. Left out: SwiftUI's
/// `Color` (an `Int` here), `@Dependency`, the CloudKit `SyncEngine`.
@Suite("Query builder: the Reminders example's schema, triggers and seed")
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
      SELECT count("rReminders"."id"), "rLists"."id", "rLists"."color", "rLists"."position", "rLists"."title" FROM "rLists" LEFT JOIN "rReminders" ON (("rLists"."id" = "rReminders"."remindersListID") AND NOT (("rReminders"."status" <> 0))) GROUP BY "rLists"."id" ORDER BY "rLists"."position"
      SELECT "rTags"."title" FROM "rTags" LEFT JOIN "rRemindersTags" ON ("rTags"."title" = "rRemindersTags"."tagID") LEFT JOIN "rReminders" ON ("rRemindersTags"."reminderID" = "rReminders"."id") GROUP BY "rTags"."title" HAVING (count("rReminders"."id") > 0) ORDER BY "rTags"."title"
      SELECT count("rReminders"."id") FILTER (WHERE NOT (("rReminders"."status" <> 0))), count("rReminders"."id") FILTER (WHERE ("rReminders"."isFlagged" AND NOT (("rReminders"."status" <> 0)))), count("rReminders"."id") FILTER (WHERE (NOT (("rReminders"."status" <> 0)) AND ("rReminders"."dueDate" IS NOT NULL))) FROM "rReminders"
      """
    }
  }

  /// The detail screen's query (Examples/Reminders/RemindersDetail.swift):
  /// builder closures with `if` and `switch`, the joined `withTags` scope,
  /// five tables, the FTS5 table joined by `rowid`.
  @Test(arguments: [DetailOrdering.dueDate, .manual, .priority, .title])
  func detailScreenQuery(ordering: DetailOrdering) throws {
    let fixture = try RemindersDatabase()
    let database = fixture.database
    try database.write { db in
      try db.execute(sql: exampleSchema + #"CREATE VIRTUAL TABLE "rReminderTexts" USING fts5("title", "notes", "tags", tokenize = 'trigram');"#)
      try db.seed {
        RList(id: exampleListIDs[0], color: 1, position: 1, title: "Personal")
        RReminder(id: exampleReminderIDs[0], dueDate: exampleNow, isFlagged: true, position: 3, priority: .low, remindersListID: exampleListIDs[0], title: "Groceries")
        RReminder(id: exampleReminderIDs[1], position: 1, priority: .high, remindersListID: exampleListIDs[0], status: .completed, title: "Haircut")
        RReminder(id: exampleReminderIDs[2], dueDate: exampleNow - 86_400, position: 2, remindersListID: exampleListIDs[0], title: "Laundry")
        RTag(title: "kids")
        RReminderTag.Draft(reminderID: exampleReminderIDs[0], tagID: "kids")
      }
      try db.execute(sql: """
        INSERT INTO rReminderTexts (rowid, title, notes, tags) SELECT rowid, title, notes, '' FROM rReminders
        """)
    }
    var lines: [String] = []
    for (showCompleted, detailType) in [(false, DetailType.all), (true, .all), (true, .tags(["kids"])), (false, .scheduled)] {
      let query = Self.remindersQuery(showCompleted: showCompleted, ordering: ordering, detailType: detailType)
      let rows = try database.read { db in try query.fetchAll(db) }
      lines.append("\(showCompleted ? "with" : "without") completed, \(detailType): " + rows.map { "\($0.reminder.title)\($0.isPastDue ? " (past due)" : "")" }.joined(separator: ", "))
    }
    let expected: [DetailOrdering: [String]] = [
      .dueDate: [
        "without completed, all: Laundry (past due), Groceries",
        "with completed, all: Laundry (past due), Groceries, Haircut",
        "with completed, tags([\"kids\"]): Groceries",
        "without completed, scheduled: Laundry (past due), Groceries",
      ],
      .manual: [
        "without completed, all: Laundry (past due), Groceries",
        "with completed, all: Laundry (past due), Groceries, Haircut",
        "with completed, tags([\"kids\"]): Groceries",
        "without completed, scheduled: Laundry (past due), Groceries",
      ],
      .priority: [
        "without completed, all: Groceries, Laundry (past due)",
        "with completed, all: Groceries, Laundry (past due), Haircut",
        "with completed, tags([\"kids\"]): Groceries",
        "without completed, scheduled: Groceries, Laundry (past due)",
      ],
      .title: [
        "without completed, all: Groceries, Laundry (past due)",
        "with completed, all: Groceries, Laundry (past due), Haircut",
        "with completed, tags([\"kids\"]): Groceries",
        "without completed, scheduled: Groceries, Laundry (past due)",
      ],
    ]
    #expect(lines == expected[ordering])
    if ordering == .priority {
      assertInlineSnapshot(of: Self.remindersQuery(showCompleted: true, ordering: ordering, detailType: .tags(["kids"])).query.description, as: .lines) {
        """
        SELECT "rReminders"."id", "rReminders"."dueDate", "rReminders"."isFlagged", "rReminders"."notes", "rReminders"."position", "rReminders"."priority", "rReminders"."remindersListID", "rReminders"."status", "rReminders"."title", "rLists"."id", "rLists"."color", "rLists"."position", "rLists"."title", (NOT (("rReminders"."status" <> 0)) AND coalesce(date("rReminders"."dueDate") < date('2027-01-15 08:00:00.000'), 0)), substr("rReminderTexts"."notes", 0, 200), "rReminderTexts"."tags" FROM "rReminders" LEFT JOIN "rRemindersTags" ON ("rReminders"."id" = "rRemindersTags"."reminderID") LEFT JOIN "rTags" ON ("rRemindersTags"."tagID" = "rTags"."title") JOIN "rLists" ON ("rReminders"."remindersListID" = "rLists"."id") JOIN "rReminderTexts" ON ("rReminders"."rowid" = "rReminderTexts"."rowid") WHERE (ifnull("rTags"."title", '') IN ('kids')) GROUP BY "rReminders"."id" ORDER BY ("rReminders"."status" <> 0), "rReminders"."priority" DESC, "rReminders"."isFlagged" DESC
        """
      }
    }
  }

  /// The search screen's queries (Examples/Reminders/SearchReminders.swift):
  /// FTS5 matches built with `if` and `for`, the FTS5 table joined to its
  /// reminders by `rowid`, highlights and snippets, a delete narrowed by a
  /// subquery of that join and a `#sql` condition with a raw number.
  @Test func searchScreenQueries() throws {
    let fixture = try RemindersDatabase()
    let database = fixture.database
    try database.write { db in
      try db.execute(sql: exampleSchema + #"CREATE VIRTUAL TABLE "rReminderTexts" USING fts5("title", "notes", "tags", tokenize = 'trigram');"#)
      try db.seed {
        RList(id: exampleListIDs[0], color: 1, position: 1, title: "Personal")
        RReminder(id: exampleReminderIDs[0], dueDate: exampleNow, notes: "Milk\nEggs", remindersListID: exampleListIDs[0], title: "Groceries")
        RReminder(id: exampleReminderIDs[1], dueDate: exampleNow - 90 * 86_400, notes: "Milk for the cat", remindersListID: exampleListIDs[0], status: .completed, title: "Pet shop")
        RReminder(id: exampleReminderIDs[2], remindersListID: exampleListIDs[0], title: "Laundry")
        RTag(title: "kids")
        RTag(title: "kitchen")
      }
      try db.execute(sql: """
        INSERT INTO rReminderTexts (rowid, title, notes, tags) SELECT rowid, title, replace(notes, char(10), ' '), '' FROM rReminders
        """)
    }
    let searchText = "#ki"
    let existingTags = ["kitchen"]
    let tags = RTag
      .where { $0.title.hasPrefix(searchText.dropFirst()) && !$0.title.in(existingTags) }
      .order(by: \.title)
    let base = Self.baseQuery(searchText: "milk", nearTokens: [])
    let completed = base.where { $1.isCompleted }.count()
    let showCompletedInSearchResults = false
    let rows = base
      .where {
        if !showCompletedInSearchResults {
          !$1.isCompleted
        }
      }
      .order { ($1.isCompleted, $1.dueDate) }
      .join(RList.all) { $1.remindersListID.eq($2.id) }
      .select {
        SearchRow.Columns(
          isPastDue: $1.isPastDue,
          notes: $0.notes.snippet("**", "**", "...", 64).replace("\n", " "),
          reminder: $1,
          remindersList: $2,
          tags: $0.tags.highlight("**", "**"),
          title: $0.title.highlight("**", "**")
        )
      }
    let monthsAgo: Int? = 1
    let deleteOld = RReminder
      .where { $0.isCompleted && $0.id.in(base.select { $1.id }) }
      .where {
        if let monthsAgo {
          #sql("\($0.dueDate) < date('now', '-\(raw: monthsAgo) months')")
        }
      }
      .delete()
    var lines: [String] = []
    try database.write { db in
      lines.append("tags: \((try tags.fetchAll(db)).map(\.title))")
      lines.append("completed: \(try completed.fetchOne(db) ?? -1)")
      lines += try rows.fetchAll(db).map { "\($0.title) | \($0.notes) | past due: \($0.isPastDue)" }
      try deleteOld.execute(db)
      lines.append("left: \(try RReminder.order(by: \.title).select(\.title).fetchAll(db))")
    }
    lines += [tags.query.description, deleteOld.query.description]
    assertInlineSnapshot(of: lines.joined(separator: "\n"), as: .lines) {
      #"""
      tags: ["kids"]
      completed: 1
      Groceries | **Milk** Eggs | past due: false
      left: ["Groceries", "Laundry"]
      SELECT "rTags"."title" FROM "rTags" WHERE (("rTags"."title" LIKE 'ki%' ESCAPE '\') AND NOT (("rTags"."title" IN ('kitchen')))) ORDER BY "rTags"."title"
      DELETE FROM "rReminders" WHERE (("rReminders"."status" <> 0) AND ("rReminders"."id" IN (SELECT "rReminders"."id" FROM "rReminderTexts" JOIN "rReminders" ON ("rReminderTexts"."rowid" = "rReminders"."rowid") WHERE ("rReminderTexts" MATCH 'milk')))) AND ("rReminders"."dueDate" < date('now', '-1 months'))
      """#
    }
  }

  /// Upstream types this `SelectOf<ReminderText, Reminder>`; here a join of
  /// two tables is a `Select2` (README, "Not yet").
  private static func baseQuery(
    searchText: String, nearTokens: [String]
  ) -> Select2<RReminderText.TableColumns, RReminder.TableColumns, (RReminderText, RReminder)> {
    RReminderText
      .where {
        if !searchText.isEmpty {
          $0.match(searchText)
        }
      }
      .where {
        for token in nearTokens {
          $0.match("NEAR(\(token))")
        }
      }
      .join(RReminder.all) { $0.rowid.eq($1.rowid) }
  }

  /// The reminder form's reads and its save (Examples/Reminders/ReminderForm.swift):
  /// a draft upserted for its key, its tags replaced by an array of drafts.
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

  enum DetailOrdering: CaseIterable, Sendable { case dueDate, manual, priority, title }
  enum DetailType: CustomStringConvertible {
    case all, scheduled, tags([String])
    var description: String {
      switch self {
      case .all: "all"
      case .scheduled: "scheduled"
      case .tags(let tags): "tags(\(tags))"
      }
    }
  }

  private static func remindersQuery(showCompleted: Bool, ordering: DetailOrdering, detailType: DetailType) -> some SelectStatement<DetailRow> {
    RReminder
      .where {
        if !showCompleted {
          $0.status.neq(RReminder.Status.completed)
        }
      }
      .order {
        if showCompleted {
          $0.isCompleted
        } else {
          $0.status.eq(RReminder.Status.completed)
        }
      }
      .order {
        switch ordering {
        case .dueDate: $0.dueDate.asc(nulls: .last)
        case .manual: $0.position
        case .priority: ($0.priority.desc(), $0.isFlagged.desc())
        case .title: $0.title
        }
      }
      .withTags
      .where { reminder, _, tag in
        switch detailType {
        case .all: true
        case .scheduled: reminder.isScheduled
        case .tags(let tags): tag.primaryKey.ifnull("").in(tags)
        }
      }
      .join(RList.all) { $0.remindersListID.eq($3.id) }
      .join(RReminderText.all) { $0.rowid.eq($4.rowid) }
      .select {
        DetailRow.Columns(
          reminder: $0,
          remindersList: $3,
          isPastDue: $0.isPastDue,
          notes: $4.notes.substr(0, 200),
          tags: $4.tags
        )
      }
  }
}

@Selection
private struct SearchRow: Identifiable {
  var id: RReminder.ID { reminder.id }
  let isPastDue: Bool
  let notes: String
  let reminder: RReminder
  let remindersList: RList
  let tags: String
  let title: String
}

@Selection
private struct DetailRow: Identifiable {
  var id: RReminder.ID { reminder.id }
  let reminder: RReminder
  let remindersList: RList
  let isPastDue: Bool
  let notes: String
  let tags: String
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
