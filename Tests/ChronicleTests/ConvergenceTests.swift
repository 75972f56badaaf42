import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

/// Randomized multi-peer convergence: random writes on 3 to 5 peers (conflicting
/// keys, concurrent edits, deletes with cascades, resurrections), random
/// pairwise syncs with duplicates and partitions, then a full exchange: every
/// peer must hold the same events and the same per-table digests, and its
/// log replayed (and, in one scenario of five, rebuilt in place) must give them too.
///
/// `CHRONICLE_CONVERGENCE_SCENARIOS=N` runs N scenarios instead of the
/// default; a failure names its seed, 0xC0FFEE + the scenario's number.
@Suite("Sync: randomized convergence")
struct ConvergenceTests {
  static let scenarioCount = ProcessInfo.processInfo.environment["CHRONICLE_CONVERGENCE_SCENARIOS"].flatMap(Int.init) ?? 500
  /// `CHRONICLE_CONVERGENCE_SCENARIO=N` runs scenario N alone (seed 0xC0FFEE + N).
  static let onlyScenario = ProcessInfo.processInfo.environment["CHRONICLE_CONVERGENCE_SCENARIO"].flatMap(UInt64.init)
  static let batches: [Range<UInt64>] =
    onlyScenario.map { [$0..<($0 + 1)] }
    ?? stride(from: 0, to: UInt64(scenarioCount), by: 50).map { $0..<min($0 + 50, UInt64(scenarioCount)) }

  @Test(arguments: batches)
  func peersConverge(seeds: Range<UInt64>) async throws {
    // The scenarios are synchronous and CPU-heavy (every push signs and
    // checks signatures): they run off the cooperative pool, so the tests
    // that await (network sessions, timeouts) keep its threads.
    try await offThePool {
      for seed in seeds { try runScenario(seed: 0xC0FFEE &+ seed) }
    }
  }

  func runScenario(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let peerCount = Int.random(in: 3...5, using: &random)
    let peers = try (0..<peerCount).map { index in
      // Some peers hold only a row or two of a merge in memory, so that
      // their batches are written midway and merged on from what they wrote.
      // Every other peer folds its short history by the rows it receives;
      // every third merges a bundle two events at a time.
      try openSyncPeer(
        directory, name: "peer\(index).sqlite", clock: clock, skew: Int64.random(in: -3...3, using: &random),
        mergeBatchRows: Bool.random(using: &random) ? Int.random(in: 1...2, using: &random) : MergeBatch.defaultCapacity,
        rowFoldMinimumEvents: index.isMultiple(of: 2) ? 1 : TouchedRowFold.minimumEvents,
        bundleBatchEvents: index % 3 == 1 ? 2 : ChronicleConfiguration().bundleBatchEvents)
    }
    for _ in 0..<Int.random(in: 20...60, using: &random) {
      clock.advance(by: UInt64.random(in: 0...2, using: &random))
      let peer = peers.randomElement(using: &random)!
      if Int.random(in: 0..<4, using: &random) == 0 {
        // A sync between two peers, one way or both, sometimes twice (duplicates).
        let other = peers.randomElement(using: &random)!
        guard other !== peer else { continue }
        try push(peer, to: other)
        if Bool.random(using: &random) { try push(other, to: peer) }
        if Int.random(in: 0..<5, using: &random) == 0 { try push(peer, to: other) }
        // A merge checks only the rows it wrote and the children of tables
        // that lost rows: what it leaves must hold no orphan all the same.
        try expectNoOrphans(peer, "seed \(seed)")
        try expectNoOrphans(other, "seed \(seed)")
        continue
      }
      try randomWrite(peer, &random)
    }
    // Full exchange: two rounds over all ordered pairs.
    for _ in 0..<2 {
      for source in peers {
        for target in peers where target !== source { try push(source, to: target) }
      }
    }
    for peer in peers { try expectNoOrphans(peer, "seed \(seed), after the full exchange") }
    let reference = try peers[0].digests()
    let referenceEvents = try eventIDs(peers[0])
    for (index, peer) in peers.enumerated().dropFirst() {
      let digests = try peer.digests()
      #expect(digests == reference, "seed \(seed): peer \(index) digests \(digests) differ from peer 0 \(reference)")
      #expect(try eventIDs(peer) == referenceEvents, "seed \(seed): peer \(index) holds a different set of events")
      #expect(try peer.parkedRows().count == peers[0].parkedRows().count, "seed \(seed): peer \(index) parks a different number of rows")
    }
    // The log is the truth on every peer: its own writes and what it merged,
    // replayed from nothing, give its tables and its parked rows.
    for (index, peer) in peers.enumerated() {
      let path = directory.path("replay\(index).sqlite")
      let report = try peer.replay(into: path)
      #expect(report.digests == (try peer.digests()), "seed \(seed): the replay of peer \(index)'s log differs from its tables")
      let replayed = try Chronicle.open(path: path)
      #expect(try replayed.parkedRows().count == peer.parkedRows().count, "seed \(seed): the replay of peer \(index) parks other rows")
      #expect(try replayed.log.count() == peer.log.count(), "seed \(seed): opening the replay of peer \(index) logged something")
    }
    // Merge, replay and rebuild are three paths from the same history to the
    // tables: one scenario in five also rebuilds a peer in place (its history
    // replayed into shadow tables and swapped in), which must change nothing.
    if seed % 5 == 0 {
      let peer = peers.randomElement(using: &random)!
      let parked = try peer.parkedRows().count
      let events = try peer.log.count()
      _ = try peer.rebuild()
      #expect(try peer.digests() == reference, "seed \(seed): rebuilding a peer changed its tables")
      #expect(try peer.parkedRows().count == parked, "seed \(seed): rebuilding a peer changed its parked rows")
      #expect(try peer.log.count() == events, "seed \(seed): rebuilding a peer logged something")
    }
  }

  func randomWrite(_ database: ChronicleDatabase, _ random: inout SeededGenerator) throws {
    let list = Int.random(in: 1...4, using: &random)
    let item = Int.random(in: 1...8, using: &random)
    let word = ["a", "b", "c", "d"].randomElement(using: &random)!
    let choice = Int.random(in: 0..<8, using: &random)
    let count = Int.random(in: 0...9, using: &random)
    try database.write { db in
      switch choice {
      case 0:
        try db.execute(sql: "INSERT INTO lists (id, name, weight) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET name = excluded.name",
                       arguments: [list, "list \(word)", Double(list) / 2])
      case 1:
        try db.execute(sql: "UPDATE lists SET name = ? WHERE id = ?", arguments: ["renamed \(word)", list])
      case 2:
        try db.execute(sql: "UPDATE lists SET weight = ? WHERE id = ?", arguments: [Double(count), list])
      case 3:
        try db.execute(sql: "DELETE FROM lists WHERE id = ?", arguments: [list])
      case 4:
        try db.execute(sql: """
          INSERT INTO items (id, listID, title, count) SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM lists WHERE id = ?)
          ON CONFLICT (id) DO UPDATE SET title = excluded.title
          """, arguments: [item, list, "item \(word)", count, list])
      case 5:
        try db.execute(sql: "UPDATE items SET count = ? WHERE id = ?", arguments: [count, item])
      case 6:
        try db.execute(sql: "UPDATE items SET title = ?, count = NULL WHERE id = ?", arguments: ["edited \(word)", item])
      default:
        try db.execute(sql: "DELETE FROM items WHERE id = ?", arguments: [item])
      }
    }
  }
}
