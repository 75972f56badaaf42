import Chronicle
import Foundation
import Synchronization

// sqlite-data's Reminders example (Examples/Reminders/Schema.swift) as it
// is written there: models, scopes, column helpers, the `Updates`
// extension and the functions its triggers call. Left out: SwiftUI's
// `Color` (an `Int` here), `@Dependency`, the CloudKit `SyncEngine`.
// Prefixed `R` so as not to meet the other tests' models.

@Table
nonisolated struct RList: Hashable, Identifiable {
  let id: UUID
  var color: Int = Self.defaultColor
  var position = 0
  var title = ""
  static var defaultColor: Int { 0x4a99ef }
  static var defaultTitle: String { "Personal" }
}
extension RList.Draft: Identifiable {}

@Table
nonisolated struct RListAsset: Hashable, Identifiable {
  @Column(primaryKey: true)
  let remindersListID: RList.ID
  var coverImage: Data?
  var id: RList.ID { remindersListID }
}

@Table
nonisolated struct RReminder: Hashable, Identifiable {
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
nonisolated struct RTag: Hashable, Identifiable {
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

let exampleListIDs = (1...2).map { UUID(uuidString: "00000000-0000-0000-0000-00000000000\($0)")! }
let exampleReminderIDs = (1...3).map { UUID(uuidString: "00000000-0000-0000-0000-0000000000a\($0)")! }

/// The example's tables, for the tests that do not run its migration.
let exampleSchema = """
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
let exampleNow = Date(timeIntervalSince1970: 1_800_000_000)

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
nonisolated struct RReminderTag: Identifiable {
  let id: UUID
  let reminderID: RReminder.ID
  let tagID: RTag.ID
}

@Table
struct RReminderText: FTS5 {
  let rowid: Int
  let title: String
  let notes: String
  let tags: String
}

/// The example's functions start tasks; these count their calls.
let exampleCalls = Mutex<[String]>([])
@DatabaseFunction
nonisolated func createDefaultRemindersList() { exampleCalls.withLock { $0.append("createDefaultRemindersList") } }
@DatabaseFunction
nonisolated func handleReminderStatusUpdate() { exampleCalls.withLock { $0.append("handleReminderStatusUpdate") } }
