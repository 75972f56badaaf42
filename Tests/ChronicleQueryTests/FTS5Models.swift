import Chronicle

/// The seeds' full-text index of reminders.
@Table
struct ReminderText: FTS5, Equatable {
  let rowid: Int
  let title: String
  let notes: String
  let tags: String
}

let reminderTextsSchema = """
  CREATE VIRTUAL TABLE "reminderTexts" USING fts5("title", "notes", "tags", tokenize = 'trigram');
  """
