import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

import ChronicleTestSupport

/// Temporary views and triggers on real Chronicle databases: what they
/// compute, that the rows triggers write are in the log, and how they meet
/// sync.
@Suite("Query builder: temporary views and triggers on a database")
struct ViewTriggerRoundTripTests {
  let directory: TemporaryDirectory

  init() throws {
    directory = try TemporaryDirectory()
  }

  /// A database with the reminders schema, `ReminderWithList` created on
  /// every connection, and two lists.
  private func open(_ name: String = "app.sqlite") throws -> ChronicleDatabase {
    var configuration = ChronicleConfiguration()
    configuration.database.prepareDatabase { db in try reminderWithListView.execute(db) }
    let database = try Chronicle.open(path: directory.path(name), configuration: configuration)
    try database.write { db in
      try db.execute(sql: remindersSchema + viewTriggerSchema)
      try RemindersList.insert {
        RemindersList(id: UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, title: "Home", position: 1)
        RemindersList(id: UUID(uuidString: "00000000-0000-0000-0000-000000000002")!, title: "Work", position: 2)
      }.execute(db)
    }
    return database
  }

  private func replayMatches(_ database: ChronicleDatabase) throws -> Bool {
    let report = try database.replay(into: directory.path("replay-\(UUID().uuidString).sqlite"))
    return report.digests == (try database.digests())
  }

  @Test("a view made in prepareDatabase is read on every connection, and an INSTEAD OF trigger makes it writable")
  func viewWithInsteadOfInsert() async throws {
    let database = try open()
    let home = try await database.read { db in try RemindersList.where { $0.title.eq("Home") }.select(\.id).fetchOne(db) }
    try await database.write { db in
      try Reminder.insert {
        Reminder.Draft(remindersListID: home!, title: "Milk")
        Reminder.Draft(remindersListID: home!, title: "it's hidden")
      }.execute(db)
      try ReminderWithList.createTemporaryTrigger(
        insteadOf: .insert { new in
          Reminder.insert { ($0.title, $0.remindersListID) } select: {
            RemindersList.where { $0.title.eq(new.remindersListTitle) }.select { (new.reminderTitle, $0.id) }
          }
        }
      ).execute(db)
    }
    try await database.write { db in
      try ReminderWithList.insert { ReminderWithList(reminderTitle: "Morning sync", remindersListTitle: "Work") }.execute(db)
    }
    // Read on a reader connection: the view exists there too. The bound
    // value of its WHERE ("it's hidden") was written into its SQL.
    let rows = try await database.read { db in try ReminderWithList.order(by: \.reminderTitle).fetchAll(db) }
    #expect(rows == [
      ReminderWithList(reminderTitle: "Milk", remindersListTitle: "Home"),
      ReminderWithList(reminderTitle: "Morning sync", remindersListTitle: "Work"),
    ])
    // The insert into the view became an insert into reminders, in the log.
    let lastEvent = try #require(try database.log.events().last)
    #expect(lastEvent.event.rowChangeCount == 1)
    #expect(try replayMatches(database))
  }

  @Test("rows written by AFTER triggers are captured with the statement that fired them")
  func afterTriggersAreCaptured() throws {
    let database = try open()
    let positionTrigger = RemindersList.createTemporaryTrigger(
      after: .insert { new in
        RemindersList.find(new.id).update { $0.position = RemindersList.select { ($0.position.max() ?? -1) + 1 } }
      })
    try database.write { db in
      try positionTrigger.execute(db)
      try Reminder.createTemporaryTrigger(
        "audit_titles",
        after: .update(of: { [$0.title] }) { old, new in
          TitleChange.insert { ($0.reminderID, $0.oldTitle, $0.newTitle) } select: {
            Reminder.find(new.id).select { _ in (new.id, old.title, new.title) }
          }
        } when: { old, new in old.title.neq(new.title) }
      ).execute(db)
    }
    let events = try database.log.count()
    let list = try database.write { db in
      try RemindersList.insert { RemindersList.Draft(title: "Errands") }.execute(db)
      return try RemindersList.where { $0.title.eq("Errands") }.fetchOne(db)!
    }
    #expect(list.position == 3)
    try database.write { db in
      try Reminder.insert { Reminder.Draft(remindersListID: list.id, title: "Stamps") }.execute(db)
    }
    try database.write { db in
      try Reminder.where { $0.title.eq("Stamps") }.update { $0.title = "Stamps, 10" }.execute(db)
      try Reminder.where { $0.title.eq("Stamps, 10") }.update { $0.notes = String?("at the post office") }.execute(db)
      try Reminder.where { $0.title.eq("Stamps, 10") }.update { $0.title = "Stamps, 10" }.execute(db)
    }
    let changes = try database.read { db in try TitleChange.fetchAll(db) }
    #expect(changes.map(\.oldTitle) == ["Stamps"] && changes.map(\.newTitle) == ["Stamps, 10"])
    #expect(try database.log.count() == events + 3)
    #expect(try replayMatches(database))

    // Dropped, it no longer runs.
    let later = try database.write { db in
      try positionTrigger.drop().execute(db)
      try RemindersList.insert { RemindersList.Draft(title: "Later") }.execute(db)
      return try RemindersList.where { $0.title.eq("Later") }.fetchOne(db)!
    }
    #expect(later.position == 0)
  }

  @Test("a merge during which a trigger writes a tracked table is refused; guarded by Chronicle.isNotSyncing it goes through")
  func triggersAndSync() async throws {
    let phone = try open("phone.sqlite")
    let laptop = try open("laptop.sqlite")
    let home = try await phone.read { db in try RemindersList.where { $0.title.eq("Home") }.select(\.id).fetchOne(db)! }
    try await phone.write { db in
      try Reminder.insert { Reminder.Draft(remindersListID: home, title: "Milk") }.execute(db)
    }
    _ = try await SyncEngine(for: laptop, transport: .memory(phone)).fetchChanges()
    try await phone.write { db in try Reminder.update { $0.title = "Oat milk" }.execute(db) }

    let unguarded = Reminder.createTemporaryTrigger(
      "audit_titles",
      after: .update(of: { [$0.title] }) { old, new in
        TitleChange.insert { ($0.reminderID, $0.oldTitle, $0.newTitle) } select: {
          Reminder.find(new.id).select { _ in (new.id, old.title, new.title) }
        }
      })
    try await laptop.write { db in try unguarded.execute(db) }
    let engine = SyncEngine(for: laptop, transport: .memory(phone))
    await #expect(throws: SyncError.triggerWroteWhileMerging(source: "memory:\(phone.peerID.shortDescription)", table: "titleChanges")) {
      _ = try await engine.fetchChanges()
    }
    // Nothing of the batch was applied.
    #expect(try await laptop.read { db in try Reminder.select(\.title).fetchAll(db) } == ["Milk"])
    #expect(try await laptop.read { db in try TitleChange.fetchCount(db) } == 0)

    try await laptop.write { db in
      try unguarded.drop().execute(db)
      try Reminder.createTemporaryTrigger(
        "audit_titles",
        after: .update(
          of: { [$0.title] },
          forEachRow: { old, new in
            TitleChange.insert { ($0.reminderID, $0.oldTitle, $0.newTitle) } select: {
              Reminder.find(new.id).select { _ in (new.id, old.title, new.title) }
            }
          },
          when: { _, _ in Chronicle.isNotSyncing })
      ).execute(db)
    }
    _ = try await engine.fetchChanges()
    #expect(try await laptop.read { db in try Reminder.select(\.title).fetchAll(db) } == ["Oat milk"])
    #expect(try await laptop.read { db in try TitleChange.fetchCount(db) } == 0)
    // The laptop's own edits still fire it.
    try await laptop.write { db in try Reminder.update { $0.title = "Soy milk" }.execute(db) }
    #expect(try await laptop.read { db in try TitleChange.select(\.oldTitle).fetchAll(db) } == ["Oat milk"])
    #expect(try replayMatches(laptop))
  }
}

extension ViewTriggerRoundTripTests {
  /// Upstream's touch triggers: a date column set to now on update, a
  /// column changed on insert and on update, guarded for sync. The SQL and
  /// the rows after writes, and the replay of the log gives the same rows.
  @Test func touchTriggers() throws {
    let database = try Chronicle.open(path: directory.path("touch.sqlite"))
    try database.write { db in try db.execute(sql: remindersSchema) }
    let touchDate = Note.createTemporaryTrigger(
      "touch_note", afterUpdateTouch: \.timestamps.updatedAt, when: { _, _ in Chronicle.isNotSyncing })
    let bumpOnUpdate = RemindersList.createTemporaryTrigger("bump_list", afterUpdateTouch: { $0.position += 10 })
    let placeOnInsert = RemindersList.createTemporaryTrigger(
      "place_list", afterInsertTouch: { $0.position = RemindersList.select { $0.count() } })
    let created = Date(timeIntervalSince1970: 1_700_000_000)
    let before = Date()
    try database.write { db in
      for trigger in [touchDate.query, bumpOnUpdate.query, placeOnInsert.query] { try db.execute(sql: trigger.sql) }
      try Note.insert { Note(id: 1, body: "draft", timestamps: Timestamps(createdAt: created)) }.execute(db)
      try RemindersList.insert { RemindersList.Draft(title: "Home"); RemindersList.Draft(title: "Work") }.execute(db)
    }
    try database.write { db in
      try Note.find(1).update { $0.body = "final" }.execute(db)
      try RemindersList.where { $0.title == "Work" }.update { $0.title = "Office" }.execute(db)
    }
    let (note, lists) = try database.read { db in
      (try Note.find(db, key: 1), try RemindersList.order(by: \.title).fetchAll(db).map { "\($0.title) \($0.position)" })
    }
    let touched = try #require(note.timestamps.updatedAt)
    #expect(touched >= before.addingTimeInterval(-1) && touched <= Date().addingTimeInterval(1))
    #expect(note.timestamps.createdAt == created && note.body == "final")
    #expect(try replayMatches(database))
    let sql = [touchDate.query.description, bumpOnUpdate.query.description, placeOnInsert.query.description] + lists
    assertInlineSnapshot(of: sql.joined(separator: "\n"), as: .lines) {
      """
      CREATE TEMPORARY TRIGGER "touch_note"
      AFTER UPDATE ON "notes"
      FOR EACH ROW WHEN NOT chronicle_is_syncing() BEGIN
        UPDATE "notes"
        SET "updatedAt" = strftime('%Y-%m-%d %H:%M:%f', 'now')
        WHERE ("notes"."rowid" = "new"."rowid");
      END
      CREATE TEMPORARY TRIGGER "bump_list"
      AFTER UPDATE ON "remindersLists"
      FOR EACH ROW BEGIN
        UPDATE "remindersLists"
        SET "position" = ("remindersLists"."position" + 10)
        WHERE ("remindersLists"."rowid" = "new"."rowid");
      END
      CREATE TEMPORARY TRIGGER "place_list"
      AFTER INSERT ON "remindersLists"
      FOR EACH ROW BEGIN
        UPDATE "remindersLists"
        SET "position" = (
          SELECT count("remindersLists"."id")
          FROM "remindersLists"
        )
        WHERE ("remindersLists"."rowid" = "new"."rowid");
      END
      Home 11
      Office 22
      """
    }
  }
}
