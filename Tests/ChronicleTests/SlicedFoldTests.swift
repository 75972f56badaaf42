import ChronicleTestSupport
import Foundation
import Testing

@testable import Chronicle

/// A long local history is folded into merge state in slices, each its own
/// transaction, so the app (and other processes) can write between them and
/// an interrupted fold keeps what it did. Folding in slices, with local
/// writes and merges landing between them, must leave the same merge state
/// as folding the whole history at once: the state a rebuild derives from
/// the log from scratch.
@Suite("Merge state: a history folded in slices")
struct SlicedFoldTests {
  @Test(arguments: [UInt64(0x5EED_0401), 0x5EED_0402, 0x5EED_0403, 0x5EED_0404])
  func slicesWithWritesBetweenThemFoldAsOnePassDoes(seed: UInt64) async throws {
    try await offThePool { try run(seed: seed) }
  }

  func run(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let peer = try openSyncPeer(directory, name: "peer.sqlite", clock: clock)
    let other = try openSyncPeer(directory, name: "other.sqlite", clock: clock, skew: 2)
    // A history with merges in its first third: the fold mark is there,
    // with local writes and received events after it.
    let steps = Int.random(in: 90...120, using: &random)
    for step in 0..<steps {
      clock.advance(by: UInt64.random(in: 0...2, using: &random))
      let writer = Bool.random(using: &random) ? peer : other
      if Int.random(in: 0..<8, using: &random) == 0 {
        if writer === other, step < steps / 3 { try push(other, to: peer) } else { try push(peer, to: other) }
        continue
      }
      try ConvergenceTests().randomWrite(writer, &random)
    }
    for _ in 0..<30 {
      clock.advance(by: 1)
      try ConvergenceTests().randomWrite(peer, &random)
    }
    // One event per slice (the deadline has passed when each starts), with
    // local writes, and now and then a merge, between slices.
    var slices = 0
    while try !peer.foldLocalEvents(until: .now) {
      slices += 1
      clock.advance(by: 1)
      // A merge folds whatever is left first: now and then, one lands mid-fold.
      switch Int.random(in: 0..<30, using: &random) {
      case 0: try push(other, to: peer)
      case 1..<11: try ConvergenceTests().randomWrite(peer, &random)
      default: break
      }
      if Int.random(in: 0..<4, using: &random) == 0 { try ConvergenceTests().randomWrite(other, &random) }
    }
    #expect(slices > 10, "seed \(seed): the fold took \(slices) slices, too few to tell slices from one pass")
    #expect(try !peer.hasUnfoldedEvents(), "seed \(seed): the last slice did not catch up with the log")

    // The rebuild folds the whole history into fresh merge state, in one pass.
    try expectMergeStateIsTheOnePassState(peer, "seed \(seed)")
    // And the peer still converges with the other.
    try push(other, to: peer)
    try push(peer, to: other)
    #expect(try peer.digests() == other.digests(), "seed \(seed): the peers differ after syncing")
  }

  @Test func preparingInSlicesReportsTheWholeHistory() async throws {
    try await offThePool {
      let directory = try TemporaryDirectory()
      let clock = ManualWallClock()
      let peer = try openSyncPeer(directory, name: "peer.sqlite", clock: clock)
      for index in 1...40 {
        try peer.write { db in
          try db.execute(sql: "INSERT INTO lists (id, name) VALUES (?, 'list')", arguments: [index])
        }
      }
      let events = try peer.log.count()
      var reports: [(folded: Int, total: Int)] = []
      // A slice of zero folds one event per transaction.
      try peer.prepareMergeState(slice: .zero, pause: .zero) { folded, total in reports.append((folded, total)) }
      #expect(reports.last?.folded == events && reports.last?.total == events)
      #expect(reports.allSatisfy { $0.total == events }, "every report names the whole history: \(reports)")
      #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.folded <= $1.folded }, "reports never go back: \(reports)")
      #expect(reports.count >= events, "one report at least per slice: \(reports.count) for \(events) events")
      #expect(try !peer.hasUnfoldedEvents())
    }
  }
}
