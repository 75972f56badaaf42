import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

@Suite("Sync: deleting a peer's local data")
struct LocalDataTests {
  let directory: TemporaryDirectory
  let clock = ManualWallClock()
  let a: ChronicleDatabase
  let b: ChronicleDatabase

  init() throws {
    directory = try TemporaryDirectory()
    a = try openSyncPeer(directory, name: "a.sqlite", clock: clock)
    b = try openSyncPeer(directory, name: "b.sqlite", clock: clock)
  }

  func count(_ database: ChronicleDatabase, _ table: String) throws -> Int {
    try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? -1 }
  }

  @Test func theSyncedDataGoesAndComesBackUnderANewIdentity() async throws {
    try await a.write { db in
      try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')")
      try db.execute(sql: "INSERT INTO items (id, listID, title) VALUES (1, 1, 'Milk')")
    }
    try push(a, to: b)
    clock.advance(by: 5)
    try await b.write { db in
      try db.execute(sql: "INSERT INTO lists (id, name) VALUES (2, 'Work')")
      try db.execute(sql: "CREATE TABLE drafts (id INTEGER PRIMARY KEY, text TEXT)")  // not STRICT: local only
      try db.execute(sql: "INSERT INTO drafts (text) VALUES ('kept')")
    }
    try push(b, to: a)
    let oldPeer = b.peerID
    let oldEpoch = try #require(try b.log.events().last(where: { $0.event.origin == oldPeer })).event.schemaEpoch

    let engine = SyncEngine(for: b, tables: ["lists", "items"], transport: .memory(a))
    engine.start(every: .seconds(3600))
    try await engine.deleteLocalData()
    #expect(!engine.isRunning)

    #expect(b.peerID != oldPeer)
    let storedPeer = try await b.read { db in try Data.fetchOne(db, sql: "SELECT peer_id FROM chronicle_peer") }
    #expect(storedPeer == Data(b.peerID.bytes))
    #expect(try count(b, "lists") == 0 && count(b, "items") == 0)
    #expect(try count(b, "drafts") == 1)
    #expect(try count(b, "chronicle_rows") == 0 && count(b, "chronicle_integer_rows") == 0)
    let log = try b.log.events()
    #expect(log.count == 1)
    let first = try #require(log.first).event
    #expect(first.origin == b.peerID && first.sequence == 1 && first.rowChangeCount == 0)
    #expect(first.schemaEpoch == oldEpoch)
    #expect(try b.versionVector() == VersionVector([b.peerID: 1]))
    #expect(Set(try b.trackedTables) == ["items", "lists"])
    // The log still rebuilds the schema: a replay makes the same empty tables
    // (and the untracked one, whose rows were never in the log).
    let replayed = try b.replay(into: directory.path("replayed.sqlite"))
    #expect(replayed.digests.map(\.table) == ["drafts", "items", "lists"])
    #expect(replayed.digests.filter { $0.table != "drafts" } == (try b.digests()).filter { $0.table != "drafts" })
    #expect(replayed.digests.allSatisfy { $0.rowCount == 0 })
    // Nothing went to the other peer.
    #expect(try count(a, "lists") == 2 && count(a, "items") == 1)

    // Syncing again fetches the group's data, old identity's rows included.
    try await engine.syncChanges()
    #expect(try count(b, "lists") == 2 && count(b, "items") == 1)
    clock.advance(by: 5)
    try await b.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (3, 'Garden')") }
    try await engine.syncChanges()
    #expect(try count(a, "lists") == 3)
    #expect(try a.versionVector()[b.peerID] == 2)
    #expect(try a.digests() == b.digests().filter { $0.table != "drafts" })
  }

  @Test func rowsOfUntrackedTablesThatStillReferToSyncedRowsStopTheDeletionWhole() throws {
    try b.write { db in
      try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')")
      try db.execute(sql: "CREATE TABLE pins (id INTEGER PRIMARY KEY, listID INTEGER REFERENCES lists(id))")
      try db.execute(sql: "INSERT INTO pins (listID) VALUES (1)")
    }
    let peer = b.peerID
    let events = try eventIDs(b)
    #expect {
      try b.deleteLocalData()
    } throws: { error in
      guard case ChronicleError.localDataStillReferenced = error else { return false }
      return "\(error)".contains("Fix:")
    }
    #expect(b.peerID == peer)
    #expect(try count(b, "lists") == 1 && count(b, "pins") == 1)
    #expect(try eventIDs(b) == events)
    // Capture still works afterwards.
    try b.write { db in try db.execute(sql: "UPDATE lists SET name = 'House'") }
    #expect(try eventIDs(b).count == events.count + 1)
  }
}
