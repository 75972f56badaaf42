import ChronicleTestSupport
import Foundation
import InlineSnapshotTesting
import Synchronization
import Testing

@testable import Chronicle

/// The projector on its own: hand-made events applied to a plain database
/// (no Chronicle database, no peers, no transport), with the SQL it runs on
/// the application's tables and the rows it leaves.
@Suite("Projector: events to tables")
struct ProjectorTests {
  let local = PeerID.generate()
  let alice = PeerID.generate()
  let bob = PeerID.generate()
  let lists = TableDescriptor(name: "lists", columns: ["id", "name"], primaryKey: [0])
  let items = TableDescriptor(name: "items", columns: ["id", "listID", "title", "count"], primaryKey: [0])

  /// A database with Chronicle's own tables and two application tables,
  /// foreign keys off (as the projector's callers set them), and a log of
  /// the SQL run on the application's tables.
  final class Target: Sendable {
    let queue: DatabaseQueue
    let statements: StatementLog

    init() throws {
      var configuration = Configuration()
      configuration.foreignKeysEnabled = false
      configuration.prepareDatabase { db in db.addChronicleFunctions() }
      queue = try DatabaseQueue(configuration: configuration)
      try queue.write { db in
        try InternalSchema.migrate(db)
        try db.execute(sql: """
          CREATE TABLE lists (id INTEGER PRIMARY KEY, name TEXT NOT NULL) STRICT;
          CREATE TABLE items (
            id INTEGER PRIMARY KEY, listID INTEGER REFERENCES lists(id), title TEXT NOT NULL, count INTEGER NOT NULL DEFAULT 0
          ) STRICT;
          """)
      }
      statements = StatementLog(queue)
    }

    /// The statements run since the last call, one per line.
    func takeStatements() -> String { statements.take() }

    func rows(_ sql: String) throws -> String {
      try queue.read { db in
        try Row.fetchAll(db, sql: sql).map { row in row.databaseValues.map(\.description).joined(separator: " | ") }
      }.joined(separator: "\n")
    }

    func parked() throws -> String {
      try queue.read { db in
        try MergeStore(db: db).parked().map { named in
          let values = (named.state.retained ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
          return "\(named.table) \(try MergeStateKey.decode(named.key)) \(named.state.parkedReason?.rawValue ?? "-"): \(values.joined(separator: " "))"
        }
      }.joined(separator: "\n")
    }
  }

  func event(
    _ origin: PeerID, _ sequence: UInt64, at milliseconds: UInt64, _ tables: [TableDescriptor], _ operations: [EventOperation]
  ) -> ChangeEvent {
    ChangeEvent(
      origin: origin, sequence: sequence, timestamp: HLCTimestamp(milliseconds: milliseconds, counter: 0), schemaEpoch: 0,
      tables: tables, operations: operations)
  }

  /// Applies `events` in order: the local peer's as recorded, the others
  /// merged, as a replay of a log does.
  func project(_ events: [ChangeEvent], with projector: Projector, into target: Target) throws {
    try target.queue.write { db in
      for event in events {
        if event.origin == local {
          try projector.applyRecorded(event, db)
        } else {
          let incoming = IncomingEvent(event: event, encoded: try EventCodec.encode(event))
          try projector.merge(incoming, source: "test") {
            try TrackedTables.refresh(db)
            return try MergeApplier.forMerging(db, local: local, localEpoch: 0)
          }
        }
      }
      try projector.endReceivedRun()
    }
  }

  @Test func ownEventsApplyAsRecordedAndAReceivedRunWritesEachRowOnceWithTheValuesThatWon() throws {
    let target = try Target()
    let projector = Projector(localPeer: local, retainsDeletedRows: true)
    try project([
      event(local, 1, at: 5, [lists], [.insert(table: 0, values: [.integer(1), .text("Home")])]),
      // Alice inserts an item; Bob retitles it later; Alice's own retitle is
      // older than Bob's and loses, her count is the newest and wins.
      event(alice, 1, at: 10, [items], [.insert(table: 0, values: [.integer(1), .integer(1), .text("Milk"), .integer(1)])]),
      event(bob, 1, at: 30, [items], [.update(table: 0, key: [.integer(1)], changes: [ColumnValue(column: 2, value: .text("Oat milk"))])]),
      event(alice, 2, at: 20, [items], [.update(table: 0, key: [.integer(1)], changes: [
        ColumnValue(column: 2, value: .text("Soy milk")), ColumnValue(column: 3, value: .integer(2)),
      ])]),
      event(alice, 3, at: 40, [items], [.update(table: 0, key: [.integer(1)], changes: [ColumnValue(column: 3, value: .integer(3))])]),
    ], with: projector, into: target)
    assertInlineSnapshot(of: target.takeStatements(), as: .lines) {
      """
      INSERT INTO main."lists" ("id", "name") VALUES (?,?)
      INSERT INTO main."items" ("id", "listID", "title", "count") VALUES (?,?,?,?)
      SELECT c."id" FROM main."items" AS c
      WHERE (c."id") IN (VALUES (?))
      AND ((c."listID" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main."lists" AS p WHERE p."id" = c."listID")))
      """
    }
    assertInlineSnapshot(of: try target.rows("SELECT * FROM lists") + "\n" + target.rows("SELECT * FROM items"), as: .lines) {
      """
      1 | "Home"
      1 | 1 | "Oat milk" | 3
      """
    }

    // A later run touching a stored row updates only the column that won.
    try project([
      event(bob, 2, at: 35, [items], [.update(table: 0, key: [.integer(1)], changes: [
        ColumnValue(column: 2, value: .text("Rice milk")), ColumnValue(column: 3, value: .integer(9)),
      ])]),
    ], with: projector, into: target)
    assertInlineSnapshot(of: target.takeStatements(), as: .lines) {
      """
      UPDATE main."items" SET "title" = ? WHERE "id" = ?
      SELECT c."id" FROM main."items" AS c
      WHERE (c."id") IN (VALUES (?))
      AND ((c."listID" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main."lists" AS p WHERE p."id" = c."listID")))
      """
    }
    assertInlineSnapshot(of: try target.rows("SELECT * FROM items"), as: .lines) {
      """
      1 | 1 | "Rice milk" | 3
      """
    }
  }

  @Test func aReceivedRowWhoseParentIsAbsentIsParkedAndComesBackWhenTheParentArrives() throws {
    let target = try Target()
    let projector = Projector(localPeer: local, retainsDeletedRows: true)
    try project([
      event(alice, 1, at: 10, [items], [.insert(table: 0, values: [.integer(3), .integer(7), .text("Report"), .integer(0)])]),
    ], with: projector, into: target)
    assertInlineSnapshot(of: target.takeStatements(), as: .lines) {
      """
      INSERT INTO main."items" ("id", "listID", "title", "count") VALUES (?,?,?,?)
      SELECT c."id" FROM main."items" AS c
      WHERE (c."id") IN (VALUES (?))
      AND ((c."listID" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main."lists" AS p WHERE p."id" = c."listID")))
      SELECT "id", "listID", "title", "count" FROM main."items" WHERE "id" = ?
      DELETE FROM main."items" WHERE "id" = ?
      SELECT EXISTS (SELECT 1 FROM (SELECT ? AS "id", ? AS "listID", ? AS "title", ? AS "count") AS c WHERE c."listID" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main."lists" AS p WHERE p."id" = c."listID"))
      SELECT EXISTS (SELECT 1 FROM (SELECT ? AS "id", ? AS "listID", ? AS "title", ? AS "count") AS c WHERE c."listID" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main."lists" AS p WHERE p."id" = c."listID"))
      """
    }
    assertInlineSnapshot(of: try target.rows("SELECT count(*) FROM items") + "\n" + target.parked(), as: .lines) {
      """
      0
      items [3] parent: count=0 id=3 listID=7 title='Report'
      """
    }

    try project([
      event(bob, 1, at: 20, [lists], [.insert(table: 0, values: [.integer(7), .text("Work")])]),
    ], with: projector, into: target)
    assertInlineSnapshot(of: target.takeStatements(), as: .lines) {
      """
      INSERT INTO main."lists" ("id", "name") VALUES (?,?)
      SELECT EXISTS (SELECT 1 FROM (SELECT ? AS "id", ? AS "listID", ? AS "title", ? AS "count") AS c WHERE c."listID" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main."lists" AS p WHERE p."id" = c."listID"))
      INSERT INTO main."items" ("id", "listID", "title", "count") VALUES (?,?,?,?)
      """
    }
    assertInlineSnapshot(of: try target.rows("SELECT * FROM items") + "\n" + target.parked(), as: .lines) {
      """
      3 | 7 | "Report" | 0

      """
    }
  }

  @Test func anOwnEventAfterReceivedOnesFindsTheRowsTheyMerged() throws {
    // The own event updates a row that only the received run before it
    // inserted: the run is written (and its foreign keys checked) before
    // the own event applies.
    let target = try Target()
    let projector = Projector(localPeer: local, retainsDeletedRows: true)
    try project([
      event(alice, 1, at: 10, [lists], [.insert(table: 0, values: [.integer(1), .text("Home")])]),
      event(local, 1, at: 20, [lists], [.update(table: 0, key: [.integer(1)], changes: [ColumnValue(column: 1, value: .text("House"))])]),
      event(bob, 1, at: 30, [lists], [.insert(table: 0, values: [.integer(2), .text("Work")])]),
      event(local, 2, at: 40, [lists], [.delete(table: 0, key: [.integer(2)])]),
    ], with: projector, into: target)
    assertInlineSnapshot(of: target.takeStatements(), as: .lines) {
      """
      INSERT INTO main."lists" ("id", "name") VALUES (?,?)
      UPDATE main."lists" SET "name" = ? WHERE "id" = ?
      INSERT INTO main."lists" ("id", "name") VALUES (?,?)
      DELETE FROM main."lists" WHERE "id" = ? RETURNING "id", "name"
      """
    }
    assertInlineSnapshot(of: try target.rows("SELECT * FROM lists"), as: .lines) {
      """
      1 | "House"
      """
    }
  }

  @Test func aReceivedRunThatFailsLeavesTheErrorToItsCaller() throws {
    // A received event naming a column this peer does not have, at the same
    // schema epoch: Sync's error, naming the source, and nothing written.
    let target = try Target()
    let projector = Projector(localPeer: local, retainsDeletedRows: true)
    let strange = TableDescriptor(name: "lists", columns: ["id", "name", "colour"], primaryKey: [0])
    #expect {
      try project([
        event(alice, 1, at: 10, [strange], [.insert(table: 0, values: [.integer(1), .text("Home"), .text("red")])]),
      ], with: projector, into: target)
    } throws: { error in
      guard case SyncError.schemaMismatch(let source, _, let reason) = error else { return false }
      return source == "test" && reason.contains("colour")
    }
    #expect(try target.rows("SELECT count(*) FROM lists") == "0")
  }
}
