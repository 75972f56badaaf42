import ChronicleTestSupport
import Foundation
import Testing

@testable import Chronicle

/// A row parked because its parent was deleted comes back when this peer's
/// own write puts the parent back, as it does on a peer that merges that
/// write. (It stayed parked here until some later merge settled it, and for
/// good if none came: randomized convergence scenario 1750 ended with one
/// peer lacking an item the others had.)
@Suite("Parked rows come back with a parent written here")
struct ParkedParentComesBackTests {
  /// Alice's list reaches Bob; Bob deletes it while Alice adds an item to
  /// it: the item reaches Bob without its parent, and is parked there.
  private func itemParkedOnBob() throws -> (directory: TemporaryDirectory, clock: ManualWallClock, alice: ChronicleDatabase, bob: ChronicleDatabase) {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let alice = try openSyncPeer(directory, name: "alice.sqlite", clock: clock)
    let bob = try openSyncPeer(directory, name: "bob.sqlite", clock: clock)
    try alice.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (3, 'Errands')") }
    try push(alice, to: bob)
    clock.advance(by: 1)
    try bob.write { db in try db.execute(sql: "DELETE FROM lists WHERE id = 3") }
    try alice.write { db in try db.execute(sql: "INSERT INTO items (id, listID, title) VALUES (5, 3, 'Stamps')") }
    clock.advance(by: 1)
    #expect(try push(alice, to: bob).parkedRows == 1)
    #expect(try bob.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items") } == 0)
    clock.advance(by: 1)
    return (directory, clock, alice, bob)
  }

  @Test func aParentWrittenHereBringsBackItsParkedChildAtOnce() throws {
    let (directory, _, alice, bob) = try itemParkedOnBob()
    // Bob makes the list again: the item is back, in the same transaction.
    try bob.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (3, 'Errands again')") }
    #expect(try bob.parkedRows().isEmpty)
    #expect(try bob.read { db in try String.fetchAll(db, sql: "SELECT title FROM items") } == ["Stamps"])
    #expect(try bob.log.events().last?.event.operations.count == 1, "bringing the item back appended no change of its own")
    try expectNoOrphans(bob, "bob")

    // Bob's log replayed from nothing gives the same tables, and Alice,
    // merging Bob's list, ends with the same rows.
    let replayed = try bob.replay(into: directory.path("replay.sqlite"))
    #expect(replayed.digests == (try bob.digests()))
    try push(bob, to: alice)
    try push(alice, to: bob)
    #expect(try alice.digests() == bob.digests())
    #expect(try alice.parkedRows().isEmpty)
  }

  /// A parked row inserted again here, with its parent, is parked no
  /// longer as soon as the write commits (a merge used to find it so).
  @Test func aParkedRowWrittenHereAgainIsParkedNoLonger() throws {
    let (directory, _, alice, bob) = try itemParkedOnBob()
    try bob.write { db in
      try db.execute(sql: "INSERT INTO lists (id, name) VALUES (3, 'Mine')")
      try db.execute(sql: "INSERT INTO items (id, listID, title) VALUES (5, 3, 'Mine too')")
    }
    #expect(try bob.parkedRows().isEmpty)
    #expect(try bob.read { db in try String.fetchAll(db, sql: "SELECT title FROM items") } == ["Mine too"])
    let replayed = try bob.replay(into: directory.path("replay.sqlite"))
    #expect(replayed.digests == (try bob.digests()))
    try push(bob, to: alice)
    #expect(try alice.digests() == bob.digests())
  }
}
