import ChronicleTestSupport
import Foundation
import Testing

@testable import Chronicle

/// Merge, replay and rebuild are three paths from one history to the tables.
/// A random history written on three peers (conflicting edits, deletes with
/// cascades, resurrections, syncs midway) is merged into a fresh peer in
/// random pieces, replayed from its log (and a writer's) into new files, and
/// rebuilt in place (and a writer too, whose own writes the rebuild applies
/// as recorded): all must give the same table digests and parked rows, and
/// each rebuild must give back the merge state the peer had, row by row.
@Suite("Projection: merge, replay and rebuild agree")
struct ProjectionPathsTests {
  @Test(arguments: [UInt64(0x5EED_0301), 0x5EED_0302, 0x5EED_0303, 0x5EED_0304, 0x5EED_0305, 0x5EED_0306])
  func mergeReplayAndRebuildGiveTheSameTables(seed: UInt64) async throws {
    try await offThePool { try run(seed: seed) }
  }

  func run(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let writers = try (0..<3).map { index in
      try openSyncPeer(directory, name: "writer\(index).sqlite", clock: clock, skew: Int64.random(in: -3...3, using: &random))
    }
    for _ in 0..<Int.random(in: 200...300, using: &random) {
      clock.advance(by: UInt64.random(in: 0...2, using: &random))
      let writer = writers.randomElement(using: &random)!
      if Int.random(in: 0..<5, using: &random) == 0 {
        let other = writers.randomElement(using: &random)!
        if other !== writer { try push(writer, to: other) }
        continue
      }
      try ConvergenceTests().randomWrite(writer, &random)
    }
    for _ in 0..<2 {
      for source in writers {
        for target in writers where target !== source { try push(source, to: target) }
      }
    }
    let reference = try writers[0].digests()

    // Merge: a fresh peer takes the history from each writer in turn, in
    // random order, some of it through a batch of one or two rows.
    let fresh = try openSyncPeer(
      directory, name: "fresh.sqlite", clock: clock,
      mergeBatchRows: Bool.random(using: &random) ? Int.random(in: 1...2, using: &random) : MergeBatch.defaultCapacity)
    for writer in writers.shuffled(using: &random) { try push(writer, to: fresh) }
    let merged = try fresh.digests()
    #expect(merged == reference, "seed \(seed): the merge into a fresh peer differs from the writers")
    let parked = try fresh.parkedRows().count
    #expect(parked == (try writers[0].parkedRows().count), "seed \(seed): the fresh peer parks other rows than the writers")

    // Replay: the fresh peer's log, and a writer's, into new files.
    for (name, source) in [("fresh", fresh), ("writer", writers[0])] {
      let path = directory.path("replay-\(name).sqlite")
      let report = try source.replay(into: path)
      #expect(report.digests == merged, "seed \(seed): the replay of the \(name) peer's log differs from the merge")
      #expect(try Chronicle.open(path: path).parkedRows().count == parked, "seed \(seed): the replay of the \(name) peer parks other rows")
    }

    // Rebuild in place: the fresh peer's history (all received) and a
    // writer's (its own writes applied as recorded, the others merged).
    #expect(try fresh.log.count() > 40, "seed \(seed): the history is too small to tell the paths apart")
    for (name, peer) in [("fresh", fresh), ("writer", writers[0])] {
      // Local writes reach the merge state lazily (at the next merge); a
      // rebuild folds them all: bring the live state up to date first.
      try peer.prepareMergeState()
      let states = try peer.read { db in try MergeStore(db: db).allStates() }
      #expect(states.count > 3, "seed \(seed): the history is too small to tell the paths apart")
      // Damage the fresh peer's merge state behind its back (one row's
      // versions gone): the rebuild must give it back, not keep what it finds.
      if name == "fresh" {
        try plainConnection(peer.path).write { db in
          try db.execute(sql: "UPDATE chronicle_integer_rows SET clocks = X'01' WHERE table_and_key = (SELECT min(table_and_key) FROM chronicle_integer_rows)")
          if db.changesCount == 0 {
            try db.execute(sql: "UPDATE chronicle_rows SET clocks = X'01' WHERE (table_number, row_key) = (SELECT table_number, row_key FROM chronicle_rows LIMIT 1)")
          }
        }
      }
      let report = try peer.rebuild()
      #expect(report.differences == nil, "seed \(seed): the rebuild of the \(name) peer found its tables different: \(String(describing: report.differences))")
      #expect(try peer.digests() == merged, "seed \(seed): rebuilding the \(name) peer changed its tables")
      #expect(try peer.parkedRows().count == parked, "seed \(seed): rebuilding the \(name) peer changed its parked rows")
      let rebuiltStates = try peer.read { db in try MergeStore(db: db).allStates() }
      #expect(rebuiltStates.count == states.count, "seed \(seed): the rebuilt \(name) peer holds merge state for \(rebuiltStates.count) rows, not \(states.count)")
      for (before, after) in zip(states, rebuiltStates) where before != after {
        Issue.record("seed \(seed): the \(name) peer's merge state of \(before.table) row \(Array(before.key)) differs: before \(before.state), rebuilt \(after.state)")
        break
      }
    }
  }
}
