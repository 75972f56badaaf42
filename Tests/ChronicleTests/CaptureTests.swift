import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

@Suite("Capture: one event per write transaction")
struct CaptureTests {
  let directory: TemporaryDirectory
  let database: ChronicleDatabase
  let listID = "3f1c6c52-8d0b-4a3e-9a51-1d2f6b1c0a01"

  init() throws {
    directory = try TemporaryDirectory()
    database = try makeDatabase(directory)
    try database.write { db in
      try db.execute(sql: "INSERT INTO remindersLists (id, title) VALUES (?, 'Home')", arguments: [listID])
    }
  }

  @Test func createTableIsASchemaEventAndTablesAreTrackedAutomatically() throws {
    let first = try #require(try database.log.events().first?.event)
    let statements = first.operations.compactMap { operation -> String? in
      if case .schema(.execute(let sql)) = operation { sql } else { nil }
    }
    #expect(statements.count == 3)
    #expect(statements[0].hasPrefix("CREATE TABLE remindersLists"))
    #expect(statements[2].hasPrefix("CREATE INDEX reminders_by_list"))
    #expect(try database.trackedTables == ["reminders", "remindersLists"])
  }

  @Test func rawSQLInsertIsCapturedWithEveryColumn() throws {
    let (_, stored) = try database.writeReturningEvent { db in
      try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (1, 'Milk', ?)", arguments: [listID])
    }
    let event = try #require(stored?.event)
    #expect(event.operations == [
      .insert(table: 0, values: [.integer(1), .text("Milk"), .null, .integer(0), .null, .null, .text(listID)])
    ])
    #expect(event.tables[0].name == "reminders")
    #expect(event.tables[0].primaryKey == [0])
  }

  @Test func theSummaryOfAWriteMatchesTheEventItAppended() throws {
    let (value, summary) = try database.writeSummarizingEvent { db -> Int in
      for id in 1...3 {
        try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (?, 'Milk', ?)", arguments: [id, listID])
      }
      try db.execute(sql: "DELETE FROM reminders WHERE id = 2")
      return 7
    }
    let appended = try #require(summary)
    let stored = try #require(try database.log.events().last)
    #expect(value == 7)
    #expect(appended.position == stored.id && appended.id == stored.event.id)
    // The row inserted and deleted in the same transaction leaves nothing.
    #expect(appended.rowChanges == 2 && stored.event.rowChangeCount == 2)
    #expect(appended.rawSize == stored.rawSize && appended.storedSize == stored.storedSize)
    // A transaction that changes nothing appends nothing.
    #expect(try database.writeSummarizingEvent { _ in }.appended == nil)
  }

  @Test func updateRecordsOnlyChangedColumns() throws {
    try database.write { db in
      try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (1, 'Milk', ?)", arguments: [listID])
    }
    let (_, stored) = try database.writeReturningEvent { db in
      try db.execute(sql: "UPDATE reminders SET title = 'Oat milk', isCompleted = 0, priority = 2.5 WHERE id = 1")
    }
    let event = try #require(stored?.event)
    #expect(event.operations == [
      .update(table: 0, key: [.integer(1)], changes: [ColumnValue(column: 1, value: .text("Oat milk")), ColumnValue(column: 4, value: .real(2.5))])
    ])
  }

  @Test func commitFailingAfterTheAppendLeavesNoGapInSequences() throws {
    try database.write { db in
      try db.execute(sql: """
        CREATE TABLE notes (
          id INTEGER PRIMARY KEY,
          reminderID INTEGER REFERENCES reminders(id) DEFERRABLE INITIALLY DEFERRED
        ) STRICT
        """)
    }
    // The deferred foreign key fails at COMMIT, after the event was appended.
    #expect(throws: DatabaseError.self) {
      try database.write { db in try db.execute(sql: "INSERT INTO notes (id, reminderID) VALUES (1, 999)") }
    }
    try database.write { db in
      try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (999, 'Parent', ?)", arguments: [listID])
      try db.execute(sql: "INSERT INTO notes (id, reminderID) VALUES (1, 999)")
    }
    let sequences = try database.log.events().map(\.event.sequence)
    #expect(sequences == Array(1...UInt64(sequences.count)))
    #expect(try database.replayMatchesLive(directory))
  }

  @Test func writeThatChangesNothingAppendsNothing() throws {
    try database.write { db in
      try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (1, 'Milk', ?)", arguments: [listID])
    }
    let before = try database.eventCount()
    let (_, event) = try database.writeReturningEvent { db in
      try db.execute(sql: "UPDATE reminders SET title = 'Milk'")
      try db.execute(sql: "DELETE FROM reminders WHERE id = 99")
      _ = try Row.fetchAll(db, sql: "SELECT * FROM reminders")
    }
    #expect(event == nil)
    #expect(try database.eventCount() == before)
  }

  @Test func deleteRecordsTheKey() throws {
    try database.write { db in
      try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (7, 'Milk', ?)", arguments: [listID])
    }
    let (_, stored) = try database.writeReturningEvent { db in try db.execute(sql: "DELETE FROM reminders WHERE id = 7") }
    #expect(stored?.event.operations == [.delete(table: 0, key: [.integer(7)])])
  }

  @Test func upsertOnConflictDoUpdateIsAnUpdate() throws {
    try database.write { db in
      try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (1, 'Milk', ?)", arguments: [listID])
    }
    let (_, stored) = try database.writeReturningEvent { db in
      try db.execute(sql: """
        INSERT INTO reminders (id, title, listID) VALUES (1, 'Bread', ?), (2, 'Eggs', ?)
        ON CONFLICT(id) DO UPDATE SET title = excluded.title
        """, arguments: [listID, listID])
    }
    let operations = try #require(stored?.event.operations)
    #expect(operations.count == 2)
    #expect(operations[0] == .update(table: 0, key: [.integer(1)], changes: [ColumnValue(column: 1, value: .text("Bread"))]))
    guard case .insert(_, let values) = operations[1] else { Issue.record("expected an insert"); return }
    #expect(values[1] == .text("Eggs"))
  }

  @Test func insertOrReplaceIsCapturedAsTheFinalRow() throws {
    try database.write { db in
      try db.execute(sql: "INSERT INTO reminders (id, title, notes, listID) VALUES (1, 'Milk', 'x', ?)", arguments: [listID])
    }
    let (_, stored) = try database.writeReturningEvent { db in
      try db.execute(sql: "INSERT OR REPLACE INTO reminders (id, title, listID) VALUES (1, 'Bread', ?)", arguments: [listID])
    }
    #expect(stored?.event.operations == [
      .update(table: 0, key: [.integer(1)], changes: [ColumnValue(column: 1, value: .text("Bread")), ColumnValue(column: 2, value: .null)])
    ])
    #expect(try database.replayMatchesLive(directory))
  }

  @Test func multiStatementTransactionIsOneEvent() throws {
    let before = try database.eventCount()
    try database.write { db in
      for id in 1...50 {
        try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (?, ?, ?)", arguments: [id, "r\(id)", listID])
      }
      try db.execute(sql: "UPDATE reminders SET isCompleted = 1 WHERE id <= 10")
      try db.execute(sql: "DELETE FROM reminders WHERE id > 40")
    }
    #expect(try database.eventCount() == before + 1)
    let event = try #require(try database.lastEvent())
    // Rows inserted then deleted in the same transaction leave no trace; the
    // completed ones are inserted with their final values.
    #expect(event.rowChangeCount == 40)
    #expect(try database.replayMatchesLive(directory))
  }

  @Test func rolledBackTransactionAppendsNothing() throws {
    let before = try database.eventCount()
    struct Failure: Error {}
    #expect(throws: Failure.self) {
      try database.write { db in
        try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (1, 'Milk', ?)", arguments: [listID])
        throw Failure()
      }
    }
    #expect(try database.eventCount() == before)
    #expect(try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM reminders") } == 0)
    // The next write is not polluted by the rolled back one.
    try database.write { db in
      try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (2, 'Bread', ?)", arguments: [listID])
    }
    #expect(try database.lastEvent()?.rowChangeCount == 1)
  }

  @Test func savepointRollbackIsNotInTheEvent() throws {
    try database.write { db in
      try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (1, 'Milk', ?)", arguments: [listID])
      try db.inSavepoint {
        try db.execute(sql: "UPDATE reminders SET title = 'Changed' WHERE id = 1")
        try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (2, 'Gone', ?)", arguments: [listID])
        return .rollback
      }
      try db.execute(sql: "SAVEPOINT kept")
      try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (3, 'Kept', ?)", arguments: [listID])
      try db.execute(sql: "RELEASE kept")
    }
    let event = try #require(try database.lastEvent())
    let inserted = event.operations.compactMap { operation -> SQLiteValue? in
      if case .insert(_, let values) = operation { values[1] } else { nil }
    }
    #expect(inserted == [.text("Milk"), .text("Kept")])
    #expect(try database.replayMatchesLive(directory))
  }

  @Test func failedStatementInsideATransactionIsNotInTheEvent() throws {
    try database.write { db in
      try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (1, 'Milk', ?)", arguments: [listID])
      // The second row violates the primary key: the whole statement is undone,
      // including the first row it had already inserted.
      #expect(throws: DatabaseError.self) {
        try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (2, 'Two', ?), (1, 'Dup', ?)", arguments: [listID, listID])
      }
    }
    #expect(try database.lastEvent()?.rowChangeCount == 1)
    #expect(try database.replayMatchesLive(directory))
  }

  @Test func foreignKeyCascadesAreCaptured() throws {
    try database.write { db in
      try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (1, 'Milk', ?), (2, 'Eggs', ?)", arguments: [listID, listID])
    }
    try database.write { db in try db.execute(sql: "DELETE FROM remindersLists") }
    let event = try #require(try database.lastEvent())
    #expect(event.rowChangeCount == 3)
    #expect(try database.replayMatchesLive(directory))
  }

  @Test func grdbRecordWritesAreCaptured() throws {
    struct List: Codable, PersistableRecord, FetchableRecord {
      static let databaseTableName = "remindersLists"
      var id: String
      var title: String
      var position: Int
    }
    try database.write { db in
      var list = List(id: "b0000000-0000-0000-0000-000000000000", title: "Work", position: 2)
      try list.insert(db)
      list.title = "Office"
      try list.update(db)
    }
    let event = try #require(try database.lastEvent())
    #expect(event.operations == [.insert(table: 0, values: [.text("b0000000-0000-0000-0000-000000000000"), .text("Office"), .integer(2)])])
  }

  @Test func writesOutsideChronicleAreRefusedAtCommit() throws {
    let before = try database.eventCount()
    #expect(throws: ChronicleError.uncapturedWrite(tables: ["remindersLists"])) {
      try database.writer.write { db in
        try db.execute(sql: "UPDATE remindersLists SET title = 'Sneaky'")
      }
    }
    #expect(try database.read { db in try String.fetchOne(db, sql: "SELECT title FROM remindersLists") } == "Home")
    #expect(try database.eventCount() == before)
  }

  @Test func untrackedTablesAreNotCaptured() throws {
    try database.write { db in try db.execute(sql: "CREATE TABLE scratch (x TEXT)") }
    #expect(try database.trackedTables == ["reminders", "remindersLists"])
    let (_, event) = try database.writeReturningEvent { db in try db.execute(sql: "INSERT INTO scratch VALUES ('a')") }
    #expect(event == nil)
    // Plain GRDB writes to untracked tables are allowed.
    try database.writer.write { db in try db.execute(sql: "INSERT INTO scratch VALUES ('b')") }
  }

  @Test func trackingATableThatIsNotStrictFailsWithTheFix() throws {
    try database.write { db in
      try db.execute(sql: "CREATE TABLE loose (id INTEGER PRIMARY KEY, x)")
      try db.execute(sql: "CREATE TABLE keyless (x TEXT) STRICT")
    }
    #expect(throws: ChronicleError.tableNotStrict("loose")) { try database.track("loose") }
    #expect(throws: ChronicleError.tableWithoutPrimaryKey("keyless")) { try database.track("keyless") }
    #expect(throws: ChronicleError.noSuchTable("nowhere")) { try database.track("nowhere") }
    #expect(ChronicleError.tableNotStrict("loose").description.contains("STRICT"))
    #expect(throws: ChronicleError.tableNotStrict("loose")) {
      _ = try Chronicle.open(path: directory.path("app.sqlite"), tables: ["reminders", "loose"])
    }
  }

  @Test func uuidFunctionFillsDefaults() throws {
    try database.write { db in try db.execute(sql: "INSERT INTO remindersLists (title) VALUES ('Auto')") }
    let id = try #require(try database.read { db in try String.fetchOne(db, sql: "SELECT id FROM remindersLists WHERE title = 'Auto'") })
    #expect(UUID(uuidString: id) != nil)
    #expect(id == id.lowercased())
  }

  @Test func alterTableAddDropAndRenameColumnReplay() throws {
    try database.write { db in
      try db.execute(sql: "INSERT INTO reminders (id, title, notes, listID) VALUES (1, 'Milk', 'n', ?), (2, 'Eggs', NULL, ?)", arguments: [listID, listID])
    }
    try database.write { db in
      try db.execute(sql: "ALTER TABLE reminders ADD COLUMN dueDate TEXT DEFAULT '2026-01-01'")
      try db.execute(sql: "UPDATE reminders SET dueDate = '2026-12-24' WHERE id = 2")
    }
    #expect(try database.replayMatchesLive(directory))
    try database.write { db in try db.execute(sql: "ALTER TABLE reminders DROP COLUMN notes") }
    #expect(try database.replayMatchesLive(directory))
    try database.write { db in try db.execute(sql: "ALTER TABLE reminders RENAME COLUMN title TO name") }
    #expect(try database.replayMatchesLive(directory))
    try database.write { db in
      try db.execute(sql: "ALTER TABLE reminders RENAME TO tasks")
      try db.execute(sql: "INSERT INTO tasks (id, name, listID) VALUES (3, 'After rename', ?)", arguments: [listID])
    }
    #expect(try database.trackedTables == ["remindersLists", "tasks"])
    #expect(try database.replayMatchesLive(directory))
  }

  @Test func createTableAndInsertInOneTransaction() throws {
    try database.write { db in
      try db.execute(sql: "CREATE TABLE tags (title TEXT PRIMARY KEY NOT NULL) STRICT, WITHOUT ROWID")
      try db.execute(sql: "INSERT INTO tags VALUES ('home'), ('work')")
    }
    #expect(try database.trackedTables.contains("tags"))
    #expect(try database.lastEvent()?.rowChangeCount == 2)
    try database.write { db in try db.execute(sql: "DELETE FROM tags WHERE title = 'home'") }
    #expect(try database.lastEvent()?.operations == [.delete(table: 0, key: [.text("home")])])
    try database.write { db in try db.execute(sql: "DROP TABLE tags") }
    #expect(try !database.trackedTables.contains("tags"))
    #expect(try database.replayMatchesLive(directory))
  }

  @Test func userTriggersEffectsAreReplayedOnce() throws {
    try database.write { db in
      try db.execute(sql: """
        CREATE TRIGGER bump_position AFTER INSERT ON reminders BEGIN
          UPDATE remindersLists SET position = position + 1 WHERE id = NEW.listID;
        END
        """)
    }
    try database.write { db in
      try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (1, 'a', ?), (2, 'b', ?)", arguments: [listID, listID])
    }
    #expect(try database.read { db in try Int.fetchOne(db, sql: "SELECT position FROM remindersLists") } == 2)
    #expect(try database.replayMatchesLive(directory))
  }

  @Test func reopeningKeepsPeerClockAndTracking() throws {
    let peer = database.peerID
    let lastClock = database.clock.lastReading
    let path = directory.path("app.sqlite")
    let reopened = try Chronicle.open(path: path)
    #expect(reopened.peerID == peer)
    #expect(reopened.clock.lastReading >= lastClock)
    try reopened.write { db in
      try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (1, 'x', ?)", arguments: [listID])
    }
    let event = try #require(try reopened.lastEvent())
    #expect(event.timestamp > lastClock)
    #expect(event.sequence == UInt64(try reopened.eventCount()))
    #expect(throws: ChronicleError.self) { _ = try Chronicle.open(path: path, peer: .fixed(.generate())) }
  }

  @Test func asyncWriteAppendsAnEvent() async throws {
    let before = try database.eventCount()
    let listID = self.listID
    try await database.write { db in
      try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (1, 'async', ?)", arguments: [listID])
    }
    #expect(try database.eventCount() == before + 1)
  }
}
