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
    #expect(large.reason.contains("is no member of this group, and its events over 4 MiB are not opened until it is"), "\(large.reason)")
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

  static func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
}
