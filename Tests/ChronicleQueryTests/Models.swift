import Chronicle
import Foundation

@Table
struct RemindersList: Equatable {
  let id: UUID
  var title = ""
  var position = 0
}

@Table
struct Reminder: Equatable {
  enum Priority: Int, QueryBindable {
    case low = 1, medium, high
  }

  let id: UUID
  var remindersListID: UUID
  var title = ""
  var notes: String?
  var isCompleted = false
  var priority: Priority?
  var dueDate: Date?
  var score: Double = 0
  @Ephemeral var isSelected = false
}

@Table("tags")
struct Tag: Equatable {
  @Column(primaryKey: true) var title: String
  @Column("uses") var useCount = 0
}

/// A table whose only column is its key (not in the test schema: SQL only).
@Table
struct Counter {
  let id: Int
}

/// A column group, stored flattened in `notes`.
@Selection
struct Timestamps: Equatable {
  var createdAt: Date
  var updatedAt: Date?
  var isEdited: Bool { updatedAt != nil }  // computed: not a column
}

@Table
struct Note: Equatable {
  let id: Int
  var body = ""
  var timestamps: Timestamps
}

/// A result shape.
@Selection
struct ReminderRow: Equatable {
  var title: String
  var isUrgent: Bool
  var notes: String?
  var priority: Reminder.Priority?
}

let remindersSchema = """
  CREATE TABLE "remindersLists" (
    "id" TEXT PRIMARY KEY NOT NULL DEFAULT (uuid()),
    "title" TEXT NOT NULL DEFAULT '',
    "position" INTEGER NOT NULL DEFAULT 0
  ) STRICT;
  CREATE TABLE "reminders" (
    "id" TEXT PRIMARY KEY NOT NULL DEFAULT (uuid()),
    "remindersListID" TEXT NOT NULL REFERENCES "remindersLists"("id") ON DELETE CASCADE,
    "title" TEXT NOT NULL DEFAULT '',
    "notes" TEXT,
    "isCompleted" INTEGER NOT NULL DEFAULT 0,
    "priority" INTEGER,
    "dueDate" TEXT,
    "score" REAL NOT NULL DEFAULT 0
  ) STRICT;
  CREATE TABLE "tags" ("title" TEXT PRIMARY KEY NOT NULL, "uses" INTEGER NOT NULL DEFAULT 0) STRICT;
  CREATE TABLE "notes" (
    "id" INTEGER PRIMARY KEY,
    "body" TEXT NOT NULL DEFAULT '',
    "createdAt" TEXT NOT NULL,
    "updatedAt" TEXT
  ) STRICT;
  """

/// A Chronicle database holding `remindersSchema`, in a temporary directory
/// removed when the fixture is released.
final class RemindersDatabase {
  let directory: URL
  let database: ChronicleDatabase

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-query-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    database = try Chronicle.open(path: directory.appendingPathComponent("app.sqlite").path)
    try database.write { db in try db.execute(sql: remindersSchema) }
  }

  deinit { try? FileManager.default.removeItem(at: directory) }
}

extension ChronicleDatabase {
  /// A statement's SQL, then each row it returns, a line each: what the
  /// query tests' inline snapshots show side by side.
  func sqlAndRows(_ query: some QueryStatement) throws -> String {
    let rows = try read { db in try query.fetchAll(db) }
    return ([query.query.description] + rows.map { "\($0)" }).joined(separator: "\n")
  }

  /// Runs the statements in order, in one write; each one's SQL, then the
  /// rows it returns, indented (a write returns none).
  func sqlAndRows(of statements: [any QueryStatement]) throws -> String {
    try write { db in
      try statements.map { statement in
        ([statement.query.description] + (try statement.fetchAll(db)).map { "  \($0)" }).joined(separator: "\n")
      }.joined(separator: "\n")
    }
  }
}
