import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

/// A database whose peer id is from before device keys takes the id its key
/// derives, once, and keeps everything it wrote under the old one.
@Suite("Devices: ids from before device keys move to key-derived ids")
struct KeyDerivedIDTests {
  let directory: TemporaryDirectory
  let clock = ManualWallClock()

  init() throws {
    directory = try TemporaryDirectory()
  }

  func configuration() -> ChronicleConfiguration {
    var configuration = ChronicleConfiguration()
    configuration.wallClock = clock.reader(skew: 0)
    return configuration
  }

  func listNames(_ database: ChronicleDatabase) throws -> [String] {
    try database.read { db in try String.fetchAll(db, sql: "SELECT name FROM lists ORDER BY id") }
  }

  /// A file as a version before device keys left it (random id, no device
  /// table, no key file), holding `names` as lists 1, 2, …; returns its
  /// path and old id.
  func olderDatabase(_ name: String, names: [String]) throws -> (path: String, peer: PeerID) {
    let path = directory.path(name)
    let peer = PeerID.generate()  // a random (version 4) id, as before device keys
    do {
      let database = try openSyncPeer(directory, name: name, clock: clock, peer: .fixed(peer))
      for (index, listName) in names.enumerated() {
        clock.advance(by: 10)
        try database.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (?, ?)", arguments: [index + 1, listName]) }
      }
    }
    try plainConnection(path).write { db in
      try db.execute(sql: version7MembershipTables)
      try db.execute(sql: "DROP TABLE chronicle_devices; DROP TABLE chronicle_group; DROP TABLE chronicle_members; UPDATE chronicle_meta SET value = 2 WHERE key = 'schema_version'")
      try db.execute(sql: version4MergeStateTables)
    }
    try FileManager.default.removeItem(atPath: path + "-device.key")
    return (path, peer)
  }

  func events(of origin: PeerID, in database: ChronicleDatabase) throws -> [StoredEvent] {
    try database.log.events().filter { $0.event.origin == origin }
  }

  @Test func anOlderDatabaseTakesItsKeysIDOnceAndKeepsWhatItWrote() throws {
    // b writes list 1 before the older database does, unseen by it.
    let b = try openSyncPeer(directory, name: "b.sqlite", clock: clock)
    try b.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Older than Groceries')") }
    let (path, old) = try olderDatabase("older.sqlite", names: ["Groceries", "Books"])
    #expect(!old.isKeyDerived)

    let moved = try Chronicle.open(path: path, configuration: configuration())
    let key = try #require(try DeviceKey.read(from: moved.identity.keyFile))
    #expect(moved.peerID == key.derivedPeerID && moved.peerID.isKeyDerived && moved.peerID != old)
    #expect(try moved.identity.canSign)
    #expect(try listNames(moved) == ["Groceries", "Books"])
    let oldEvents = try events(of: old, in: moved)
    #expect(oldEvents.count >= 2, "the old id's events stay in the log")
    let oldEpoch = try #require(oldEvents.last).event.schemaEpoch

    clock.advance(by: 10)
    try moved.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (3, 'Garden')") }
    let first = try #require(try events(of: moved.peerID, in: moved).first).event
    #expect(first.sequence == 1 && first.schemaEpoch == oldEpoch, "the new id starts at sequence 1, at the epoch the old log reached")

    // The merge state kept the old id's writes: b's older list 1 loses to
    // Groceries, both ways.
    try push(b, to: moved)
    try push(moved, to: b)
    #expect(try listNames(moved) == ["Groceries", "Books", "Garden"])
    #expect(try listNames(b) == ["Groceries", "Books", "Garden"])
    try expectMergeStateIsTheOnePassState(moved, "after the move")
    #expect(try events(of: old, in: b).count == oldEvents.count, "b holds the old id's events under it")
    #expect(try b.verify().problems.isEmpty)

    // Once: the next open keeps the new id.
    let newID = moved.peerID
    try moved.close()
    let reopened = try Chronicle.open(path: path, configuration: configuration())
    #expect(reopened.peerID == newID)
    try reopened.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (4, 'Tools')") }
    #expect(try events(of: old, in: reopened).count == oldEvents.count, "nothing more is written under the old id")
  }

  /// An older device (already signing, under its old id) that became a
  /// founding admin of a group: at its move it adds its new id as an admin,
  /// which then revokes the old one after its last event. A backup of the
  /// database from before the move, writing under the old id, is refused.
  @Test func aFoundingAdminUnderAnOlderIDHandsItsPlaceToItsKeysID() throws {
    let (path, old) = try olderDatabase("older.sqlite", names: ["Groceries"])
    let a = try openSyncPeer(directory, name: "a.sqlite", clock: clock)
    do {
      // The version between device keys and this one: signs under its old id.
      let older = try Chronicle.open(path: path, peer: .fixed(old), configuration: configuration())
      try older.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (2, 'Books')") }
      try push(older, to: a)
      try a.createGroup()
      try push(a, to: older)
      #expect(try older.members().first { $0.device == old }?.isActiveAdmin == true)
      try older.close()
    }
    // A backup of the file and its key, as they were before the move.
    let backup = directory.path("backup.sqlite")
    for suffix in ["", "-wal", "-device.key"] where FileManager.default.fileExists(atPath: path + suffix) {
      try FileManager.default.copyItem(atPath: path + suffix, toPath: backup + suffix)
    }

    let moved = try Chronicle.open(path: path, configuration: configuration())
    let new = moved.peerID
    #expect(new.isKeyDerived && new != old)
    let members = try moved.members()
    let newMember = try #require(members.first { $0.device == new })
    let oldMember = try #require(members.first { $0.device == old })
    #expect(newMember.isActiveAdmin)
    #expect(oldMember.revokedBy == new)
    let lastOld = try #require(try events(of: old, in: moved).last).event.sequence
    #expect(oldMember.revokedAfterSequence == lastOld)
    // The old id's signed data event (Books) has its route: members can
    // forward it to a relay.
    let forwardable = try moved.forwardableEvents(of: old, after: 0, maxEvents: 100, maxBytes: 1 << 20)
    #expect(forwardable.first { $0.sequence == 3 }?.route != nil)

    clock.advance(by: 10)
    try moved.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (3, 'Garden')") }
    try push(moved, to: a)
    #expect(try listNames(a) == ["Groceries", "Books", "Garden"])
    #expect(try a.members().first { $0.device == new }?.isActiveAdmin == true)
    #expect(try a.members().first { $0.device == old }?.revokedAfterSequence == lastOld)
    #expect(try a.groupKeyring()?.sealingEpoch != nil)
    // The new id holds the group's keys, the new epoch's included.
    let keyring = try #require(try moved.groupKeyring())
    #expect(keyring.sealingEpoch == keyring.currentEpoch)

    // The backup still signs under the old id with the same key: refused.
    let restored = try Chronicle.open(path: backup, peer: .fixed(old), configuration: configuration())
    clock.advance(by: 10)
    try restored.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (4, 'Planted')") }
    try restored.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (5, 'Weeded')") }
    expectRefused(old, "revoked", by: a) { try push(restored, to: a) }
    #expect(try listNames(a) == ["Groceries", "Books", "Garden"])
  }

  /// The move's steps each commit alone: an add of the new id that
  /// committed before the move is not made twice, and the move finishes.
  @Test func aMoveCutShortAfterTheAddFinishesAtTheNextOpen() throws {
    let (path, old) = try olderDatabase("older.sqlite", names: ["Groceries"])
    let a = try openSyncPeer(directory, name: "a.sqlite", clock: clock)
    do {
      let older = try Chronicle.open(path: path, peer: .fixed(old), configuration: configuration())
      try older.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (2, 'Books')") }
      try push(older, to: a)
      try a.createGroup()
      try push(a, to: older)
      let key = try #require(try DeviceKey.read(from: older.identity.keyFile))
      try older.addMember(publicKey: key.publicKey, as: .admin)
    }
    let moved = try Chronicle.open(path: path, configuration: configuration())
    let members = try moved.members()
    #expect(members.filter { $0.device == moved.peerID }.count == 1)
    #expect(members.first { $0.device == moved.peerID }?.isActiveAdmin == true)
    #expect(members.first { $0.device == old }?.revokedBy == moved.peerID)
  }

  /// Only an admin adds a device: a member under an older id that is not
  /// one keeps its id (and still syncs under it).
  @Test func aMemberThatIsNotAnAdminKeepsItsOlderID() throws {
    let (path, old) = try olderDatabase("older.sqlite", names: ["Groceries"])
    let a = try openSyncPeer(directory, name: "a.sqlite", clock: clock)
    do {
      let older = try Chronicle.open(path: path, peer: .fixed(old), configuration: configuration())
      try older.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (2, 'Books')") }
      try push(older, to: a)
      try a.createGroup()
      try a.changeRole(of: old, to: .writer)
      try push(a, to: older)
    }
    let reopened = try Chronicle.open(path: path, configuration: configuration())
    #expect(reopened.peerID == old)
    try reopened.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (3, 'Garden')") }
    try push(reopened, to: a)
    #expect(try listNames(a) == ["Groceries", "Books", "Garden"])
  }
}
