import Chronicle
import Foundation

/// A view over reminders and their lists (the seeds' example).
@Table @Selection
struct ReminderWithList: Equatable {
  let reminderTitle: String
  let remindersListTitle: String
}

/// A row a trigger writes when a reminder's title changes.
/// Two properties stored under one name: a view of it numbers them.
@Table
struct ReminderAndListID {
  @Column("id")
  let reminderID: UUID
  @Column("id")
  let remindersListID: UUID
}

@Table
struct TitleChange: Equatable {
  let id: Int
  var reminderID: UUID
  var oldTitle: String
  var newTitle: String
}

let viewTriggerSchema = """
  CREATE TABLE "titleChanges" (
    "id" INTEGER PRIMARY KEY,
    "reminderID" TEXT NOT NULL,
    "oldTitle" TEXT NOT NULL,
    "newTitle" TEXT NOT NULL
  ) STRICT;
  """

/// `CREATE TEMPORARY VIEW` of ``ReminderWithList``.
let reminderWithListView = ReminderWithList.createTemporaryView(
  as: Reminder.join(RemindersList.all) { $0.remindersListID.eq($1.id) }
    .where { r, _ in r.title.neq("it's hidden") }
    .select { ReminderWithList.Columns(reminderTitle: $0.title, remindersListTitle: $1.title) })
