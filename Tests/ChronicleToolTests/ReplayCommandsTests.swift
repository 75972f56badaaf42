import Chronicle
import ChronicleTestSupport
import Foundation
import Testing

/// The replay tools as a script sees them: output, JSON and exit statuses
/// (0 success, 1 a difference or failed check, 2 usage or input error).
@Suite("chronicle replay, step, diff, blame, verify")
struct ReplayCommandsTests {
  /// Runs the built `chronicle` with `arguments`; returns its exit status and output.
  func chronicle(_ arguments: String...) throws -> (status: Int32, output: String, errors: String) {
    try ChildProcess.run("chronicle", arguments)
  }

  func json(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  @Test func blameTakesNegativeKeysAndSQLSaysWhenATableIsNotTracked() async throws {
    try await offThePool { try negativeKeysAndUntrackedTables() }
  }

  func negativeKeysAndUntrackedTables() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("app.sqlite").path
    let created = try chronicle("sql", path, """
      CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT) STRICT;
      INSERT INTO t VALUES (-9223372036854775808, 'min'), (-5, 'neg');
      CREATE TABLE loose (id INTEGER PRIMARY KEY, v TEXT)
      """)
    #expect(created.status == 0, "\(created.errors)")
    #expect(created.errors.contains("warning: table loose is not tracked") && created.errors.contains("STRICT"), "\(created.errors)")
    #expect(!created.errors.contains("table t "))
    // Said once, when the table is made.
    #expect(!(try chronicle("sql", path, "INSERT INTO loose VALUES (1, 'x')").errors.contains("warning")))

    let minimum = try chronicle("blame", path, "t", "-9223372036854775808", "--json")
    #expect(minimum.status == 0, "\(minimum.errors)")
    #expect((try json(minimum.output)["key"] as? [String: Any])?["id"] as? Int64 == Int64.min)
    let negative = try chronicle("blame", path, "t", "-5", "v")
    #expect(negative.status == 0 && negative.output.contains("'neg'"), "\(negative.errors)")
  }

  @Test func textWithNULIsPrintedWholeInTextAndJSON() async throws {
    try await offThePool { try textWithNUL() }
  }

  func textWithNUL() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let a = directory.appendingPathComponent("a.sqlite").path, b = directory.appendingPathComponent("b.sqlite").path
    for (path, text) in [(a, "'a' || char(0) || 'b'"), (b, "'a'")] {
      let database = try Chronicle.open(path: path)
      try database.write { db in
        try db.execute(sql: "CREATE TABLE s (id INTEGER PRIMARY KEY, t TEXT) STRICT")
        try db.execute(sql: "INSERT INTO s VALUES (1, \(text))")
      }
    }
    let sql = try chronicle("sql", a, "SELECT t, length(CAST(t AS BLOB)) AS bytes FROM s")
    #expect(sql.status == 0, "\(sql.errors)")
    #expect(sql.output == "t|bytes\n'a' || char(0) || 'b'|3\n")

    let diff = try chronicle("diff", a, b)
    #expect(diff.status == 1)
    #expect(diff.output.contains("~ [id=1]  t: 'a' || char(0) || 'b' → 'a'"), "\(diff.output)")
    let diffJSON = try chronicle("diff", a, b, "--json")
    let table = try #require((try json(diffJSON.output)["tables"] as? [[String: Any]])?.first)
    let changed = try #require((table["changed"] as? [[String: Any]])?.first?["changes"] as? [String: Any])
    #expect((changed["t"] as? [String: Any])?["from"] as? String == "a\0b")

    let show = try chronicle("show", a, "1", "--json")
    #expect(show.status == 0, "\(show.errors)")
    #expect(show.output.contains(#""t":"a\u0000b""#), "\(show.output)")
    let operations = try #require(try json(show.output)["operations"] as? [[String: Any]])
    #expect(operations.compactMap { ($0["values"] as? [String: Any])?["t"] as? String } == ["a\0b"])
  }

  @Test func commandsReportAndExitAsDocumented() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("app.sqlite").path
    do {
      let database = try Chronicle.open(path: path)
      try database.write { db in
        try db.execute(sql: "CREATE TABLE lists (id INTEGER PRIMARY KEY, name TEXT NOT NULL) STRICT")
        try db.execute(sql: "INSERT INTO lists VALUES (1, 'Home'), (2, 'Work')")
      }
      try database.write { db in try db.execute(sql: "UPDATE lists SET name = 'Office' WHERE id = 2") }  // event 2
      try database.write { db in try db.execute(sql: "DELETE FROM lists WHERE id = 1") }  // event 3
    }

    // replay: into a new file; never over an existing one.
    let at1 = directory.appendingPathComponent("at1.sqlite").path
    let replay = try chronicle("replay", path, "--into", at1, "--until", "1", "--json")
    #expect(replay.status == 0, "\(replay.errors)")
    #expect(try json(replay.output)["events"] as? Int == 1)
    #expect(try chronicle("replay", path, "--into", at1).status == 2)

    // diff: 1 when the files differ, 0 when not; --at replays two points.
    let diff = try chronicle("diff", at1, path, "--json")
    #expect(diff.status == 1)
    let lists = try #require((try json(diff.output)["tables"] as? [[String: Any]])?.first)
    #expect(lists["removedCount"] as? Int == 1 && lists["changedCount"] as? Int == 1)
    #expect(try chronicle("diff", path, path).status == 0)
    let points = try chronicle("diff", path, "--at", "2", "--at", "3")
    #expect(points.status == 1 && points.output.contains("- id=1 name='Home'"), "\(points.output)")

    // step: one JSON line per event.
    let step = try chronicle("step", path, "--from", "2", "--json")
    #expect(step.status == 0)
    #expect(step.output.split(separator: "\n").count == 2)

    // blame: the update set the name.
    let blame = try chronicle("blame", path, "lists", "2", "name", "--json")
    #expect(blame.status == 0, "\(blame.errors)")
    let column = try #require((try json(blame.output)["columns"] as? [[String: Any]])?.first)
    #expect((column["setBy"] as? [String: Any])?["position"] as? Int == 2)

    // verify: 0 when healthy, 1 once the table changed behind the log.
    #expect(try chronicle("verify", path).status == 0)
    var configuration = Configuration()
    configuration.busyMode = .timeout(10)
    configuration.prepareDatabase { db in db.bypassChronicleGuards() }  // a change behind the log, on purpose
    try DatabaseQueue(path: path, configuration: configuration).write { db in try db.execute(sql: "UPDATE lists SET name = 'Hacked'") }
    let verify = try chronicle("verify", path, "--json")
    #expect(verify.status == 1)
    #expect(try json(verify.output)["valid"] as? Bool == false)

    // rebuild: a dry run finds the damage (1); a rebuild repairs it (0).
    let dryRun = try chronicle("rebuild", path, "--dry-run", "--json")
    #expect(dryRun.status == 1, "\(dryRun.errors)")
    #expect(try json(dryRun.output)["swapped"] as? Bool == false)
    let rebuild = try chronicle("rebuild", path)
    #expect(rebuild.status == 0, "\(rebuild.errors)")
    #expect(rebuild.output.contains("swapped in"))
    #expect(try chronicle("verify", path).status == 0)

    // Usage and input errors: 2, with a message on stderr.
    let missing = try chronicle("verify", directory.appendingPathComponent("missing.sqlite").path)
    #expect(missing.status == 2 && missing.errors.contains("no file at"))
    #expect(try chronicle("blame", path, "lists").status == 2)
    #expect(try chronicle("replay", path, "--into", at1 + "x", "--until", "someday").status == 2)
  }
}
