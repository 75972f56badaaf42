import Chronicle
import ChronicleTestSupport
import Foundation
import Testing

/// Commands that only look at a database leave its file as it was, byte for
/// byte: a health check or a support script must not change what it inspects.
@Suite("read-only commands")
struct ReadOnlyCommandsTests {
  func chronicle(_ arguments: String...) throws -> (status: Int32, output: String, errors: String) {
    try ChildProcess.run("chronicle", arguments)
  }

  /// The bytes of the database file and of its WAL (empty when absent):
  /// what a reader could see.
  func fingerprint(_ path: String) -> [Data] {
    [path, path + "-wal"].map { FileManager.default.contents(atPath: $0) ?? Data() }
  }

  @Test func inspectingADatabaseChangesNoByteOfIt() async throws {
    try await offThePool { try inspectWithoutWriting() }
  }

  func inspectWithoutWriting() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("app.sqlite")
    let created = try chronicle("sql", path, """
      CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL) STRICT;
      INSERT INTO items VALUES (1, 'one'), (2, 'two');
      UPDATE items SET name = 'deux' WHERE id = 2
      """)
    #expect(created.status == 0, "\(created.errors)")
    #expect(try chronicle("group", path, "--create").status == 0)

    let before = fingerprint(path)
    let copy = directory.path("copy.sqlite")
    let commands: [[String]] = [
      ["peers", path], ["parked", path], ["refused", path], ["identity", path], ["group", path], ["members", path],
      ["log", path], ["verify", path], ["blame", path, "items", "2"], ["step", path],
      ["diff", path, path], ["replay", path, "--into", copy],
    ]
    for command in commands {
      let result = try ChildProcess.run("chronicle", command)
      #expect(result.status == 0, "\(command.joined(separator: " ")): \(result.errors)")
      #expect(fingerprint(path) == before, "`chronicle \(command.joined(separator: " "))` changed the file")
    }
  }
}
