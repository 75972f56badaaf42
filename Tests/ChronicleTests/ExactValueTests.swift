import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

/// Values travel byte for byte: TEXT holding NUL bytes, empty strings, -0.0,
/// infinities, Int64 bounds and large BLOBs reach every peer, every replay and
/// every tool exactly as they were written (checked with SQLite's own `hex()`).
@Suite("Values: byte for byte through capture, merge, replay and tools")
struct ExactValueTests {
  static let schema = """
    CREATE TABLE s (id ANY PRIMARY KEY, t TEXT, a ANY) STRICT;
    """

  func openPeer(_ directory: TemporaryDirectory, _ name: String, clock: ManualWallClock) throws -> ChronicleDatabase {
    var configuration = ChronicleConfiguration()
    configuration.wallClock = clock.reader(skew: 0)
    let database = try Chronicle.open(path: directory.path(name), configuration: configuration)
    try database.write { db in try db.execute(sql: Self.schema) }
    return database
  }

  /// Every row of `s` as SQLite itself spells it: hex and storage class of each value.
  func hexRows(_ database: ChronicleDatabase) throws -> [String] {
    try database.read { db in
      try String.fetchAll(db, sql: """
        SELECT typeof(id) || ':' || hex(id) || ' ' || typeof(t) || ':' || hex(t) || ' ' || typeof(a) || ':' || hex(a)
        FROM s ORDER BY hex(id)
        """)
    }
  }

  @Test func textWithNULReachesPeersAndReplaysWhole() async throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let a = try openPeer(directory, "a.sqlite", clock: clock)
    let b = try openPeer(directory, "b.sqlite", clock: clock)
    let c = try openPeer(directory, "c.sqlite", clock: clock)
    try await a.write { db in
      try db.execute(sql: """
        INSERT INTO s VALUES (1, 'a' || char(0) || 'b', char(0));
        INSERT INTO s VALUES ('key', 'plain', 1);
        INSERT INTO s VALUES ('key' || char(0) || 'x', 'second key', 2);
        """)
    }
    clock.advance(by: 5)
    // An update through the merge path too (not only inserts).
    try await a.write { db in try db.execute(sql: "UPDATE s SET a = 'x' || char(0) || char(0) WHERE id = 'key'") }
    let expected = try hexRows(a)
    #expect(expected == [
      "integer:31 text:610062 text:00",
      "text:6B6579 text:706C61696E text:780000",
      "text:6B65790078 text:7365636F6E64206B6579 integer:32",
    ])

    // In memory, and through a shared folder.
    try push(a, to: b)
    #expect(try hexRows(b) == expected)
    let folder = directory.url.appendingPathComponent("shared")
    try await SyncEngine(for: a, transport: .directory(folder)).sendChanges()
    let report = try await SyncEngine(for: c, transport: .directory(folder)).fetchChanges()
    #expect(report.rejected.isEmpty)
    #expect(try hexRows(c) == expected)

    // Digests and replay see every byte.
    #expect(try a.digests() == b.digests())
    #expect(try a.replayMatchesLive(directory))
    #expect(try b.replayMatchesLive(directory))

    // A later merge into the NUL row keeps the bytes after the NUL.
    clock.advance(by: 5)
    try await b.write { db in try db.execute(sql: "UPDATE s SET a = 7 WHERE id = 1") }
    try push(b, to: a)
    #expect(try hexRows(a).first == "integer:31 text:610062 integer:37")
  }

  @Test func toolsShowTheColumnsThatDifferOnlyAfterANUL() throws {
    let directory = try TemporaryDirectory()
    for (name, text) in [("x", "'a' || char(0) || 'b'"), ("y", "'a'")] {
      try DatabaseQueue(path: directory.path("\(name).sqlite")).write { db in
        try db.execute(sql: Self.schema)
        try db.execute(sql: "INSERT INTO s VALUES (1, \(text), NULL)")
      }
    }
    let diff = try DatabaseDiff.compare(directory.path("x.sqlite"), directory.path("y.sqlite"))
    let table = try #require(diff.tables.first)
    #expect(table.changed == [TableDiff.ChangedRow(
      key: [NamedValue(column: "id", value: .integer(1))],
      changes: [ColumnChange(column: "t", before: .text("a\0b"), after: .text("a"))])])
    #expect(SQLiteValue.text("a\0b").description == "'a' || char(0) || 'b'")
    #expect(SQLiteValue.text("\0'\0").description == "char(0) || '''' || char(0)")

    let clock = ManualWallClock()
    let database = try openPeer(directory, "blame.sqlite", clock: clock)
    try database.write { db in try db.execute(sql: "INSERT INTO s VALUES (1, 'a' || char(0) || 'b', NULL)") }
    let blame = try database.blame(table: "s", key: ["1"], column: "t")
    #expect(blame.columns.map(\.value) == [.text("a\0b")])
    #expect(blame.columns.allSatisfy { $0.matchesLog })
    let digests = try ["x", "y"].map { name in
      try DatabaseQueue(path: directory.path("\(name).sqlite")).read { db in try TableDigest.compute(db, table: "s") }
    }
    #expect(digests[0].hash != digests[1].hash)
  }

  @Test func textThatIsNotUTF8IsRefusedAtCommitNamingTheColumn() throws {
    let directory = try TemporaryDirectory()
    let database = try openPeer(directory, "a.sqlite", clock: ManualWallClock())
    let before = try database.eventCount()
    #expect(throws: ChronicleError.textNotUTF8(table: "s", column: "t")) {
      try database.write { db in
        try db.execute(sql: "INSERT INTO s VALUES (1, 'fine', 1)")
        try db.execute(sql: "INSERT INTO s VALUES (2, CAST(X'41FF42' AS TEXT), 2)")
      }
    }
    #expect(try database.eventCount() == before)
    #expect(try hexRows(database).isEmpty)
    // Valid multi-byte text around ASCII runs longer than a word goes through.
    try database.write { db in try db.execute(sql: "INSERT INTO s VALUES (3, 'abcdefghijklmnopé€😀xyz', 'ü')") }
    #expect(try database.replayMatchesLive(directory))
  }

  /// Random odd values written on three peers, synced in random pairs, then
  /// fully: every peer holds the same bytes, and every replay matches.
  @Test(arguments: [UInt64(1), 2, 3, 4])
  func oddValuesConvergeByteForByte(seed: UInt64) async throws {
    try await offThePool {
      var random = SeededGenerator(seed: 0x0DDBA11 &+ seed)
      let directory = try TemporaryDirectory()
      let clock = ManualWallClock()
      let peers = try (0..<3).map { try openPeer(directory, "p\($0).sqlite", clock: clock) }
      func oddValue() -> String {
        switch Int.random(in: 0..<14, using: &random) {
        case 0: return "''"
        case 1: return "char(0)"
        case 2: return "'a' || char(0) || 'b' || char(0)"
        case 3: return "char(0) || 'lead'"
        case 4: return "\(Int64.max)"
        case 5: return "\(Int64.min)"
        case 6: return "-0.0"
        case 7: return "1e999"
        case 8: return "-1e999"
        case 9: return "NULL"
        case 10: return "zeroblob(\(Int.random(in: 0...300_000, using: &random)))"
        case 11: return "randomblob(\(Int.random(in: 1...70_000, using: &random)))"
        case 12: return "X''"
        default: return "'é' || char(0) || '😀'"
        }
      }
      let keys = ["1", "-1", "'k'", "'k' || char(0)", "'k' || char(0) || 'x'", "X'00'", "X''", "''", "char(0)", "\(Int64.min)"]
      for step in 0..<60 {
        clock.advance(by: UInt64.random(in: 0...2, using: &random))
        let peer = peers.randomElement(using: &random)!
        if step % 5 == 4 {
          let other = peers.randomElement(using: &random)!
          if other !== peer { try push(peer, to: other) }
          continue
        }
        let key = keys.randomElement(using: &random)!
        let text = Bool.random(using: &random) ? "'t' || char(0) || '\(step)'" : "NULL"
        switch Int.random(in: 0..<4, using: &random) {
        case 0: try peer.write { db in try db.execute(sql: "DELETE FROM s WHERE id = \(key)") }
        case 1: try peer.write { db in try db.execute(sql: "UPDATE s SET a = \(oddValue()) WHERE id = \(key)") }
        default:
          try peer.write { db in
            try db.execute(sql: "INSERT INTO s VALUES (\(key), \(text), \(oddValue())) ON CONFLICT (id) DO UPDATE SET t = excluded.t, a = excluded.a")
          }
        }
      }
      for _ in 0..<2 {
        for source in peers { for target in peers where target !== source { try push(source, to: target) } }
      }
      let reference = try hexRows(peers[0])
      for (index, peer) in peers.enumerated() {
        #expect(try hexRows(peer) == reference, "seed \(seed): peer \(index) differs from peer 0")
        #expect(try peer.replayMatchesLive(directory), "seed \(seed): peer \(index)'s replay differs")
      }
    }
  }
}
