import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

/// Writes made outside Chronicle (the sqlite3 shell, another library) used
/// to change a peer's rows with no event: no other peer ever got them, and
/// every sync said all was well. Tracked tables now refuse them.
@Suite("Tracked tables refuse writes from connections that are not Chronicle's")
struct GuardTriggerTests {
  /// A connection as another tool opens the file: no Chronicle functions.
  func otherTool(_ path: String) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.busyMode = .timeout(10)
    return try DatabaseQueue(path: path, configuration: configuration)
  }

  /// A file with one tracked table, `items`, created through Chronicle and closed.
  func fileWithItems(_ directory: TemporaryDirectory, rows: String = "") throws -> String {
    let path = directory.path("app.sqlite")
    let database = try Chronicle.open(path: path)
    try database.write { db in
      try db.execute(sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, title TEXT NOT NULL) STRICT")
      if !rows.isEmpty { try db.execute(sql: "INSERT INTO items VALUES \(rows)") }
    }
    return path
  }

  func refusal(_ sql: String, _ queue: DatabaseQueue) -> String? {
    do {
      try queue.write { db in try db.execute(sql: sql) }
      return nil
    } catch {
      return "\(error)"
    }
  }

  @Test func insertUpdateAndDeleteFromAnotherToolAreRefusedWithTheFixAndReadsStillWork() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("app.sqlite")
    let database = try Chronicle.open(path: path)
    try database.write { db in
      try db.execute(sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, title TEXT NOT NULL) STRICT; INSERT INTO items VALUES (1, 'a')")
      try db.execute(sql: "CREATE TABLE scratch (id INTEGER PRIMARY KEY, note TEXT)")  // not STRICT: untracked
    }
    let tool = try otherTool(path)
    for sql in ["INSERT INTO items VALUES (2, 'b')", "UPDATE items SET title = 'z'", "DELETE FROM items"] {
      let message = try #require(refusal(sql, tool), "\(sql) went through")
      #expect(message.contains("Chronicle syncs this table: write it through Chronicle"), "\(message)")
    }
    #expect(try tool.read { db in try String.fetchAll(db, sql: "SELECT title FROM items") } == ["a"])
    // Chronicle itself writes as before, and its events replay to the same rows.
    try database.write { db in try db.execute(sql: "UPDATE items SET title = 'b'; INSERT INTO items VALUES (2, 'c'); DELETE FROM items WHERE id = 1") }
    #expect(try database.read { db in try String.fetchAll(db, sql: "SELECT title FROM items") } == ["c"])
    #expect(try database.replayMatchesLive(directory))
    // Untracked tables stay open to every tool.
    #expect(refusal("INSERT INTO scratch VALUES (1, 'fine')", tool) == nil)
  }

  @Test func aMergeSkipsTheGuardsWhenNoOtherTriggerExistsAndTurnsTriggersBackOn() throws {
    let directory = try TemporaryDirectory()
    let a = try Chronicle.open(path: directory.path("a.sqlite"))
    let b = try Chronicle.open(path: directory.path("b.sqlite"))
    for peer in [a, b] {
      try peer.write { db in
        try db.execute(sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, title TEXT NOT NULL) STRICT; CREATE TABLE audit (title TEXT)")
      }
    }
    // Guards only: skipped for the step, on again after it.
    let (before, during, after) = try b.writer.writeWithoutTransaction { db in
      (GuardTriggers.triggersEnabled(db), try GuardTriggers.skipped(db) { GuardTriggers.triggersEnabled(db) }, GuardTriggers.triggersEnabled(db))
    }
    #expect(before && !during && after)
    try a.write { db in try db.execute(sql: "INSERT INTO items VALUES (1, 'one'), (2, 'two')") }
    try push(a, to: b)
    // An app trigger created after a merge fires on local writes, and on the next merge (triggers stayed on).
    try b.write { db in try db.execute(sql: "CREATE TRIGGER items_audit AFTER INSERT ON items BEGIN INSERT INTO audit VALUES (new.title); END") }
    let kept = try b.writer.writeWithoutTransaction { db in try GuardTriggers.skipped(db) { GuardTriggers.triggersEnabled(db) } }
    #expect(kept, "an app trigger keeps triggers on")
    try b.write { db in try db.execute(sql: "INSERT INTO items VALUES (3, 'three')") }
    try a.write { db in try db.execute(sql: "INSERT INTO items VALUES (4, 'four')") }
    try push(a, to: b)
    #expect(try b.read { db in try String.fetchAll(db, sql: "SELECT title FROM audit ORDER BY title") } == ["four", "three"])
    #expect(try b.read { db in try String.fetchAll(db, sql: "SELECT title FROM items ORDER BY id") } == ["one", "two", "three", "four"])
    // Other tools are still refused.
    #expect(refusal("INSERT INTO items VALUES (9, 'x')", try otherTool(directory.path("b.sqlite"))) != nil)
  }

  @Test func tablesCreatedRenamedOrRebuiltLaterAreGuardedAndGuardsDroppedByHandComeBack() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("app.sqlite")
    do {
      let database = try Chronicle.open(path: path)
      try database.write { db in
        try db.execute(sql: "CREATE TABLE a (id INTEGER PRIMARY KEY, v TEXT) STRICT; CREATE TABLE b (id INTEGER PRIMARY KEY, v TEXT) STRICT")
      }
      try database.write { db in try db.execute(sql: "ALTER TABLE a RENAME TO a2") }
      // The 12-step rebuild: a new table takes the old one's name.
      try database.write { db in
        try db.execute(sql: """
          CREATE TABLE b_new (id INTEGER PRIMARY KEY, v TEXT, w INTEGER) STRICT;
          INSERT INTO b_new (id, v) SELECT id, v FROM b; DROP TABLE b; ALTER TABLE b_new RENAME TO b;
          CREATE TABLE a (id INTEGER PRIMARY KEY, other TEXT) STRICT;
          """)
      }
      #expect(try database.read { db in try GuardTriggers.missing(for: ["a", "a2", "b"], db) } == [])
    }
    // Someone drops the guards by hand; the next open puts them back.
    try otherTool(path).write { db in
      for name in try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'b'") {
        try db.execute(sql: "DROP TRIGGER \"\(name)\"")
      }
    }
    #expect(refusal("INSERT INTO b (id, v) VALUES (9, 'sneaked')", try otherTool(path)) == nil)
    let reopened = try Chronicle.open(path: path)
    #expect(try reopened.read { db in try GuardTriggers.missing(for: ["a", "a2", "b"], db) } == [])
    #expect(refusal("INSERT INTO b (id, v) VALUES (10, 'again')", try otherTool(path)) != nil)
    // The guards are Chronicle's own: no event carries them, and a replay has none to copy.
    let schemaEvents = try reopened.log.events().flatMap(\.event.operations).map { "\($0)" }
    #expect(!schemaEvents.contains { $0.contains("chronicle_guard") })
  }

  @Test func afterGuardsWereDroppedSendingWaitsAndARebuildDiscardsTheWritesAndClearsIt() throws {
    let directory = try TemporaryDirectory()
    let path = try fileWithItems(directory, rows: "(1, 'a')")
    try otherTool(path).write { db in
      for name in try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'trigger'") { try db.execute(sql: "DROP TRIGGER \"\(name)\"") }
      try db.execute(sql: "INSERT INTO items VALUES (2, 'behind the log')")
    }
    let database = try Chronicle.open(path: path)
    #expect {
      try database.serializedEvents(beyond: VersionVector([:]))
    } throws: { error in
      guard case ChronicleError.untrackedWritesSuspected(let tables) = error else { return false }
      return tables == ["items"] && "\(error)".contains("chronicle adopt")
    }
    let report = try database.rebuild()
    #expect(report.swapped)
    #expect(try database.read { db in try Int.fetchAll(db, sql: "SELECT id FROM items") } == [1])
    #expect(try database.serializedEvents(beyond: VersionVector([:])).count == 1)  // sends again
  }

  @Test func guardsTurnedOffAreDroppedAndTurnedOnAgainComeBackWithoutSuspicion() throws {
    let directory = try TemporaryDirectory()
    let path = try fileWithItems(directory)
    var unguarded = ChronicleConfiguration()
    unguarded.guardsTrackedTables = false
    do {
      let database = try Chronicle.open(path: path, configuration: unguarded)
      try database.write { db in try db.execute(sql: "CREATE TABLE more (id INTEGER PRIMARY KEY) STRICT") }
      #expect(try database.read { db in try GuardTriggers.missing(for: ["items", "more"], db) } == ["items", "more"])
    }
    #expect(refusal("INSERT INTO items VALUES (1, 'unguarded')", try otherTool(path)) == nil)
    let database = try Chronicle.open(path: path)
    #expect(try database.read { db in try GuardTriggers.missing(for: ["items", "more"], db) } == [])
    #expect(try !database.serializedEvents(beyond: VersionVector([:])).isEmpty)  // not suspected: the app chose to run without
  }

  @Test func adoptRecordsTheDriftOfATableWithACompositeKeyAsOneEventThatReplays() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("app.sqlite")
    do {
      let database = try Chronicle.open(path: path)
      try database.write { db in
        try db.execute(sql: """
          CREATE TABLE pairs (a TEXT NOT NULL, b INTEGER NOT NULL, v TEXT, PRIMARY KEY (a, b)) STRICT, WITHOUT ROWID;
          INSERT INTO pairs VALUES ('x', 1, 'one'), ('x', 2, 'two'), ('y', 1, 'three');
          """)
      }
    }
    try otherTool(path).write { db in
      for name in try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'trigger'") { try db.execute(sql: "DROP TRIGGER \"\(name)\"") }
      try db.execute(sql: "INSERT INTO pairs VALUES ('y', 2, 'new'); UPDATE pairs SET v = 'TWO' WHERE a = 'x' AND b = 2; DELETE FROM pairs WHERE a = 'y' AND b = 1")
    }
    let database = try Chronicle.open(path: path)
    let rows = { try database.read { db in try String.fetchAll(db, sql: "SELECT a || b || '=' || v FROM pairs ORDER BY a, b") } }
    let before = try rows()
    let report = try database.rebuild(options: RebuildOptions(adoptsLiveRows: true))
    let event = try #require(report.adoptedEvent)
    #expect(event.event.rowChangeCount == 3)
    #expect(try rows() == before && before == ["x1=one", "x2=TWO", "y2=new"])
    #expect(try database.replayMatchesLive(directory))
    #expect(try !database.serializedEvents(beyond: VersionVector([:])).isEmpty)
  }
}
