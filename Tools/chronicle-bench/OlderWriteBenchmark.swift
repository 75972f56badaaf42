// The first merge of a write older than part or all of the local history,
// into a peer that never merged (its history not folded into merge state):
// it folds only the own events that changed the rows it writes, found
// through the index capture keeps of each event's rows, where it used to
// fold the whole history first. Both are timed in the same run: the merge
// as it runs now, and a full fold (what a merge did before) followed by the
// same merge on a copy of the peer.
import Chronicle
import Foundation
import Synchronization

/// A wall clock that moves only when told, one millisecond per write.
private final class SteppedClock: Sendable {
  private let milliseconds = Mutex<UInt64>(1_790_000_000_000)

  func advance() { milliseconds.withLock { $0 += 1 } }
  func reader(behind: UInt64 = 0) -> @Sendable () -> UInt64 { { [self] in milliseconds.withLock { $0 } - behind } }
}

/// `histories`: the local history's lengths, in events of one item each;
/// the received write is `behind` milliseconds (events) older than the
/// last, or older than all of them (nil). It writes ten items the peer
/// wrote first and ten new ones.
func runOlderWriteBenchmark(histories: [Int], behind: Int?, folder: URL) async throws {
  let age = behind.map { "the last \($0)" } ?? "all"
  print("\nfirst merge of a write older than \(age) local events, into a peer whose history of N events was never folded")
  print("history      merge now (folds the events of its rows)      full fold, then the merge (before)   ratio")
  for events in histories {
    let behind = behind ?? events + 10
    let clock = SteppedClock()
    var configuration = ChronicleConfiguration()
    configuration.wallClock = clock.reader()
    // Two peers with the same history: one merges as now, one folds all first.
    let peers = try (0..<2).map { index in
      try Chronicle.open(path: folder.appendingPathComponent("older-\(index)-\(UUID()).sqlite").path, configuration: configuration)
    }
    for peer in peers {
      try await peer.write { db in
        try db.execute(sql: listsAndItemsSchema)
        for list in 1...100 { try db.execute(sql: "INSERT INTO lists VALUES (?, ?)", arguments: [list, "List \(list)"]) }
      }
    }
    for id in 1...events {
      clock.advance()
      for peer in peers {
        try await peer.write { db in
          try db.execute(sql: "INSERT INTO items VALUES (?, ?, ?, 0)", arguments: [id, id % 100 + 1, "Item \(id)"])
        }
      }
    }
    // Elsewhere, `behind` ms earlier: ten items the peer wrote first, ten
    // new ones, in lists it also made.
    var elsewhereConfiguration = ChronicleConfiguration()
    elsewhereConfiguration.wallClock = clock.reader(behind: UInt64(behind))
    let elsewhere = try Chronicle.open(
      path: folder.appendingPathComponent("older-elsewhere-\(UUID()).sqlite").path, configuration: elsewhereConfiguration)
    try await elsewhere.write { db in
      try db.execute(sql: listsAndItemsSchema)
      for list in 1...100 { try db.execute(sql: "INSERT INTO lists VALUES (?, ?)", arguments: [list, "List \(list)"]) }
      for id in Array(1...10) + Array((events + 1)...(events + 10)) {
        try db.execute(sql: "INSERT INTO items VALUES (?, ?, ?, 0)", arguments: [id, id % 100 + 1, "Item \(id)"])
      }
    }
    let now = try await measureAsync { _ = try await MemoryTransport(peer: elsewhere).fetch(into: peers[0]) }
    let before = try await measureAsync {
      try peers[1].prepareMergeState()
      _ = try await MemoryTransport(peer: elsewhere).fetch(into: peers[1])
    }
    guard try peers[0].digests() == peers[1].digests() else { throw BenchmarkFailure("older write: the two peers differ") }
    print(
      String(events).padding(toLength: 13, withPad: " ", startingAt: 0)
        + String(format: "%.1f ms", now * 1000).padding(toLength: 46, withPad: " ", startingAt: 0)
        + String(format: "%.1f ms", before * 1000).padding(toLength: 37, withPad: " ", startingAt: 0)
        + String(format: "%.1fx", before / now))
  }
}
