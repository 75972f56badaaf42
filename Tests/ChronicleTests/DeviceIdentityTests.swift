import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

/// Device keys: every event leaves its device signed, and a received event
/// must be signed by the device it names, or nothing of its batch is applied.
@Suite("Devices: keys, signed events, refused forgeries")
struct DeviceIdentityTests {
  let directory: TemporaryDirectory
  let clock = ManualWallClock()
  let a: ChronicleDatabase
  let b: ChronicleDatabase
  let c: ChronicleDatabase

  init() throws {
    directory = try TemporaryDirectory()
    a = try openSyncPeer(directory, name: "a.sqlite", clock: clock)
    b = try openSyncPeer(directory, name: "b.sqlite", clock: clock)
    c = try openSyncPeer(directory, name: "c.sqlite", clock: clock)
  }

  /// The serialized event `sequence` of `origin` as `database`'s log holds it.
  func payload(_ database: ChronicleDatabase, _ origin: PeerID, _ sequence: Int) throws -> [UInt8] {
    try database.read { db in
      try #require(try Data.fetchOne(
        db, sql: "SELECT payload FROM chronicle_events WHERE origin = ? AND sequence = ?", arguments: [Data(origin.bytes), sequence]))
    }.map { $0 }
  }

  /// `bytes` with their CRC-32 made right again (so only the signature can tell).
  func withFixedChecksum(_ bytes: [UInt8]) -> [UInt8] {
    var writer = BinaryWriter()
    writer.writeUInt32BigEndian(Zlib.crc32(bytes.dropLast(4)))
    return bytes.dropLast(4) + writer.bytes
  }

  func listNames(_ database: ChronicleDatabase) throws -> [String] {
    try database.read { db in try String.fetchAll(db, sql: "SELECT name FROM lists ORDER BY id") }
  }

  @Test func aNewDatabaseIsADeviceWhosePeerIDComesFromItsKey() throws {
    let identity = try a.identity
    #expect(identity.peerID == a.peerID)
    #expect(identity.peerID.isKeyDerived)
    #expect(PeerID(publicKey: identity.publicKey) == identity.peerID)
    #expect(identity.canSign)
    #expect(identity.keyFile.path == directory.path("a.sqlite") + "-device.key")
    let mode = try #require(try FileManager.default.attributesOfItem(atPath: identity.keyFile.path)[.posixPermissions] as? Int)
    #expect(mode == 0o600)
    // The key is never inside the database.
    let key = try #require(try DeviceKey.read(from: identity.keyFile))
    let raw = Data(key.privateKey.rawRepresentation)
    let file = try Data(contentsOf: URL(fileURLWithPath: directory.path("a.sqlite")))
    #expect(file.range(of: raw) == nil)
  }

  @Test func eventsAreWrittenUnsignedAndLeaveSigned() throws {
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')") }
    let last = try #require(try a.log.events().last)
    #expect(try payload(a, a.peerID, Int(last.event.sequence))[4] == 1)  // unsigned at commit
    try push(a, to: b)
    for database in [a, b] {
      let signed = try payload(database, a.peerID, Int(last.event.sequence))
      #expect(signed[4] == EventSignature.linkedVersion)
      #expect(try EventSignature.verifiedSigner(of: signed) == (try a.identity.publicKey))
      #expect(try EventCodec.decode(signed) == last.event)
    }
    #expect(try listNames(b) == ["Home"])
    #expect(try a.replayMatchesLive(directory))
    #expect(try b.replayMatchesLive(directory))
  }

  @Test func aMemberCannotWriteUnderAnotherMembersPeerID() throws {
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')") }
    try push(a, to: c)
    try b.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (2, 'Work')") }
    let good = try b.serializedEvents(beyond: c.versionVector())
    // b takes an event of a's that a has not sent, and signs it as a's with its own key.
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (3, 'Forged')") }
    let sequence = Int(try #require(try a.log.events().last).event.sequence)
    let bKey = try #require(try DeviceKey.read(from: b.identity.keyFile))
    let forged = EventSignature.seal(try payload(a, a.peerID, sequence), linkedTo: EventSignature.noLink, with: bKey)

    // The forgery is refused alone; b's own events beside it apply.
    expectRefused(a.peerID, "another device's key", by: c) { try c.applyRemote(serializedEvents: good + [forged], source: "b") }
    #expect(try c.refusedEvents().map(\.sequence) == [UInt64(sequence)])
    #expect(try listNames(c) == ["Home", "Work"])
    #expect(try c.versionVector()[b.peerID] == b.versionVector()[b.peerID])
    // Unproven, the refusal does not count as held: a's genuine event is still taken.
    #expect(try c.versionVector()[a.peerID] == UInt64(sequence - 1))
    try push(a, to: c)
    #expect(try listNames(c) == ["Home", "Work", "Forged"])
    #expect(try c.refusedEvents().isEmpty)
  }

  @Test func aChangedSignatureOrAChangedEventIsRefused() throws {
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')") }
    let signed = try #require(try a.serializedEvents(beyond: VersionVector()).last)
    var badSignature = signed
    badSignature[badSignature.count - 10] ^= 0x01
    var laterClock = signed
    laterClock[29] ^= 0x01  // the HLC's low byte: still a valid event, not the signed one
    for tampered in [badSignature, laterClock].map(withFixedChecksum) {
      expectRefused(a.peerID, "does not verify", by: b) { try b.applyRemote(serializedEvents: [tampered], source: "a") }
      #expect(try b.log.count() == 1)  // b's own first event only
      // Not settled: the origin is not proven, so a good copy is still taken.
      #expect(try b.refusedEvents().allSatisfy { !$0.settled })
      #expect(try b.versionVector()[a.peerID] == 0)
    }
    // The untouched event still goes through.
    _ = try b.applyRemote(serializedEvents: [signed], source: "a")
    #expect(try listNames(b) == ["Home"])
  }

  @Test func anUnsignedEventUnderAKeyDerivedPeerIDIsRefused() throws {
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')") }
    let sequence = Int(try #require(try a.log.events().last).event.sequence)
    let unsigned = try payload(a, a.peerID, sequence)
    #expect(unsigned[4] == 1)
    expectRefused(a.peerID, "not signed", by: b) { try b.applyRemote(serializedEvents: [unsigned], source: "a") }
    #expect(try listNames(b).isEmpty)
  }

  @Test func aCopyWithoutItsKeyFileCannotWriteAsTheDevice() throws {
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')") }
    let copyPath = directory.path("copy.sqlite")
    try a.writer.backup(to: DatabaseQueue(path: copyPath))
    var configuration = ChronicleConfiguration()
    configuration.wallClock = clock.reader(skew: 0)
    let copy = try Chronicle.open(path: copyPath, configuration: configuration)
    #expect(copy.peerID == a.peerID)
    #expect(try !copy.identity.canSign)
    #expect(try listNames(copy) == ["Home"])  // reading works
    do {
      try copy.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (2, 'Copied')") }
      Issue.record("a copy without the key wrote as the device")
    } catch let error as ChronicleError {
      guard case .deviceKeyMissing(let path, let peer) = error else { throw error }
      #expect(path == copyPath + "-device.key" && peer == a.peerID)
      #expect(error.description.contains("deleteLocalData"))
    }
    #expect(try listNames(copy) == ["Home"])
    // Unsigned events of the device cannot leave the copy either.
    #expect(throws: ChronicleError.self) { try copy.serializedEvents(beyond: VersionVector()) }

    // The copy goes on as a device of its own.
    try copy.deleteLocalData()
    #expect(copy.peerID != a.peerID && copy.peerID.isKeyDerived)
    #expect(try copy.identity.canSign)
    try push(a, to: copy)
    try copy.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (2, 'Copied')") }
    try push(copy, to: a)
    #expect(try listNames(a) == ["Home", "Copied"])
  }

  @Test func aDatabaseFromBeforeDeviceKeysSignsFromItsNextEventAndItsHistoryStaysReadable() throws {
    let path = directory.path("legacy.sqlite")
    let legacyPeer = PeerID.generate()  // a random (version 4) id, as before device keys
    do {
      let legacy = try openSyncPeer(directory, name: "legacy.sqlite", clock: clock, peer: .fixed(legacyPeer))
      try legacy.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Old')") }
    }
    // Back to what the previous version left: no device table, no key file.
    try plainConnection(path).write { db in
      try db.execute(sql: version7MembershipTables)
      try db.execute(sql: "DROP TABLE chronicle_devices; DROP TABLE chronicle_group; DROP TABLE chronicle_members; UPDATE chronicle_meta SET value = 2 WHERE key = 'schema_version'")
      try db.execute(sql: version4MergeStateTables)
    }
    try FileManager.default.removeItem(atPath: path + "-device.key")
    let oldSequences = 2

    var configuration = ChronicleConfiguration()
    configuration.wallClock = clock.reader(skew: 0)
    let legacy = try Chronicle.open(path: path, configuration: configuration)
    #expect(legacy.peerID == legacyPeer && !legacyPeer.isKeyDerived)
    #expect(try legacy.identity.canSign)
    try legacy.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (2, 'New')") }
    try push(legacy, to: b)
    #expect(try listNames(b) == ["Old", "New"])
    let signedFrom = oldSequences + 1
    #expect(try payload(b, legacyPeer, oldSequences)[4] == 1)  // history stays unsigned, readable
    #expect(try payload(b, legacyPeer, signedFrom)[4] == EventSignature.linkedVersion)

    // b now knows legacyPeer's key: an unsigned event of it from there on, or
    // one signed by another key, is refused.
    try legacy.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (3, 'Later')") }
    let sequence = Int(try #require(try legacy.log.events().last).event.sequence)
    let unsigned = try payload(legacy, legacyPeer, sequence)
    expectRefused(legacyPeer, "not signed") { try b.applyRemote(serializedEvents: [unsigned], source: "legacy") }
    let cKey = try #require(try DeviceKey.read(from: c.identity.keyFile))
    expectRefused(legacyPeer, "another device's key") {
      try b.applyRemote(serializedEvents: [EventSignature.seal(unsigned, linkedTo: EventSignature.noLink, with: cKey)], source: "c")
    }
    try push(legacy, to: b)
    #expect(try listNames(b) == ["Old", "New", "Later"])
  }

  @Test func verifyReportsBadlySignedAndUnsignedEventsOfOtherDevices() throws {
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home')") }
    try push(a, to: b)
    #expect(try b.verify().isValid)
    let sequence = Int(try #require(try a.log.events().last).event.sequence)
    // A copy changed behind Chronicle's back: its signature no longer holds.
    var tampered = try payload(b, a.peerID, sequence)
    tampered[tampered.count - 20] ^= 0x01
    tampered = withFixedChecksum(tampered)
    let checksum = tampered.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    try plainConnection(b.path).write { db in
      try db.execute(
        sql: "UPDATE chronicle_events SET payload = ?, checksum = ? WHERE origin = ? AND sequence = ?",
        arguments: [Data(tampered), Int64(checksum), Data(a.peerID.bytes), sequence])
    }
    let report = try b.verify()
    #expect(report.problems.map(\.kind) == [.badSignature, .replayFailed])
    #expect(report.problems.allSatisfy { $0.event == "\(a.peerID.shortDescription):\(sequence)" })
    // Nor does such a log replay.
    #expect(throws: ChronicleError.self) { try b.replay(into: directory.path("tampered-replay.sqlite")) }
    // The unsigned form of a later event, from a device that signs its events.
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (2, 'Work')") }
    let later = sequence + 1
    let unsigned = Data(try payload(a, a.peerID, later))
    try push(a, to: b)
    try plainConnection(b.path).write { db in
      try db.execute(
        sql: "UPDATE chronicle_events SET payload = ?, format_version = 1, stored_size = ?, checksum = ? WHERE origin = ? AND sequence = ?",
        arguments: [unsigned, unsigned.count, Int64(unsigned.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }), Data(a.peerID.bytes), later])
    }
    #expect(try b.verify().problems.map(\.kind).contains(.unsignedEvent))
  }
}
