import Chronicle
import Foundation

/// Tags on reminders: the join table of a many-to-many relation.
@Table
struct ReminderTag: Equatable {
  let id: Int
  var reminderID: UUID
  var tagTitle: String
}

/// A table that references itself (a manager), for self-joins.
@Table
struct Employee: Equatable {
  let id: Int
  var name = ""
  var managerID: Int?
}

enum Manager: AliasName {}

/// A tree, for recursive common tables.
@Table
struct Category: Equatable {
  let id: Int
  var name = ""
  var parentID: Int?
}

/// Threaded comments.
@Table
struct Comment: Equatable {
  let id: Int
  var body = ""
  var parentID: Int?
}

/// A comment with its depth in the thread: the rows of a recursive common table.
@Table @Selection
struct CommentThread: Equatable {
  let id: Int
  var body: String
  var depth: Int
}

/// Per-list figures, selected through `@Selection`.
@Selection
struct ListStats: Equatable {
  var title: String
  var reminderCount: Int
  var completedCount: Int
  var averageScore: Double?
  var tags: String?
}

let joinsSchema = """
  CREATE TABLE "reminderTags" (
    "id" INTEGER PRIMARY KEY,
    "reminderID" TEXT NOT NULL REFERENCES "reminders"("id") ON DELETE CASCADE,
    "tagTitle" TEXT NOT NULL REFERENCES "tags"("title") ON DELETE CASCADE
  ) STRICT;
  CREATE TABLE "employees" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL DEFAULT '', "managerID" INTEGER) STRICT;
  CREATE TABLE "categories" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL DEFAULT '', "parentID" INTEGER) STRICT;
  CREATE TABLE "comments" ("id" INTEGER PRIMARY KEY, "body" TEXT NOT NULL DEFAULT '', "parentID" INTEGER) STRICT;
  """
