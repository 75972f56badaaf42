import ChronicleTestSupport
import Foundation
import Testing

@testable import Chronicle

/// A received event's body may declare up to 1 GiB: it is inflated only once
/// its signature holds, and, for a device the member list does not name,
/// only when it is small. What the checks refuse is refused alone; what they
/// put off is merged in the same call once the batch admits its device.
@Suite("Sync: checks before inflating")
struct CheckBeforeInflateTests: ThreePeers {
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

  /// A list whose name alone makes the event's body about 5 MiB (over the
  /// 4 MiB a device the member list does not name may send).
  func insertLargeList(_ database: ChronicleDatabase, _ id: Int) throws {
    clock.advance(by: 1)
    try database.write { db in
      try db.execute(sql: "INSERT INTO lists (id, name) VALUES (?, hex(randomblob(2600000)))", arguments: [id])
    }
  }

  /// Sends `source`'s events `target` lacks as a TCP or relay batch does.
  func send(_ source: ChronicleDatabase, to target: ChronicleDatabase) throws -> MergeReport {
    try target.applyRemote(serializedEvents: try source.serializedEvents(beyond: target.versionVector()), source: "peer \(source.peerID.shortDescription)")
  }

  @Test func anEventWhoseSignatureFailsIsRefusedForItWithoutItsBodyBeingRead() throws {
    try a.createGroup()
    try b.join(try a.invite())
    _ = try push(b, to: a)
    _ = try push(a, to: b)
    clock.advance(by: 1)
    try b.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, hex(randomblob(3000)))") }
    var events = try b.serializedEvents(beyond: a.versionVector())
    // The body overwritten (it would not even inflate), the checksum made to match.
    var last = events.removeLast()
    for index in 60..<(last.count - 200) { last[index] = 0x5A }
    last = Array(last.dropLast(4)) + Self.bigEndian(Zlib.crc32(last.dropLast(4)))
    let report = try a.applyRemote(serializedEvents: events + [last], source: "peer b")
    let refusal = try #require(report.refused.first { $0.origin == b.peerID })
    #expect(refusal.reason.hasPrefix("its signature does not verify"), "\(refusal.reason)")
    #expect(!refusal.settled)
    #expect(report.refused.count == 1)
  }

  /// A device in no group (it holds the group key, say, as anyone who once
  /// saw it may) sends a large event: it is refused unopened, with a reason
  /// that says when it would be taken, and asked for again later.
  @Test func aLargeEventOfADeviceTheMemberListDoesNotNameIsNotOpened() throws {
    try a.createGroup()
    try insertLargeList(c, 7)
    let report = try send(c, to: a)
    let last = try c.versionVector()[c.peerID]
    let large = try #require(report.refused.first { $0.origin == c.peerID && $0.sequence == last })
    #expect(large.reason.contains("is no member of this group, whose events are opened only up to 4 MiB each and 16 MiB a batch"), "\(large.reason)")
    #expect(!large.settled)
    #expect(try names(a).isEmpty)
  }

  /// The large event of a device admitted in the same batch (its join
  /// request first, which this admin's device admits) is merged in the same call.
  @Test func aLargeEventOfADeviceAdmittedInTheSameBatchIsMergedAtOnce() throws {
    try a.createGroup()
    try c.join(try a.invite())
    try insertLargeList(c, 9)
    let report = try send(c, to: a)
    #expect(report.refused.isEmpty, "\(report.refused)")
    #expect(try names(a).count == 1)
    #expect(try a.members().first { $0.device == c.peerID }?.isActive == true)
  }

  /// `event` (serialized) with its body replaced by `body` bytes that do
  /// not inflate, declaring `declared` bytes inflated, unsigned (version 1).
  static func garbled(_ event: [UInt8], declaring declared: Int, body: Int) throws -> [UInt8] {
    let header = try #require(EventCodec.declaredBody(of: event))
    var writer = BinaryWriter(capacity: body + 64)
    writer.writeBytes(Array(event[0..<4]))
    writer.writeByte(1)
    writer.writeByte(EventCodec.flagCompressed)
    writer.writeBytes(header.origin.bytes)
    writer.writeBytes(Array(event[22..<30]))
    writer.writeVarint(header.sequence)
    writer.writeVarint(0)
    writer.writeVarint(UInt64(declared))
    writer.writeVarint(UInt64(body))
    writer.writeBytes(Array(repeating: 0x5A, count: body))
    writer.writeUInt32BigEndian(Zlib.crc32(writer.bytes[...]))
    return writer.bytes
  }

  /// An unsigned event of a device whose id comes from its key is refused
  /// for it, its body (which would not inflate) never read.
  @Test func anUnsignedEventOfAKeyedDeviceIsRefusedUnread() throws {
    try a.createGroup()
    try b.join(try a.invite())
    _ = try push(b, to: a)
    _ = try push(a, to: b)
    try insert(b, 1, "one")
    let event = try #require(try b.serializedEvents(beyond: a.versionVector()).last)
    let report = try a.applyRemote(serializedEvents: [try Self.garbled(event, declaring: 1 << 20, body: 3_000)], source: "peer b")
    let refusal = try #require(report.refused.first)
    #expect(refusal.reason.hasPrefix("it is not signed"), "\(refusal.reason)")
  }

  /// A revoked device's event past its cut-off that declares a body too
  /// large for a membership change is refused for good, unread.
  @Test func aRevokedDevicesLargeLateEventIsRefusedForGoodUnread() throws {
    try a.createGroup()
    try b.join(try a.invite())
    _ = try push(b, to: a)
    _ = try push(a, to: b)
    try a.revoke(b.peerID)
    try insert(b, 2, "after")
    let event = try #require(try b.serializedEvents(beyond: a.versionVector()).last)
    let signed = EventSignature.seal(try Self.garbled(event, declaring: 6 << 20, body: 3_000), linkedTo: EventSignature.noLink, with: try #require(b.deviceKey))
    let report = try a.applyRemote(serializedEvents: [signed], source: "peer b")
    let refusal = try #require(report.refused.first)
    #expect(refusal.reason.contains("revoked"), "\(refusal.reason)")
    #expect(refusal.settled)
  }

  /// Events of a device outside the group are inflated within 16 MiB a
  /// batch in all, however many each within 4 MiB: the rest wait.
  @Test func aStrangersEventsAreInflatedWithinABudgetPerBatch() throws {
    try a.createGroup()
    for id in 1...5 {
      clock.advance(by: 1)
      try c.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (?, hex(randomblob(1900000)))", arguments: [id]) }
    }
    let report = try send(c, to: a)
    let last = try c.versionVector()[c.peerID]
    let waiting = try #require(report.refused.first { $0.origin == c.peerID && $0.sequence == last })
    #expect(waiting.reason.contains("opened only up to 4 MiB each and 16 MiB a batch"), "\(waiting.reason)")
    #expect(report.refused.filter { $0.reason.contains("16 MiB a batch") }.count == 1, "\(report.refused)")
  }

  static func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
}
