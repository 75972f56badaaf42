import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

/// A writer made a reader wrote, while it could, events that some members
/// have not received yet. The demotion names the last of them its admin
/// had, as a revocation does: every member takes the reader's row changes
/// up to it, by any path, and refuses those after it; and a forged copy of
/// one of them is refused, as a revoked device's is.
@Suite("Devices: a writer made a reader")
struct DemotedWriterTests: ThreePeers {
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

  /// b writes two lists; a takes them and makes b a reader. c, which
  /// learns of both from a, takes the lists as a did: same events, same
  /// state. A list b writes before it hears of its demotion is refused
  /// (settled) everywhere, and taken once an admin makes b a writer again.
  @Test func aReadersWritesFromBeforeItsDemotionReachEveryMember() throws {
    try makeGroup()
    try insert(b, 1, "One")
    try insert(b, 2, "Two")
    try push(b, to: a)
    try a.changeRole(of: b.peerID, to: .reader)
    let demoted = try #require(try member(a, b.peerID))
    #expect(demoted.role == .reader)
    #expect(demoted.demotedAfterSequence == (try a.versionVector()[b.peerID]))
    #expect(!demoted.demotedCheckpoints.isEmpty)

    let report = try push(a, to: c)
    #expect(report.refused.isEmpty, "\(report.refused)")
    #expect(try names(c) == ["One", "Two"])
    #expect(try member(c, b.peerID) == demoted)
    #expect(try c.digests() == a.digests())

    // b writes on, not knowing yet: refused by both, for good.
    try insert(b, 3, "Three")
    expectRefused(b.peerID, "after :\(demoted.demotedAfterSequence!), when it was made one", by: c) { try push(b, to: c) }
    expectRefused(b.peerID, "is a reader", by: a) { try push(b, to: a) }
    #expect(try names(c) == ["One", "Two"])
    #expect(try c.refusedEvents().allSatisfy(\.settled))
    try push(a, to: b)
    #expect(throws: ChronicleError.self) { try insert(b, 4, "Four") }

    // A writer again: what it wrote as a reader's device is taken.
    try a.changeRole(of: b.peerID, to: .writer)
    #expect(try member(a, b.peerID)?.demotedAfterSequence == nil)
    try push(a, to: c)
    #expect(try names(a) == ["One", "Two", "Three"])
    #expect(try names(c) == ["One", "Two", "Three"])
  }

  /// A reader keeps its key: it (or a backup of it) signs other lists under
  /// the sequences of the ones it wrote as a writer. c, which lacks them,
  /// refuses every one (open), and then takes a's copies.
  @Test func aReaderCannotRewriteWhatItWroteAsAWriter() throws {
    try makeGroup()
    let copy = try backup(of: b, as: "b-backup.sqlite")
    try insert(b, 1, "One")
    try insert(b, 2, "Two")
    try push(b, to: a)
    try a.changeRole(of: b.peerID, to: .reader)
    try send(a.peerID, from: a, to: c)
    #expect(try member(c, b.peerID)?.role == .reader)
    #expect(try names(c).isEmpty)

    try insert(copy, 1, "Forged one")
    try insert(copy, 2, "Forged two")
    #expect(try copy.versionVector()[b.peerID] == a.versionVector()[b.peerID], "the forgery reuses b's sequences")
    let report = try send(b.peerID, from: copy, to: c)
    #expect(report.refused.count == 2, "\(report.refused)")
    #expect(report.refused.allSatisfy { !$0.settled && $0.reason.contains("was made a reader") }, "\(report.refused)")
    #expect(report.refused.contains { $0.reason.contains("does not lead to the events its demotion names") }, "\(report.refused)")
    #expect(try names(c).isEmpty)

    try send(b.peerID, from: a, to: c)
    #expect(try names(c) == ["One", "Two"])
    #expect(try c.digests() == a.digests())
  }

  /// Two admins demote b concurrently, each having taken a different
  /// number of its lists: the one that had more decides, on every device,
  /// in either order, so that neither admin's lists are refused elsewhere.
  @Test func concurrentDemotionsKeepTheWritesEitherAdminHad() throws {
    try makeGroup()
    try a.changeRole(of: c.peerID, to: .admin)
    try push(a, to: c)
    try push(a, to: b)
    try insert(b, 1, "One")
    try send(b.peerID, from: b, to: a)
    try insert(b, 2, "Two")
    try send(b.peerID, from: b, to: c)
    try a.changeRole(of: b.peerID, to: .reader)
    try c.changeRole(of: b.peerID, to: .reader)
    let observer = try openSyncPeer(directory, name: "observer.sqlite", clock: clock)
    let other = try openSyncPeer(directory, name: "other.sqlite", clock: clock)
    try push(a, to: observer)
    try push(c, to: observer)
    try push(c, to: other)
    try push(a, to: other)
    try push(c, to: a)
    try push(a, to: c)
    let expected = try a.versionVector()[b.peerID]
    for peer in [a, c, observer, other] {
      #expect(try member(peer, b.peerID)?.demotedAfterSequence == expected, "\(peer.peerID.shortDescription)")
      #expect(try names(peer) == ["One", "Two"], "\(peer.peerID.shortDescription)")
    }
  }
}
