import ChronicleTestSupport
import Foundation
import Testing

@testable import Chronicle

/// Merge state lives in two tables: `chronicle_integer_rows` for keys that
/// are one integer from 0 through 2^40 − 1, `chronicle_rows` for the rest.
/// Whatever reads it in key order (the read-ahead, the largest key, every
/// state of a table) must see one table, in the order of the encoded keys.
@Suite("Merge state: integer keys by row id, other keys by encoded key")
struct MergeStoreLayoutTests {
  /// Keys on both sides of every edge of the integer layout, in one table.
  static let edgeKeys: [[SQLiteValue]] = [
    [.null], [.integer(Int64.min)], [.integer(-300)], [.integer(-1)], [.integer(0)], [.integer(1)], [.integer(255)], [.integer(256)],
    [.integer(65_535)], [.integer((1 << 40) - 1)], [.integer(1 << 40)], [.integer(Int64.max)], [.integer(7), .text("a")],
    [.integer(0), .integer(0)], [.real(2.5)], [.text("")], [.text("k")], [.blob(Data([1, 2]))],
  ]

  @Test(arguments: [20261126, 3, 99])
  func readsInKeyOrderAcrossBothTables(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let directory = try TemporaryDirectory()
    let queue = try DatabaseQueue(path: directory.path("states.sqlite"))
    try queue.write { db in
      try InternalSchema.migrate(db)
      let store = MergeStore(db: db)
      // The edges, and random keys: small integers mostly, some of every other kind.
      var keys = Set(try Self.edgeKeys.map { try MergeStateKey.encode($0) })
      for _ in 0..<300 {
        let value: [SQLiteValue] = switch Int.random(in: 0..<6, using: &random) {
        case 0: [.integer(Int64.random(in: Int64.min...Int64.max, using: &random))]
        case 1: [.text(String(Int.random(in: 0..<1000, using: &random)))]
        case 2: [.integer(Int64.random(in: 0..<(1 << 40), using: &random)), .integer(Int64.random(in: 0..<9, using: &random))]
        default: [.integer(Int64.random(in: 0..<5_000, using: &random))]
        }
        keys.insert(try MergeStateKey.encode(value))
      }
      for key in keys {
        var state = RowMergeState()
        state.isComplete = true
        state.parkedReason = Int.random(in: 0..<5, using: &random) == 0 ? .incomplete : nil
        if state.parkedReason != nil { state.retained = ["v": .integer(Int64(key.count))] }
        try store.save(table: "t", key: key, state)
        try store.save(table: "other", key: key, RowMergeState())
      }
      let sorted = keys.sorted(by: MergeStore.keyPrecedes)
      let integerCount = try Int.fetchOne(db, sql: "SELECT count(*) FROM chronicle_integer_rows") ?? 0
      #expect(integerCount == 2 * keys.filter { MergeStateKey.smallInteger($0) != nil }.count, "seed \(seed)")
      #expect(integerCount > 100 && integerCount < 2 * keys.count, "seed \(seed): both tables hold states")

      // From any key (stored or not), any number of them.
      let probes = sorted + (try Self.edgeKeys.map { try MergeStateKey.encode($0 + [.integer(1)]) }) + [Data(), Data([0x22]), Data([0x27])]
      for from in probes {
        for limit in [1, 2, 5, 64, 1000] {
          var read: [Data] = []
          try store.readStates(table: "t", from: from, limit: limit) { read.append($0.key) }
          let expected = Array(sorted.filter { !MergeStore.keyPrecedes($0, from) }.prefix(limit))
          #expect(read == expected, "seed \(seed): from \(Array(from)), \(limit) states: \(read.map { Array($0) }) instead of \(expected.map { Array($0) })")
        }
      }
      #expect(try store.largestKey(table: "t") == sorted.last)
      #expect(try store.largestKey(table: "none") == nil)

      var all: [Data] = []
      try store.forEachState(tables: "T") { all.append($0.key) }
      #expect(all == sorted, "seed \(seed): every state of a table, in key order")
      #expect(try store.allStates().map(\.table) == Array(repeating: "t", count: keys.count) + Array(repeating: "other", count: keys.count))
      let parked = try store.parked()
      #expect(parked.map(\.key) == parked.map(\.key).sorted(by: MergeStore.keyPrecedes) && parked.allSatisfy { $0.table == "t" })
      #expect(try store.parkedCount() == parked.count && !parked.isEmpty)
      for named in parked { #expect(try store.load(table: "t", key: named.key)?.retained == ["v": .integer(Int64(named.key.count))]) }

      // Renamed, the states keep their keys and bytes under the new name.
      let before = try store.allStates().filter { $0.table == "t" }
      try store.renameTable(from: "t", to: "renamed")
      #expect(try store.allStates().filter { $0.table == "renamed" }.map(\.key) == before.map(\.key))
      #expect(try store.allStates().filter { $0.table == "renamed" }.map(\.state) == before.map(\.state))

      for key in sorted { try store.delete(table: "renamed", key: key) }
      #expect(try store.allStates().count == keys.count, "seed \(seed): the other table's states stay")
    }
  }

  @Test func theFirstSmallIntegerNotBeforeAKeyIsTheLeastThatSortsAtOrAfterIt() throws {
    var random = SeededGenerator(seed: 20261126)
    var probes = try Self.edgeKeys.map { try MergeStateKey.encode($0) }
    for _ in 0..<500 {
      let integer = Int64.random(in: -70_000..<70_000, using: &random)
      probes.append(try MergeStateKey.encode([.integer(integer)] + (Bool.random(using: &random) ? [.text("x")] : [])))
      probes.append(MergeStateKey.encode(integer))
    }
    // Small integers' keys sort as the integers do: the answer is found by
    // bisection over all of them, with the key comparison as the oracle.
    for probe in probes {
      var (low, high) = (Int64(0), MergeStateKey.smallIntegerLimit)
      while low < high {
        let middle = low + (high - low) / 2
        if MergeStore.keyPrecedes(MergeStateKey.encode(middle), probe) { low = middle + 1 } else { high = middle }
      }
      let expected = low < MergeStateKey.smallIntegerLimit ? low : nil
      #expect(MergeStateKey.firstSmallInteger(notBefore: probe) == expected, "key \(Array(probe))")
      #expect(MergeStateKey.smallInteger(probe).map(MergeStateKey.encode) ?? probe == probe)
    }
    #expect(MergeStateKey.firstSmallInteger(notBefore: MergeStateKey.encode((1 << 40) - 1)) == (1 << 40) - 1)
    #expect(MergeStateKey.firstSmallInteger(notBefore: MergeStateKey.encode(1 << 40)) == nil)
    #expect(MergeStateKey.smallInteger(MergeStateKey.encode(1 << 40)) == nil)
    #expect(MergeStateKey.smallInteger(MergeStateKey.encode(-1)) == nil)
  }
}
