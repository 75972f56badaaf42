import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// The Reminders example's detail and search screens
/// (Examples/Reminders/RemindersDetail.swift, SearchReminders.swift): their
/// queries as written there, on the example's schema.
@Suite("Query builder: the Reminders example's detail and search screens")
struct RemindersExampleScreenTests {
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
        SELECT "rReminders"."id" AS "id_1", "rReminders"."dueDate" AS "dueDate", "rReminders"."isFlagged" AS "isFlagged", "rReminders"."notes" AS "notes_1", "rReminders"."position" AS "position_1", "rReminders"."priority" AS "priority", "rReminders"."remindersListID" AS "remindersListID", "rReminders"."status" AS "status", "rReminders"."title" AS "title_1", "rLists"."id" AS "id_2", "rLists"."color" AS "color", "rLists"."position" AS "position_2", "rLists"."title" AS "title_2", (NOT (("rReminders"."status" <> 0)) AND coalesce(date("rReminders"."dueDate") < date('2027-01-15 08:00:00.000'), 0)) AS "isPastDue", substr("rReminderTexts"."notes", 0, 200) AS "notes_2", "rReminderTexts"."tags" AS "tags"
        FROM "rReminders"
        LEFT JOIN "rRemindersTags" ON ("rReminders"."id" = "rRemindersTags"."reminderID")
        LEFT JOIN "rTags" ON ("rRemindersTags"."tagID" = "rTags"."title")
        JOIN "rLists" ON ("rReminders"."remindersListID" = "rLists"."id")
        JOIN "rReminderTexts" ON ("rReminders"."rowid" = "rReminderTexts"."rowid")
        WHERE (ifnull("rTags"."title", '') IN ('kids'))
        GROUP BY "rReminders"."id"
        ORDER BY ("rReminders"."status" <> 0), "rReminders"."priority" DESC, "rReminders"."isFlagged" DESC
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
      SELECT "rTags"."title"
      FROM "rTags"
      WHERE (("rTags"."title" LIKE 'ki%' ESCAPE '\') AND NOT (("rTags"."title" IN ('kitchen'))))
      ORDER BY "rTags"."title"
      DELETE FROM "rReminders"
      WHERE (("rReminders"."status" <> 0) AND ("rReminders"."id" IN (
        SELECT "rReminders"."id"
        FROM "rReminderTexts"
        JOIN "rReminders" ON ("rReminderTexts"."rowid" = "rReminders"."rowid")
        WHERE ("rReminderTexts" MATCH 'milk')
      ))) AND ("rReminders"."dueDate" < date('now', '-1 months'))
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

  private static func remindersQuery(showCompleted: Bool, ordering: DetailOrdering, detailType: DetailType) -> some Statement<DetailRow> {
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
