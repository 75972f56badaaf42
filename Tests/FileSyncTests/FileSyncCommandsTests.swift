import Foundation
import Testing

import ChronicleTestSupport

/// The `filesync` tool as a user runs it: real processes, a real port.
/// Synchronous, like the other tool tests: waiting blocks this thread only.
@Suite("filesync: the command-line tool")
struct FileSyncCommandsTests {
  func filesync(_ arguments: String...) throws -> (status: Int32, output: String, errors: String) {
    try ChildProcess.run("filesync", arguments)
  }

  @Test func initScanServeSyncStatusHistoryRestore() throws {
    let directory = try TemporaryDirectory()
    let a = directory.path("a"), b = directory.path("b"), key = directory.path("group.key")
    #expect(try filesync("keygen", key).status == 0)
    #expect(try filesync("init", a, "--name", "alice").output.contains("initialized"))
    #expect(try filesync("init", b, "--name", "bob").status == 0)
    try FileManager.default.createDirectory(atPath: a + "/sub", withIntermediateDirectories: true)
    try Data("hi".utf8).write(to: URL(fileURLWithPath: a + "/hello.txt"))
    try Data(randomBytes(1_500_000, seed: 3)).write(to: URL(fileURLWithPath: a + "/sub/data.bin"))
    let scan = try filesync("scan", a)
    #expect(scan.status == 0 && scan.output.contains("added    hello.txt") && scan.output.contains("scan: 2 added"))

    let server = try ChildProcess("filesync", ["serve", a, "--port", "0", "--key", key, "--interval", "0.2"])
    let listening = try server.waitForLine(containing: "listening on")
    let port = try #require(listening.split(separator: ":").last.map(String.init))
    let first = try filesync("sync", b, "--peer", "127.0.0.1:\(port)", "--key", key)
    #expect(first.status == 0, "\(first.errors)")
    #expect(first.output.contains("wrote    hello.txt") && first.output.contains("wrote    sub/data.bin"))
    #expect(try tree(URL(fileURLWithPath: b)) == tree(URL(fileURLWithPath: a)))

    // Bob edits; the serving peer writes it at its next round.
    usleep(10_000)
    try Data("hi from bob".utf8).write(to: URL(fileURLWithPath: b + "/hello.txt"))
    #expect(try filesync("sync", b, "--peer", "127.0.0.1:\(port)", "--key", key).output.contains("edited   hello.txt"))
    _ = try server.waitForLine(containing: "wrote    hello.txt", timeout: .seconds(20))
    #expect(try String(contentsOfFile: a + "/hello.txt", encoding: .utf8) == "hi from bob")

    let status = try filesync("status", a)
    #expect(status.output.contains("2 files") && status.output.contains("peer 'alice'"))
    let history = try filesync("history", a + "/hello.txt")
    let lines = history.output.split(separator: "\n")
    #expect(lines.count == 2 && lines[0].contains("alice") && lines[0].contains("added") && lines[1].contains("bob") && lines[1].contains("<- current"))

    let firstTime = String(lines[0].prefix(24))
    let restore = try filesync("restore", a + "/hello.txt", "--at", firstTime)
    #expect(restore.status == 0 && restore.output.contains("restored hello.txt"), "\(restore.errors)")
    #expect(try String(contentsOfFile: a + "/hello.txt", encoding: .utf8) == "hi")
    #expect(try filesync("sync", b, "--peer", "127.0.0.1:\(port)", "--key", key).output.contains("wrote    hello.txt"))
    #expect(try String(contentsOfFile: b + "/hello.txt", encoding: .utf8) == "hi")
    #expect(server.stop(with: SIGINT) == 0)

    // Errors name the problem and the fix, with exit status 2.
    let noKey = try filesync("sync", b, "--peer", "127.0.0.1:\(port)")
    #expect(noKey.status == 2 && noKey.errors.contains("--key FILE is required"))
    let both = try filesync("sync", b, "--peer", "127.0.0.1:\(port)", "--folder", directory.path("shared"))
    #expect(both.status == 2 && both.errors.contains("exactly one of --peer"))
    let notSynced = try filesync("scan", directory.path("elsewhere"))
    #expect(notSynced.status == 2 && notSynced.errors.contains("filesync init"))
    let badTime = try filesync("restore", a + "/hello.txt", "--at", "yesterday")
    #expect(badTime.status == 2 && badTime.errors.contains("cannot read the time"))
    let again = try filesync("init", a)
    #expect(again.status == 2 && again.errors.contains("already"))
  }

  @Test func aCorruptIndexFileInTheSharedFolderIsNamedAndExitsOneWhileTheRestSyncs() throws {
    let directory = try TemporaryDirectory()
    let a = directory.path("a"), b = directory.path("b"), c = directory.path("c"), shared = directory.path("shared")
    for (folder, name) in [(a, "alice"), (b, "bob"), (c, "carol")] { #expect(try filesync("init", folder, "--name", name).status == 0) }
    try Data("from alice".utf8).write(to: URL(fileURLWithPath: a + "/alice.txt"))
    try Data("from carol".utf8).write(to: URL(fileURLWithPath: c + "/carol.txt"))
    #expect(try filesync("sync", a, "--folder", shared).status == 0)
    #expect(try filesync("sync", c, "--folder", shared).status == 0)
    // One byte of Alice's index segment flips (a bad disk, a bad copy).
    let status = try filesync("status", a).output
    let alice = try #require(status.split(separator: "(").dropFirst().first?.split(separator: ")").first.map(String.init))
    let folder = URL(fileURLWithPath: shared + "/events/" + alice)
    let segment = try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".chrb") }.map { folder.appendingPathComponent($0) }
    let damaged = try #require(segment)
    var bytes = [UInt8](try Data(contentsOf: damaged))
    bytes[bytes.count / 2] ^= 0x40
    try Data(bytes).write(to: damaged)

    let sync = try filesync("sync", b, "--folder", shared)
    #expect(sync.status == 1, "\(sync.output) \(sync.errors)")
    #expect(sync.errors.contains("rejected") && sync.errors.contains(damaged.lastPathComponent) && sync.errors.contains("checksum"), "\(sync.errors)")
    // Carol's file arrived all the same.
    #expect(try String(contentsOfFile: b + "/carol.txt", encoding: .utf8) == "from carol")
  }
}
