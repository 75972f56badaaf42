import Chronicle
import ChronicleTestSupport
import Foundation
import Testing

/// Writes made with another tool, as a careless user makes them: refused
/// while the guard triggers stand; once someone removes those, the peer stops
/// sending until the writes are adopted (or discarded), and then every peer
/// gets them. Before, sync exited 0 and the peers stayed different.
@Suite("chronicle adopt: writes made outside Chronicle")
struct UntrackedWritesCommandsTests {
  func chronicle(_ arguments: String...) throws -> (status: Int32, output: String, errors: String) {
    try ChildProcess.run("chronicle", arguments)
  }

  /// The file as another tool opens it (no Chronicle functions).
  func otherTool(_ path: String) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.busyMode = .timeout(10)
    return try DatabaseQueue(path: path, configuration: configuration)
  }

  func hexRows(_ path: String) throws -> [String] {
    try otherTool(path).read { db in try String.fetchAll(db, sql: "SELECT id || ':' || hex(title) || ':' || count FROM items ORDER BY id") }
  }

  @Test func writesOutsideChronicleAreRefusedOrHeldBackUntilAdoptedThenEveryPeerGetsThem() throws {
    let directory = try TemporaryDirectory()
    let a = directory.path("a.db"), b = directory.path("b.db"), shared = directory.path("shared")
    let schema = "CREATE TABLE items (id INTEGER PRIMARY KEY, title TEXT NOT NULL, count INTEGER NOT NULL DEFAULT 0) STRICT"
    for path in [a, b] { #expect(try chronicle("sql", path, schema).status == 0) }
    #expect(try chronicle("sql", a, "INSERT INTO items (id, title) VALUES (1, 'one'), (2, 'two'), (3, 'three')").status == 0)
    for path in [a, b] { #expect(try chronicle("sync", path, "--folder", shared).status == 0) }

    // With the guards in place another tool cannot write at all, and says how to.
    #expect(throws: (any Error).self) { try otherTool(a).write { db in try db.execute(sql: "UPDATE items SET count = 9") } }

    // Someone drops them and writes anyway: an insert, an update, a delete.
    try otherTool(a).write { db in
      for name in try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'chronicle_guard_%'") {
        try db.execute(sql: "DROP TRIGGER \"\(name)\"")
      }
      try db.execute(sql: "INSERT INTO items (id, title) VALUES (4, 'four'); UPDATE items SET count = 7 WHERE id = 2; DELETE FROM items WHERE id = 3")
    }
    let sync = try chronicle("sync", a, "--folder", shared)
    #expect(sync.status == 1, "\(sync.output) \(sync.errors)")
    #expect(sync.errors.contains("chronicle adopt") && sync.errors.contains("\"items\""), "\(sync.errors)")

    let adopt = try chronicle("adopt", a)
    #expect(adopt.status == 0, "\(adopt.errors)")
    #expect(adopt.output.contains("adopted as event") && adopt.output.contains("3 row changes"), "\(adopt.output)")
    #expect(try hexRows(a) == ["1:6F6E65:0", "2:74776F:7", "4:666F7572:0"])
    #expect(try chronicle("verify", a).status == 0)
    for path in [a, b] { #expect(try chronicle("sync", path, "--folder", shared).status == 0) }
    #expect(try hexRows(b) == hexRows(a))
    #expect(try chronicle("verify", b).status == 0)
    // A later Chronicle update of the adopted row reaches the other peer too.
    #expect(try chronicle("sql", a, "UPDATE items SET title = 'FOUR' WHERE id = 4").status == 0)
    for path in [a, b] { #expect(try chronicle("sync", path, "--folder", shared).status == 0) }
    #expect(try hexRows(b) == hexRows(a))
    // And the guards are back: another tool is refused again.
    #expect(throws: (any Error).self) { try otherTool(a).write { db in try db.execute(sql: "DELETE FROM items") } }
  }

  /// Issue 59, items 9 to 11: a row inserted around Chronicle (its guards
  /// dropped), then updated through Chronicle. `blame` says the log does not
  /// explain the row (exit 1); `serve` refuses to send as `sync` does; and
  /// `adopt` records the row, after which the peer sends again and every
  /// check passes.
  @Test func aRowWrittenAroundChronicleThenUpdatedThroughItIsAdopted() async throws {
    try await offThePool { try rowWrittenAroundThenUpdated() }
  }

  func rowWrittenAroundThenUpdated() throws {
    let directory = try TemporaryDirectory()
    let a = directory.path("a.db"), b = directory.path("b.db"), key = directory.path("group.key")
    #expect(try chronicle("keygen", key).status == 0)
    let schema = "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL) STRICT"
    for path in [a, b] { #expect(try chronicle("sql", path, schema).status == 0) }
    #expect(try chronicle("sql", a, "INSERT INTO t VALUES (1, 'one')").status == 0)
    try otherTool(a).write { db in
      for name in try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'chronicle_guard_%'") {
        try db.execute(sql: "DROP TRIGGER \"\(name)\"")
      }
      try db.execute(sql: "INSERT INTO t VALUES (10, 'outside')")
    }
    #expect(try chronicle("sql", a, "UPDATE t SET v = 'through chronicle' WHERE id = 10").status == 0)

    let blamed = try chronicle("blame", a, "t", "10")
    #expect(blamed.status == 1 && blamed.output.contains("NOT IN THE LOG"), "\(blamed.output) \(blamed.errors)")
    #expect(try chronicle("blame", a, "t", "1").status == 0)

    // serve refuses to send what sync refuses.
    let server = try ChildProcess("chronicle", ["serve", a, "--port", "0", "--key", key])
    let line = try server.waitForLine(containing: "listening on")
    let port = try #require(line.split(separator: ":").last.flatMap { Int($0) })
    let pulled = try chronicle("sync", b, "--peer", "127.0.0.1:\(port)", "--key", key)
    _ = server.stop(with: SIGINT)
    #expect(pulled.status != 0 && pulled.errors.contains("chronicle adopt"), "\(pulled.output) \(pulled.errors)")
    #expect(try chronicle("sql", b, "SELECT count(*) FROM t").output.contains("0"))

    let adopt = try chronicle("adopt", a)
    #expect(adopt.status == 0, "\(adopt.output) \(adopt.errors)")
    #expect(try chronicle("verify", a).status == 0)
    #expect(try chronicle("blame", a, "t", "10").status == 0)
    let shared = directory.path("shared")
    for path in [a, b, a] { #expect(try chronicle("sync", path, "--folder", shared).status == 0) }
    #expect(try otherTool(b).read { db in try String.fetchAll(db, sql: "SELECT v FROM t ORDER BY id") } == ["one", "through chronicle"])
    #expect(try chronicle("verify", b).status == 0)
  }
}
