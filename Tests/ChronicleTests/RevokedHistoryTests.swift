import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

/// A revoked device keeps its key: it (or anyone with a backup of it) can
/// sign other contents for its sequences up to the revocation's cut-off,
/// which peers that have not seen the originals would take (issue 53,
/// item 6). Each signed event links to the one before it, and the
/// revocation names the digests of the last one its writer held and of
/// checkpoints on the way: a peer takes those sequences only when they lead
/// to them.
@Suite("Devices: a revoked device cannot rewrite its past")
struct RevokedHistoryTests: ThreePeers {
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

  /// b writes three lists and a takes them; a revokes b, and c hears of the
  /// revocation from a (not of b's lists).
  func revokeAfterThreeLists() throws -> ChronicleDatabase {
    try makeGroup()
    let copy = try backup(of: b, as: "b-backup.sqlite")
    try insert(b, 1, "One")
    try insert(b, 2, "Two")
    try insert(b, 3, "Three")
    try push(b, to: a)
    try a.revoke(b.peerID)
    try send(a.peerID, from: a, to: c)
    #expect(try c.members().first { $0.device == b.peerID }?.isActive == false)
    #expect(try names(c).isEmpty)
    return copy
  }

  /// The revoked device signs other lists under the sequences of the ones
  /// a took: c, which lacks them, refuses every one (open, so that a good
  /// copy is still taken), and then takes a's copies.
  @Test func anotherContentSignedForSequencesAPeerHasNotSeenIsRefused() throws {
    let copy = try revokeAfterThreeLists()
    for (id, name) in [(1, "Forged one"), (2, "Forged two"), (3, "Forged three")] { try insert(copy, id, name) }
    let written = try copy.versionVector()[b.peerID]
    #expect(try written == a.versionVector()[b.peerID], "the forgery reuses b's sequences")
    let report = try send(b.peerID, from: copy, to: c)
    #expect(report.refused.count == 3, "\(report.refused)")
    #expect(report.refused.allSatisfy { $0.origin == b.peerID && !$0.settled && $0.reason.contains("revoked") }, "\(report.refused)")
    #expect(report.refused.contains { $0.reason.contains("this copy does not lead to the events its revocation names") })
    #expect(try names(c).isEmpty)
    #expect(try c.versionVector()[b.peerID] < written, "nothing of the forgery is counted as held")

    try send(b.peerID, from: a, to: c)
    #expect(try names(c) == ["One", "Two", "Three"])
    #expect(try c.versionVector()[b.peerID] == written)
    #expect(try c.refusedEvents().isEmpty, "\((try? c.refusedEvents()) ?? [])")
    // And the forgery, sent again, is held as the other copy of held events.
    let again = try send(b.peerID, from: copy, to: c)
    #expect(again.appliedEvents == 0)
    #expect(try names(c) == ["One", "Two", "Three"])
  }

  /// Only the last event rewritten (the one the revocation names) is
  /// refused for that, and so are the genuine ones below it that the
  /// forger sent with it; a's copies are then taken.
  @Test func theEventTheRevocationNamesCannotBeRewrittenEither() throws {
    try makeGroup()
    try insert(b, 1, "One")
    try insert(b, 2, "Two")
    let copy = try backup(of: b, as: "b-backup.sqlite")
    try insert(b, 3, "Three")
    try push(b, to: a)
    try a.revoke(b.peerID)
    try send(a.peerID, from: a, to: c)
    try insert(copy, 3, "Forged three")
    let report = try send(b.peerID, from: copy, to: c)
    #expect(report.refused.contains { $0.reason.contains("does not lead to the events its revocation names") && !$0.settled }, "\(report.refused)")
    #expect(try names(c) == [], "the genuine lists below the rewritten one are not taken on its word")
    try send(b.peerID, from: a, to: c)
    #expect(try names(c) == ["One", "Two", "Three"])
  }

  /// A revoked device's genuine events that reach a peer in pieces wait
  /// (kept, counted as held) until the rest of the chain comes, and are
  /// then taken.
  @Test func genuineEventsArrivingInPiecesAreTakenOnceTheyLeadToTheRevocation() throws {
    _ = try revokeAfterThreeLists()
    let first = try c.versionVector()[b.peerID] + 1
    let report = try send(b.peerID, from: b, to: c, through: first)
    #expect(report.refused.count == 1 && report.refused.allSatisfy { $0.settled && $0.reason.contains("waits for the rest") }, "\(report.refused)")
    #expect(try names(c).isEmpty)
    #expect(try c.versionVector()[b.peerID] == first, "a waiting event is counted as held: it is not sent again")

    try send(b.peerID, from: a, to: c)
    #expect(try names(c) == ["One", "Two", "Three"])
    #expect(try c.refusedEvents().isEmpty, "\((try? c.refusedEvents()) ?? [])")
    #expect(try c.versionVector()[b.peerID] == a.versionVector()[b.peerID])
  }

  /// Forged events that reach a peer first, in a piece, wait like genuine
  /// ones; once the genuine rest shows they do not lead to the revocation,
  /// they are refused open and the genuine ones taken at the next sync.
  @Test func aForgedPieceKeptWhileWaitingIsAskedForAgainOnceTheRestDisprovesIt() throws {
    let copy = try revokeAfterThreeLists()
    for (id, name) in [(1, "Forged one"), (2, "Forged two")] { try insert(copy, id, name) }
    let through = try copy.versionVector()[b.peerID]
    let report = try send(b.peerID, from: copy, to: c, through: through)
    #expect(report.refused.count == 2 && report.refused.allSatisfy(\.settled), "\(report.refused)")
    #expect(try names(c).isEmpty)

    try send(b.peerID, from: a, to: c)
    #expect(try names(c) == ["Three"])
    #expect(try c.versionVector()[b.peerID] < through, "the forged pieces are no longer counted as held")
    try send(b.peerID, from: a, to: c)
    #expect(try names(c) == ["One", "Two", "Three"])
    #expect(try c.refusedEvents().isEmpty, "\((try? c.refusedEvents()) ?? [])")
  }

  /// A revocation names checkpoints along a long history (here every 16
  /// MiB), so a peer that gets the revoked device's events a piece at a
  /// time takes each piece that reaches a checkpoint at once, and keeps
  /// at most the events since the last one.
  @Test func aLongHistoryIsCheckedOnePieceAtATime() throws {
    try makeGroup()
    for id in 1...30 {
      clock.advance(by: 1)
      try b.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (?, hex(randomblob(700000)))", arguments: [id]) }
    }
    try push(b, to: a)
    try a.revoke(b.peerID)
    try send(a.peerID, from: a, to: c)
    let checkpoints = try #require(try c.members().first { $0.device == b.peerID }?.revokedCheckpoints)
    #expect(checkpoints.count >= 2, "\(checkpoints.map(\.sequence))")
    #expect(try checkpoints.last?.sequence == a.versionVector()[b.peerID])
    let start = try c.versionVector()[b.peerID]
    let report = try send(b.peerID, from: a, to: c, through: checkpoints[0].sequence)
    #expect(report.refused.isEmpty, "\(report.refused)")
    #expect(try names(c).count == Int(checkpoints[0].sequence - start))
    let waiting = try send(b.peerID, from: a, to: c, through: checkpoints[0].sequence + 2)
    #expect(waiting.refused.count == 2 && waiting.refused.allSatisfy(\.settled), "\(waiting.refused)")
    try send(b.peerID, from: a, to: c)
    #expect(try names(c).count == 30)
    #expect(try c.refusedEvents().isEmpty)
  }

  /// Every signed event links to its device's previous one, whether it was
  /// signed on its own (a change of the member list) or with others.
  @Test func everySignedEventLinksToThePreviousOne() throws {
    try makeGroup()
    try insert(b, 1, "One")
    try insert(b, 2, "Two")
    try a.changeRole(of: b.peerID, to: .reader)
    try insert(a, 3, "Three")
    try push(a, to: c)
    let events = try a.serializedEvents(beyond: VersionVector()).filter { EventCodec.eventID(of: $0)?.origin == a.peerID }
    #expect(events.count >= 4)
    for (previous, next) in zip(events, events.dropFirst()) {
      #expect(next[4] == EventSignature.linkedVersion)
      #expect(EventSignature.link(of: next) == EventSignature.historyDigest(of: previous))
    }
    #expect(events.first.flatMap { EventSignature.link(of: $0) } == nil, "the first event links to none")
  }
}
