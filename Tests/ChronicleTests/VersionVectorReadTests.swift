import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

/// The version vector is read from a checkpoint that merges and sealing
/// save, then by walking each origin's sequences up to the first gap. Events
/// arriving out of order, local writes, sealing and rollbacks must leave it
/// what the log holds: for each origin, the longest run of sequences from 1
/// with no gap (checked against the log's events, one by one).
@Suite("Sync: version vectors read from checkpoints")
struct VersionVectorReadTests {
  @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6])
  func theVectorIsTheLongestRunWithoutAGap(seed: UInt64) async throws {
    try await offThePool { try runScenario(seed: 0x7EC7_0000 &+ seed) }
  }

  func runScenario(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let sources = try (0..<3).map { try openSyncPeer(directory, name: "source\($0).sqlite", clock: clock) }
    // Each source's events, in sequence order.
    var pending: [[[UInt8]]] = []
    for source in sources {
      for list in 1...Int.random(in: 4...12, using: &random) {
        clock.advance(by: 1)
        try source.write { db in
          try db.execute(sql: "INSERT INTO lists (id, name) VALUES (?, ?)", arguments: [list, "\(source.peerID.shortDescription) \(list)"])
        }
      }
      pending.append(try source.serializedEvents(beyond: VersionVector()))
    }
    // The first source's last event inserts a list the target refuses.
    clock.advance(by: 1)
    try sources[0].write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (99, 'poison')") }
    pending[0] = try sources[0].serializedEvents(beyond: VersionVector())
    let poisoned = pending[0].count - 1
    let target = try openSyncPeer(directory, name: "target.sqlite", clock: clock)
    try target.write { db in
      try db.execute(sql: "CREATE TRIGGER refusePoison BEFORE INSERT ON lists WHEN NEW.name = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned'); END")
    }
    for step in 0..<30 {
      switch Int.random(in: 0..<3, using: &random) {
      case 0:
        // A local write: the target's own sequence moves on.
        clock.advance(by: 1)
        try target.write { db in
          try db.execute(sql: "INSERT OR REPLACE INTO lists (id, name) VALUES (?, ?)", arguments: [100 + step, "local \(step)"])
        }
      case 1:
        // Sealing saves a checkpoint, as every transport's send does.
        _ = try target.serializedEvents(beyond: VersionVector())
      default:
        // Some events of one source, in any order, leaving gaps. The
        // poisoned list's event is refused alone (open: not counted as
        // held), and the rest of its batch merges.
        let index = Int.random(in: 0..<sources.count, using: &random)
        let chosen = pending[index].indices.filter { _ in Int.random(in: 0..<3, using: &random) == 0 }.shuffled(using: &random)
        guard !chosen.isEmpty else { continue }
        if index == 0, chosen.contains(poisoned) {
          let report = try target.applyRemote(serializedEvents: chosen.map { pending[index][$0] }, source: "test")
          #expect(report.refused.map(\.sequence) == [UInt64(poisoned + 1)], "seed \(seed): \(report.refused)")
        } else {
          _ = try target.applyRemote(serializedEvents: chosen.map { pending[index][$0] }, source: "test")
        }
      }
      let expected = try longestRuns(target)
      #expect(try target.versionVector() == expected, "seed \(seed), step \(step): the vector read differs from the log's")
    }
  }

  /// For each origin, the longest run of sequences from 1 the log holds.
  func longestRuns(_ database: ChronicleDatabase) throws -> VersionVector {
    var held: [PeerID: Set<UInt64>] = [:]
    for stored in try database.log.events() { held[stored.event.origin, default: []].insert(stored.event.sequence) }
    var vector = VersionVector()
    for (origin, sequences) in held {
      var last: UInt64 = 0
      while sequences.contains(last + 1) { last += 1 }
      vector[origin] = last
    }
    return vector
  }
}
