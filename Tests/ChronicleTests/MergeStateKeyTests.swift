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

  /// A key of one integer is built on the stack; inside a longer key the
  /// same integer is written by the general encoder: both give the same bytes.
  @Test func aSingleIntegerKeyIsEncodedAsInsideALongerKey() throws {
    var random = SeededGenerator(seed: 20261126)
    let integers = (0..<500).map { _ in Int64.random(in: Int64.min...Int64.max, using: &random) >> Int64.random(in: 0...63, using: &random) }
    for integer in integers + [0, -1, 1, 255, 256, -256, -257, .min, .max] {
      let alone = try MergeStateKey.encode([.integer(integer)])
      let inLongerKey = try MergeStateKey.encode([.integer(integer), .null])
      #expect(alone == inLongerKey.dropLast(), "seed 20261126: \(integer)")
      #expect(try MergeStateKey.decode(alone) == [.integer(integer)], "seed 20261126: \(integer)")
    }
  }

  @Test func integersTakeTheBytesTheirMagnitudeNeeds() throws {
    let sizes = try [0, 1, 255, 256, 65_535, -1, -256, -257, .max, .min].map { try MergeStateKey.encode([.integer($0)]).count }
    #expect(sizes == [1, 2, 2, 3, 3, 2, 2, 3, 9, 9])
  }

  /// A file from before internal schema version 5 (names, peer ids and
  /// 8-byte integers spelled out on every row; some keys as event values, as
  /// before version 4) is converted on open, and merges go on from its
  /// merge state.
  @Test func mergeStateStoredByOlderVersionsIsConvertedOnOpen() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let alice = try openSyncPeer(directory, name: "alice.sqlite", clock: clock)
    var bob: ChronicleDatabase? = try openSyncPeer(directory, name: "bob.sqlite", clock: clock)
    try alice.write { db in
      try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'Home'), (-300, 'Work'), (70000, 'Garden'), (5, 'Shed')")
    }
    clock.advance(by: 10)
    try alice.write { db in try db.execute(sql: "DELETE FROM lists WHERE id = 5") }  // a delete's version
    clock.advance(by: 10)
    try push(alice, to: bob!)
    try bob!.write { db in try db.execute(sql: "DELETE FROM lists WHERE id = 70000") }  // a retained row
    let before = try bob!.read { db in try Self.sorted(MergeStore(db: db).allStates()) }
    #expect(before.count == 4 && before.contains { $0.state.deleted != nil })

    // Store the merge state as version 4 did, one key as version 3 did.
    try bob!.writer.writeWithoutTransaction { db in
      try db.inTransaction {
        try db.execute(sql: version7MembershipTables + version4MergeStateTables + "UPDATE chronicle_meta SET value = 4 WHERE key = 'schema_version';")
        for (index, named) in before.enumerated() {
          try db.execute(
            sql: "INSERT INTO chronicle_rows VALUES (?, ?, ?, ?, ?, ?, ?)",
            arguments: [
              named.table, try Self.olderKey(MergeStateKey.decode(named.key), asVersion3: index == 0),
              Self.version4Clocks(named.state), named.state.deleted.map { Int64(bitPattern: $0.timestamp.rawValue) },
              named.state.deleted.map { Data($0.origin.bytes) }, try named.state.retained.map(RowMergeState.encodeValues),
              named.state.parkedReason?.rawValue,
            ])
        }
        return .commit
      }
    }
    bob = nil
    // Read-only (as the tools open a file), the older layout is read as it is.
    let archive = try ChronicleArchive(path: directory.path("bob.sqlite"))
    #expect(try archive.read { db in try Self.sorted(MergeStore(db: db).allStates()) } == before)

    let reopened = try Chronicle.open(path: directory.path("bob.sqlite"))
    let (converted, version, oldTables, integerRows) = try reopened.read { db in
      (try Self.sorted(MergeStore(db: db).allStates()),
       try Int.fetchOne(db, sql: "SELECT value FROM chronicle_meta WHERE key = 'schema_version'"),
       try Int.fetchOne(db, sql: "SELECT count(*) FROM pragma_table_info('chronicle_rows') WHERE name = 'table_name'"),
       try Int64.fetchAll(db, sql: "SELECT table_and_key & 0xFFFFFFFFFF FROM chronicle_integer_rows ORDER BY 1"))
    }
    #expect(converted == before)
    #expect(version == InternalSchema.currentVersion && oldTables == 0)
    // Version 6 keeps the states of keys from 0 to 2^40 - 1 by row id; -300's stays in chronicle_rows.
    #expect(integerRows == [1, 5, 70000])
    // Alice renames every list after Bob's delete: the two live lists take the
    // new names, and the deleted one comes back whole (its retained values).
    clock.advance(by: 10)
    try alice.write { db in try db.execute(sql: "UPDATE lists SET name = name || '!'") }
    try push(alice, to: reopened)
    let lists = try reopened.read { db in try Row.fetchAll(db, sql: "SELECT id, name FROM lists ORDER BY id") }
    #expect(lists.map { "\($0[0] as Int64) \($0[1] as String)" } == ["-300 Work!", "1 Home!", "70000 Garden!"])
  }

  static func sorted(_ states: [NamedMergeState]) -> [NamedMergeState] {
    states.sorted { ($0.table, Array($0.key).description) < ($1.table, Array($1.key).description) }
  }

  /// A key as version 4 stored it (integers in 8 bytes), or as version 3 did (event values).
  static func olderKey(_ values: [SQLiteValue], asVersion3: Bool) throws -> Data {
    var writer = BinaryWriter()
    for value in values {
      switch value {
      case .integer(let integer) where !asVersion3:
        writer.writeByte(0x20)
        writer.writeUInt64BigEndian(UInt64(bitPattern: integer) ^ (1 << 63))
      default:
        #expect(asVersion3, "only integer keys in this test")
        try EventCodec.writeValue(value, to: &writer)
      }
    }
    return Data(writer.bytes)
  }

  /// The `clocks` column as version 4 stored it: flags, versions with their
  /// 16-byte origins, then each column's name and version index.
  static func version4Clocks(_ state: RowMergeState) -> Data {
    var writer = BinaryWriter()
    writer.writeByte(state.isComplete ? 1 : 0)
    let versions = Array(Set(state.clocks.map(\.version))).sorted()
    writer.writeVarint(versions.count)
    for version in versions {
      writer.writeUInt64BigEndian(version.timestamp.rawValue)
      writer.writeBytes(version.origin.bytes)
    }
    writer.writeVarint(state.clocks.count)
    for (column, version) in state.clocks.sortedByColumn() {
      writer.writeString(column)
      writer.writeVarint(versions.firstIndex(of: version)!)
    }
    return Data(writer.bytes)
  }
}
