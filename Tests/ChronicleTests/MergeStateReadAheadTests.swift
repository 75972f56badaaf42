import ChronicleTestSupport
import Foundation
import Testing

@testable import Chronicle

/// The read-ahead a merge loads stored merge state through must find what a
/// lookup of each row finds, however the keys asked for jump about: in
/// order, backwards, inside what it read, past it, and in another table.
@Suite("Merge state: reading ahead")
struct MergeStateReadAheadTests {
  @Test(arguments: [UInt64(1), 2, 3, 4])
  func findsWhatALookupOfEachRowFinds(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    let queue = try DatabaseQueue(path: directory.path("states.sqlite"))
    try queue.write { db in
      try InternalSchema.migrate(db)
      var random = SeededGenerator(seed: seed)
      let store = MergeStore(db: db)
      let peer = PeerID.generate()
      // Every third key of 1...600 in two tables has a state; one in ten is parked with values.
      for table in ["a", "b"] {
        for id in stride(from: Int64(1), through: 600, by: 3) {
          var state = RowMergeState()
          _ = state.mergeWrite([("id", .integer(id))], version: WriteVersion(timestamp: HLCTimestamp(rawValue: UInt64(id) << 16), origin: peer), isInsert: true)
          if id % 10 == 1 {
            state.retained = ["id": .integer(id), "title": .text("\(table)\(id)")]
            state.parkedReason = .parent
          }
          try store.save(table: table, key: try MergeStore.encodeKey([.integer(id)]), state)
        }
      }
      var readAhead = MergeStateReadAhead()
      var asked: [String] = []
      var id = Int64.random(in: 1...600, using: &random)
      for _ in 0..<2_000 {
        // Mostly walks forward one key at a time, as a sync's history does; sometimes jumps.
        switch Int.random(in: 0..<10, using: &random) {
        case 0: id = Int64.random(in: 0...620, using: &random)
        case 1: id -= Int64.random(in: 1...5, using: &random)
        default: id += 1
        }
        let table = Int.random(in: 0..<20, using: &random) == 0 ? "b" : "a"
        asked.append("\(table)\(id)")
        let key = try MergeStore.encodeKey([.integer(id)])
        let found = try readAhead.state(table: table, key: key, in: store).map { try store.decode($0, table: table) }
        let expected = try store.load(table: table, key: key)
        #expect(found == expected, "seed \(seed): \(table) \(id) after \(asked.suffix(8))")
        if found != expected { return }
      }
    }
  }
}
