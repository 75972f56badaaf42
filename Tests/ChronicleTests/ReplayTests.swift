import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

@Suite("Replay: the log is the truth")
struct ReplayTests {
  static let seeds: [UInt64] = [1, 2, 3, 20261121]

  /// Thousands of random writes over related tables (inserts, updates of some
  /// columns, deletes with cascades, upserts, REPLACE, savepoint rollbacks,
  /// failed statements), then a replay of the log into an empty file must give
  /// the same per-table digests as the live database.
  @Test(arguments: seeds)
  func randomWritesReplayToTheSameDigests(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    let database = try Chronicle.open(path: directory.path("random.sqlite"))
    var random = SeededGenerator(seed: seed)
    try database.write { db in
      try db.execute(sql: """
        CREATE TABLE lists (id INTEGER PRIMARY KEY, name TEXT NOT NULL, weight REAL) STRICT;
        CREATE TABLE items (
          id TEXT PRIMARY KEY NOT NULL DEFAULT (uuid()),
          listID INTEGER REFERENCES lists(id) ON DELETE CASCADE ON UPDATE CASCADE,
          title TEXT NOT NULL DEFAULT '', count INTEGER, data ANY, flag INTEGER NOT NULL DEFAULT 0
        ) STRICT;
        CREATE TABLE pairs (a INTEGER NOT NULL, b TEXT NOT NULL, v ANY, PRIMARY KEY (a, b)) STRICT, WITHOUT ROWID;
        """)
    }
    func value(_ random: inout SeededGenerator) -> SQLiteValue {
      switch Int.random(in: 0..<5, using: &random) {
      case 0: .null
      case 1: .integer(Int64.random(in: -1000...1000, using: &random))
      case 2: .real(Double(Int.random(in: -100...100, using: &random)) / 4)
      case 3: .text(String(repeating: "x", count: Int.random(in: 0...20, using: &random)))
      default: .blob(Data((0..<Int.random(in: 0...8, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }))
      }
    }
    for _ in 0..<300 {
      try database.write { db in
        for _ in 0..<Int.random(in: 1...12, using: &random) {
          let list = Int.random(in: 1...15, using: &random)
          switch Int.random(in: 0..<10, using: &random) {
          case 0:
            try db.execute(sql: "INSERT OR REPLACE INTO lists (id, name, weight) VALUES (?, ?, ?)",
                           arguments: [list, "l\(Int.random(in: 0...9, using: &random))", Double(list) / 3])
          case 1:
            try db.execute(sql: "INSERT INTO items (listID, title, count, data) VALUES ((SELECT id FROM lists WHERE id = ?), ?, ?, ?)",
                           arguments: [list, "t\(list)", Int.random(in: 0...5, using: &random), value(&random).databaseValue])
          case 2:
            try db.execute(sql: "UPDATE items SET count = coalesce(count, 0) + 1, flag = NOT flag WHERE rowid % 7 = ?",
                           arguments: [Int.random(in: 0...6, using: &random)])
          case 3:
            try db.execute(sql: "DELETE FROM lists WHERE id = ?", arguments: [list])
          case 4:
            try db.execute(sql: "INSERT INTO pairs (a, b, v) VALUES (?, ?, ?) ON CONFLICT (a, b) DO UPDATE SET v = excluded.v",
                           arguments: [list % 4, "k\(list % 3)", value(&random).databaseValue])
          case 5:
            try db.execute(sql: "DELETE FROM pairs WHERE a = ?", arguments: [list % 4])
          case 6:
            try db.inSavepoint {
              try db.execute(sql: "UPDATE lists SET name = 'rolled back'")
              try db.execute(sql: "DELETE FROM items")
              return .rollback
            }
          case 7:
            // Fails on the second row (duplicate key): the whole statement is undone.
            try? db.execute(sql: "INSERT INTO lists (id, name) VALUES (?, 'dup'), (?, 'dup')", arguments: [100 + list, 100 + list])
          case 8:
            try db.execute(sql: "UPDATE OR IGNORE lists SET id = id + 1000 WHERE id = ?", arguments: [list])
          default:
            try db.execute(sql: "UPDATE items SET title = ? WHERE listID = ?", arguments: ["u\(list)", list])
          }
        }
      }
    }
    let report = try database.replay(into: directory.path("replayed.sqlite"))
    let live = try database.digests()
    #expect(report.digests == live, "seed \(seed): replayed digests differ from the live tables")
    #expect(live.contains { $0.rowCount > 0 }, "seed \(seed): the random history left no rows at all")

    // Capture streams rows straight into the body; the codec must encode the
    // decoded events to the very same bytes (deterministic encoding).
    try database.read { db in
      for row in try Row.fetchAll(db, sql: "SELECT id, payload FROM chronicle_events ORDER BY id") {
        let payload: Data = row["payload"]
        let event = try EventCodec.decode(Array(payload))
        let reencoded = try EventCodec.encode(event, compressionLevel: ChronicleConfiguration().compressionLevel)
        #expect(reencoded.bytes == Array(payload), "seed \(seed): event \(row["id"] as Int64) re-encodes differently")
      }
    }
  }

  @Test func replayUntilAnEventGivesTheStateAtThatEvent() throws {
    let directory = try TemporaryDirectory()
    let database = try Chronicle.open(path: directory.path("until.sqlite"))
    try database.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER) STRICT") }
    var states: [(Int64, [TableDigest])] = []
    for step in 1...20 {
      let (_, event) = try database.writeReturningEvent { db in
        try db.execute(sql: "INSERT OR REPLACE INTO t VALUES (?, ?)", arguments: [step % 6, step])
        if step % 5 == 0 { try db.execute(sql: "DELETE FROM t WHERE id = ?", arguments: [step % 3]) }
      }
      states.append((try #require(event).id, try database.digests()))
    }
    for (position, digests) in states {
      let report = try database.replay(into: directory.path("at-\(position).sqlite"), options: ReplayOptions(until: .position(position)))
      #expect(report.digests == digests, "state at event \(position)")
    }
  }

  @Test(arguments: [
    (1, "001_core.sql"), (2, "002_baseline.sql"), (3, "003_devices.sql"), (4, "004_merge_state_keys.sql"),
    (5, "005_compact_merge_state.sql"), (6, "006_integer_merge_state.sql"), (7, "007_event_row_hashes.sql"),
    (8, "008_membership_history.sql"), (9, "009_refused_events.sql"), (10, "010_event_routes.sql"),
    (11, "011_revoked_checkpoints.sql"),
    (12, "012_demotion_cut_offs.sql"),
  ])
  func schemaFileMatchesTheEmbeddedSchema(version: Int, file name: String) throws {
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Schemas/\(name)")
    let text = try String(contentsOf: file, encoding: .utf8)
    let embedded = try #require(InternalSchema.migrations.first { $0.version == version }).sql
    #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == embedded.trimmingCharacters(in: .whitespacesAndNewlines))
  }

  @Test func internalTablesAreAllStrict() throws {
    let directory = try TemporaryDirectory()
    let database = try Chronicle.open(path: directory.path("strict.sqlite"))
    let loose = try database.read { db in
      try String.fetchAll(db, sql: "SELECT name FROM pragma_table_list WHERE name LIKE 'chronicle%' AND strict = 0 AND schema = 'main'")
    }
    #expect(loose.isEmpty)
  }

  @Test func logCanBeReadByOriginTableAndRange() throws {
    let directory = try TemporaryDirectory()
    let database = try Chronicle.open(path: directory.path("log.sqlite"))
    try database.write { db in
      try db.execute(sql: "CREATE TABLE a (id INTEGER PRIMARY KEY) STRICT; CREATE TABLE b (id INTEGER PRIMARY KEY) STRICT")
    }
    for i in 1...5 { try database.write { db in try db.execute(sql: "INSERT INTO \(i % 2 == 0 ? "a" : "b") VALUES (?)", arguments: [i]) } }
    #expect(try database.log.events(EventFilter(table: "a")).count == 2)
    #expect(try database.log.events(EventFilter(table: "b")).count == 3)
    #expect(try database.log.events(EventFilter(positions: 2...3)).map(\.id) == [2, 3])
    #expect(try database.log.events(EventFilter(origin: database.peerID)).count == 6)
    #expect(try database.log.events(EventFilter(origin: .generate())).isEmpty)
    let third = try database.log.event(reference: "\(database.peerID.shortDescription):3")
    #expect(third.id == 3)
    #expect(throws: ChronicleError.self) { try database.log.event(reference: "nope") }
  }

  @Test func corruptStoredEventIsReportedWithItsID() throws {
    let directory = try TemporaryDirectory()
    let database = try Chronicle.open(path: directory.path("corrupt.sqlite"))
    try database.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY) STRICT") }
    try database.writer.writeWithoutTransaction { db in
      try db.execute(sql: "UPDATE chronicle_events SET payload = substr(payload, 1, length(payload) - 3) WHERE id = 1")
    }
    #expect(throws: ChronicleError.self) { try database.log.events() }
    do {
      _ = try database.log.events()
    } catch let ChronicleError.corruptEvent(id, _) {
      #expect(id == 1)
    }
  }
}
