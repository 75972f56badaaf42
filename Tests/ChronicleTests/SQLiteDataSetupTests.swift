import ChronicleTestSupport
import Foundation
import Testing

@testable import Chronicle

/// The database setup SQLiteData apps write (the four seeds' `appDatabase()`),
/// compiled as written against Chronicle.
@Table("items") struct SetupItem: Identifiable {
  let id: UUID
  var title = ""
  var isInStock = true
  var notes = ""
}

private func appDatabase(
  path: String? = nil, erasingOnSchemaChange: Bool = false, itemsSQL: String? = nil,
  moreMigrations: (inout DatabaseMigrator) -> Void = { _ in }
) throws -> any DatabaseWriter {
  var configuration = Configuration()
  configuration.foreignKeysEnabled = true
  configuration.prepareDatabase { db in
    db.trace(options: .profile) { _ = $0.expandedDescription }
  }
  let database = try defaultDatabase(path: path, configuration: configuration)
  var migrator = DatabaseMigrator()
  migrator.eraseDatabaseOnSchemaChange = erasingOnSchemaChange
  migrator.registerMigration("Create initial tables") { db in
    if let itemsSQL { return try db.execute(sql: itemsSQL) }
    try #sql(
      """
      CREATE TABLE "items" (
        "id" TEXT PRIMARY KEY NOT NULL DEFAULT (uuid()),
        "title" TEXT NOT NULL DEFAULT '',
        "isInStock" INTEGER NOT NULL DEFAULT 1,
        "notes" TEXT NOT NULL DEFAULT ''
      ) STRICT
      """
    )
    .execute(db)
  }
  moreMigrations(&migrator)
  try migrator.migrate(database)
  return database
}

@Suite("SQLiteData's database setup: appDatabase() -> any DatabaseWriter")
struct SQLiteDataSetupTests {
  @Test("the seed's appDatabase() opens a Chronicle database, migrates it, and its writes are captured")
  func writesThroughTheDependencyAreCaptured() async throws {
    let database = try appDatabase()
    let chronicle = try #require(database as? ChronicleDatabase)
    #expect(try chronicle.trackedTables.contains("items"))
    let before = try chronicle.log.count()
    try withDependencies { $0.defaultDatabase = database } operation: {
      @Dependency(\.defaultDatabase) var database
      try database.write { db in
        try SetupItem.insert { SetupItem.Draft(title: "New Item") }.execute(db)
      }
    }
    #expect(try chronicle.log.count() == before + 1)
    try await database.write { db in
      try SetupItem.update { $0.isInStock = false }.execute(db)
    }
    #expect(try chronicle.log.count() == before + 2)
    let items = try await database.read { db in try SetupItem.all.fetchAll(db) }
    #expect(items.map(\.title) == ["New Item"] && items.map(\.isInStock) == [false])
  }

  @Test("asyncWrite through any DatabaseWriter is captured too")
  func asyncWriteIsCaptured() async throws {
    let database = try appDatabase()
    let chronicle = try #require(database as? ChronicleDatabase)
    let before = try chronicle.log.count()
    let count: Int = try await withCheckedThrowingContinuation { continuation in
      database.asyncWrite { db in
        try SetupItem.insert { SetupItem.Draft(title: "Later") }.execute(db)
        return try SetupItem.count().fetchOne(db) ?? 0
      } completion: { _, result in
        continuation.resume(with: result)
      }
    }
    #expect(count == 1)
    #expect(try chronicle.log.count() == before + 1)
  }

  @Test("a relaunch with eraseDatabaseOnSchemaChange keeps the data when the migrations did not change")
  func relaunchKeepsTheData() throws {
    let directory = try TemporaryDirectory()
    let path = directory.url.appendingPathComponent("app.db").path
    do {
      let database = try withDependencies { $0.context = .live } operation: {
        try appDatabase(path: path, erasingOnSchemaChange: true)
      }
      try database.write { db in try SetupItem.insert { SetupItem.Draft(title: "Kept") }.execute(db) }
      try database.close()
    }
    let database = try withDependencies { $0.context = .live } operation: {
      try appDatabase(path: path, erasingOnSchemaChange: true)
    }
    let titles = try database.read { db in try SetupItem.all.fetchAll(db) }.map(\.title)
    #expect(titles == ["Kept"])
  }

  @Test("a relaunch whose migrations changed erases the data, the schema and the log, as GRDB erases a database")
  func changedMigrationsErase() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("app.db")
    let firstPeer: PeerID
    do {
      let database = try withDependencies { $0.context = .live } operation: {
        try appDatabase(path: path, erasingOnSchemaChange: true)
      }
      try database.write { db in try SetupItem.insert { SetupItem.Draft(title: "Gone") }.execute(db) }
      firstPeer = try #require(database as? ChronicleDatabase).peerID
      try database.close()
    }
    let changed = """
      CREATE TABLE "items" (
        "id" TEXT PRIMARY KEY NOT NULL DEFAULT (uuid()),
        "title" TEXT NOT NULL DEFAULT '',
        "isInStock" INTEGER NOT NULL DEFAULT 1,
        "notes" TEXT NOT NULL DEFAULT '',
        "position" INTEGER NOT NULL DEFAULT 0
      ) STRICT
      """
    let database = try withDependencies { $0.context = .live } operation: {
      try appDatabase(path: path, erasingOnSchemaChange: true, itemsSQL: changed)
    }
    let chronicle = try #require(database as? ChronicleDatabase)
    #expect(chronicle.peerID != firstPeer)
    let (count, columns, migrations) = try database.read { db in
      (
        try SetupItem.count().fetchOne(db), try db.columns(in: "items").map(\.name),
        try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
      )
    }
    #expect(count == 0 && columns.contains("position") && migrations == ["Create initial tables"])
    #expect(try chronicle.trackedTables == ["items"])
    try database.write { db in try SetupItem.insert { SetupItem.Draft(title: "New") }.execute(db) }
    // A device that installed the new version: the same schema, the same epoch.
    let peer = try #require(try appDatabase(itemsSQL: changed) as? ChronicleDatabase)
    try push(chronicle, to: peer)
    let titles = try peer.read { db in try String.fetchAll(db, sql: "SELECT title FROM items") }
    #expect(titles == ["New"])
  }

  @Test("a migration's rows and schema are an event of their own, which brings them to other peers")
  func migrationsAreEvents() throws {
    let database = try appDatabase { migrator in
      migrator.registerMigration("Seed items") { db in
        try SetupItem.insert {
          SetupItem.Draft(title: "Milk")
          SetupItem.Draft(title: "Bread", isInStock: false)
        }
        .execute(db)
      }
      migrator.registerMigration("Everything in stock") { db in
        try SetupItem.update { $0.isInStock = true }.execute(db)
      }
    }
    let chronicle = try #require(database as? ChronicleDatabase)
    // One event per migration.
    #expect(try chronicle.log.count() == 3)
    // Another device: the same app, which ran the migration that creates the table.
    let peer = try #require(try appDatabase() as? ChronicleDatabase)
    try push(chronicle, to: peer)
    let items = try peer.read { db in try SetupItem.order(by: \.title).fetchAll(db) }
    #expect(items.map(\.title) == ["Bread", "Milk"] && items.allSatisfy(\.isInStock))
  }

  @Test("a migration that throws commits nothing and appends no event")
  func failedMigrationAppendsNothing() throws {
    let database = try appDatabase()
    let chronicle = try #require(database as? ChronicleDatabase)
    let before = try chronicle.log.count()
    struct Refused: Error {}
    var migrator = DatabaseMigrator()
    migrator.registerMigration("Half done") { db in
      try SetupItem.insert { SetupItem.Draft(title: "Half") }.execute(db)
      throw Refused()
    }
    #expect(throws: Refused.self) { try migrator.migrate(database) }
    #expect(try chronicle.log.count() == before)
    #expect(try database.read { db in try SetupItem.count().fetchOne(db) } == 0)
    // A write through GRDB's own pool is still refused, not captured
    // behind the app's back by the migrations' trigger.
    #expect(throws: ChronicleError.self) {
      try chronicle.writer.write { db in try SetupItem.insert { SetupItem.Draft(title: "Sneaky") }.execute(db) }
    }
  }

  @Test("Chronicle.defaultDatabase() as SQLiteData apps write SQLiteData.defaultDatabase()")
  func moduleQualifiedSpelling() throws {
    let database = try Chronicle.defaultDatabase()
    #expect(database is ChronicleDatabase)
    #expect(FileManager.default.fileExists(atPath: database.path))
  }

  @Test("erase() empties a Chronicle database as a new one, which migrates and syncs again")
  func eraseStartsOver() async throws {
    let database = try appDatabase()
    let chronicle = try #require(database as? ChronicleDatabase)
    try await database.write { db in try SetupItem.insert { SetupItem.Draft(title: "Old") }.execute(db) }
    let peer = chronicle.peerID
    try await database.erase()
    #expect(chronicle.peerID != peer)
    #expect(try await database.read { db in try db.tableExists("items") } == false)
    var migrator = DatabaseMigrator()
    migrator.registerMigration("Create initial tables") { db in try db.execute(sql: "CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL DEFAULT (uuid()), title TEXT NOT NULL DEFAULT '', isInStock INTEGER NOT NULL DEFAULT 1, notes TEXT NOT NULL DEFAULT '') STRICT") }
    #expect(try await database.read(migrator.hasSchemaChanges) == false)
    let migrated: Void = try await withCheckedThrowingContinuation { continuation in
      migrator.asyncMigrate(database) { result in continuation.resume(with: result.map { _ in }) }
    }
    _ = migrated
    #expect(try chronicle.trackedTables == ["items"])
    #expect(try await database.read(migrator.hasSchemaChanges) == false)
    try await database.write { db in try SetupItem.insert { SetupItem.Draft(title: "New") }.execute(db) }
    let other = try #require(try appDatabase() as? ChronicleDatabase)
    try push(chronicle, to: other)
    #expect(try await other.read { db in try String.fetchAll(db, sql: "SELECT title FROM items") } == ["New"])
  }

  @Test("SyncEngine(for: $0.defaultDatabase) takes the dependency, and names the problem when it is not Chronicle's")
  func syncEngineForTheDependency() throws {
    let directory = try TemporaryDirectory()
    let database = try appDatabase()
    let engine = try SyncEngine(for: database, transport: .directory(directory.url))
    #expect(engine.database === database)
    let named = try SyncEngine(for: database, tables: SetupItem.self, transport: .directory(directory.url))
    #expect(named.tables == ["items"])
    let plain: any DatabaseWriter = try DatabaseQueue()
    #expect(throws: ChronicleError.notChronicleWriter("DatabaseQueue")) {
      try SyncEngine(for: plain, transport: .directory(directory.url))
    }
  }

  @Test("a migration that rebuilds a table (SQLite's twelve steps) syncs with a peer that ran it too")
  func tableRebuildingMigration() throws {
    func rebuild(_ migrator: inout DatabaseMigrator) {
      migrator.registerMigration("Add position") { db in
        try db.execute(sql: """
          CREATE TABLE "new_items" (
            "id" TEXT PRIMARY KEY NOT NULL DEFAULT (uuid()),
            "title" TEXT NOT NULL DEFAULT '',
            "isInStock" INTEGER NOT NULL DEFAULT 1,
            "notes" TEXT NOT NULL DEFAULT '',
            "position" INTEGER NOT NULL DEFAULT 0
          ) STRICT;
          INSERT INTO "new_items" ("id", "title", "isInStock", "notes", "position")
            SELECT "id", "title", "isInStock", "notes", rowid FROM "items";
          DROP TABLE "items";
          ALTER TABLE "new_items" RENAME TO "items";
          """)
      }
    }
    let first = try #require(try appDatabase() as? ChronicleDatabase)
    let second = try #require(try appDatabase() as? ChronicleDatabase)
    try first.write { db in try SetupItem.insert { SetupItem.Draft(title: "Before") }.execute(db) }
    try push(first, to: second)
    var migrator = DatabaseMigrator()
    rebuild(&migrator)
    try migrator.migrate(first)
    // The rebuilt table travels whole in the migration's event: its row is in it.
    // The rebuild wrote `position` from each row's rowid: the event carries
    // the rows whole, so a replay of the log gives the same table.
    let scratch = try TemporaryDirectory()
    _ = try first.replay(into: scratch.path("replayed.sqlite"))
    let replayed = try Chronicle.open(path: scratch.path("replayed.sqlite"))
    #expect(try replayed.digests(tables: ["items"]) == first.digests(tables: ["items"]))
    try migrator.migrate(second)
    try first.write { db in try db.execute(sql: "UPDATE items SET position = 7") }
    try second.write { db in try SetupItem.insert { SetupItem.Draft(title: "After") }.execute(db) }
    try push(first, to: second)
    try push(second, to: first)
    let rows = { (database: ChronicleDatabase) in
      try database.read { db in try Row.fetchAll(db, sql: "SELECT title, position FROM items ORDER BY title") }
    }
    #expect(try rows(first) == rows(second))
    #expect(try rows(first).map { $0["title"] as String } == ["After", "Before"])
    #expect(try rows(first).first { $0["title"] == "Before" }?["position"] == 7)
  }

  @Test("erase() drops tables that refer to each other, and views and triggers")
  func eraseWithForeignKeys() throws {
    let database = try appDatabase { migrator in
      migrator.registerMigration("Lists") { db in
        try db.execute(sql: """
          CREATE TABLE lists (id INTEGER PRIMARY KEY, title TEXT NOT NULL) STRICT;
          CREATE TABLE entries (id INTEGER PRIMARY KEY, listID INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE, body TEXT NOT NULL) STRICT;
          CREATE VIEW listTitles AS SELECT title FROM lists;
          CREATE TRIGGER entriesTouch AFTER INSERT ON entries BEGIN UPDATE lists SET title = title WHERE id = new.listID; END;
          INSERT INTO lists VALUES (1, 'Home');
          INSERT INTO entries VALUES (1, 1, 'Milk');
          """)
      }
    }
    try database.erase()
    let left = try database.read { db in
      try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE name NOT LIKE 'chronicle%' AND name NOT LIKE 'sqlite%' ORDER BY name")
    }
    #expect(left == [])
    try database.write { db in try db.execute(sql: "CREATE TABLE lists (id INTEGER PRIMARY KEY, title TEXT NOT NULL) STRICT") }
    #expect(try (database as? ChronicleDatabase)?.trackedTables == ["lists"])
  }
}

