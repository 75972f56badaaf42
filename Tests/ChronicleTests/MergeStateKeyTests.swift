import ChronicleTestSupport
import Foundation
import Testing

@testable import Chronicle

/// Merge-state keys (`chronicle_rows.row_key`) sort as their values do, read
/// back exactly, and keys stored by older versions are upgraded on open.
@Suite("Merge state: keys in key order")
struct MergeStateKeyTests {
  @Test func keysSortByteByByteAsTheirValues() throws {
    var random = SeededGenerator(seed: 20261125)
    let integers = (0..<500).map { _ in Int64.random(in: Int64.min...Int64.max, using: &random) } + [0, -1, 1, .min, .max]
    let reals = (0..<500).map { _ in Double.random(in: -1e12...1e12, using: &random) } + [0, -0.5, 1e-300, -1e-300, .infinity, -.infinity]
    let sortedIntegers = Set(integers).sorted()
    for (a, b) in zip(sortedIntegers, sortedIntegers.dropFirst()) {
      #expect(MergeStore.keyPrecedes(try MergeStateKey.encode([.integer(a)]), try MergeStateKey.encode([.integer(b)])), "seed 20261125: \(a) < \(b)")
    }
    let sortedReals = Set(reals).sorted()
    for (a, b) in zip(sortedReals, sortedReals.dropFirst()) {
      #expect(MergeStore.keyPrecedes(try MergeStateKey.encode([.real(a)]), try MergeStateKey.encode([.real(b)])), "seed 20261125: \(a) < \(b)")
    }
    #expect(MergeStore.keyPrecedes(try MergeStateKey.encode([.integer(255)]), try MergeStateKey.encode([.integer(256)])))
  }

  @Test func keysReadBackExactly() throws {
    let keys: [[SQLiteValue]] = [
      [.integer(-5), .text("a\u{0}b")], [.null], [.real(-2.5), .blob(Data([0, 255, 7]))], [.text(""), .integer(Int64.min)],
      [.real(-0.0)], [.blob(Data())],
    ]
    for key in keys {
      let decoded = try MergeStateKey.decode(try MergeStateKey.encode(key))
      #expect(decoded.count == key.count)
      for (found, expected) in zip(decoded, key) {
        switch (found, expected) {
        case (.real(let a), .real(let b)): #expect(a.bitPattern == b.bitPattern)
        default: #expect(found == expected)
        }
      }
    }
  }

  /// A file from before internal schema version 4 (keys as event values)
  /// is upgraded on open, and merges go on from its merge state.
  @Test func keysStoredByOlderVersionsAreUpgradedOnOpen() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let alice = try openSyncPeer(directory, name: "alice.sqlite", clock: clock)
    var bob: ChronicleDatabase? = try openSyncPeer(directory, name: "bob.sqlite", clock: clock)
    try alice.write { db in
      try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home'), (-300, 'Work'), (70000, 'Garden')")
    }
    clock.advance(by: 10)
    try push(alice, to: bob!)
    try bob!.write { db in try db.execute(sql: "DELETE FROM lists WHERE id = 70000") }  // a retained row
    // Store the keys as the older versions did, and mark the file version 3.
    try bob!.writer.writeWithoutTransaction { db in
      try db.inTransaction {
        for row in try Row.fetchAll(db, sql: "SELECT table_name, row_key FROM chronicle_rows") {
          var writer = BinaryWriter()
          for value in try MergeStateKey.decode(row[1] as Data) { try EventCodec.writeValue(value, to: &writer) }
          try db.execute(
            sql: "UPDATE chronicle_rows SET row_key = ? WHERE table_name = ? AND row_key = ?",
            arguments: [Data(writer.bytes), row[0] as String, row[1] as Data])
        }
        try db.execute(sql: "UPDATE chronicle_meta SET value = 3 WHERE key = 'schema_version'")
        return .commit
      }
    }
    let legacy = try bob!.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM chronicle_rows WHERE substr(row_key, 1, 1) < X'10'") }
    #expect(legacy == 3)
    bob = nil

    let reopened = try Chronicle.open(path: directory.path("bob.sqlite"))
    let (upgraded, version) = try reopened.read { db in
      (try Int.fetchOne(db, sql: "SELECT count(*) FROM chronicle_rows WHERE substr(row_key, 1, 1) < X'10'"),
       try Int.fetchOne(db, sql: "SELECT value FROM chronicle_meta WHERE key = 'schema_version'"))
    }
    #expect(upgraded == 0 && version == 4)
    // Alice renames every list after Bob's delete: the two live lists take the
    // new names, and the deleted one comes back whole (its retained values).
    clock.advance(by: 10)
    try alice.write { db in try db.execute(sql: "UPDATE lists SET name = name || '!'") }
    try push(alice, to: reopened)
    let lists = try reopened.read { db in try Row.fetchAll(db, sql: "SELECT id, name FROM lists ORDER BY id") }
    #expect(lists.map { "\($0[0] as Int64) \($0[1] as String)" } == ["-300 Work!", "1 Home!", "70000 Garden!"])
    #expect(try reopened.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM chronicle_rows") } == 3)
  }
}
