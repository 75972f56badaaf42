import Chronicle
import ChronicleNetwork
import Foundation
import Testing

@testable import FileSync

@Suite("filesync: hostile paths from a peer")
struct HostilePathTests {
  @Test func pathsLeadingOutOfTheFolderAreRefusedAndNothingIsWrittenThere() async throws {
    let fixture = try FolderFixture()
    let evil = try fixture.peer("evil"), victim = try fixture.peer("victim")
    let outside = fixture.directory.url.appendingPathComponent("outside")
    try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
    // The victim has a link out of its folder, and a file where a folder would go.
    try FileManager.default.createSymbolicLink(at: victim.root.appendingPathComponent("link"), withDestinationURL: outside)
    try write("mine", at: "plain", in: victim)
    _ = try await victim.sync(through: fixture.shared)

    // The evil peer writes versions with hostile paths straight into its index.
    try write("payload", at: "payload.txt", in: evil)
    try evil.scan()
    let hostile = [
      "../escaped.txt", "/tmp/filesync-absolute.txt", "docs/../../escaped.txt", "./dot.txt", "a//b.txt", "trailing/",
      ".filesync/index.sqlite", "link/through-link.txt", "plain/under-a-file.txt", "back\\slash.txt",
      // NUL: in the middle, and making a name that only differs from another after it.
      "nul\u{0}inside.txt", "payload.txt\u{0}.exe",
    ]
    let payload = try #require(try await evil.database.read { db in try evil.currentVersions(db) }["payload.txt"])
    try await evil.database.write { db in
      let versions = hostile.map { path in
        evil.newVersion(path: path, change: .added, contentHash: payload.contentHash, size: payload.size, modifiedAt: payload.modifiedAt, base: nil)
      }
      try evil.record(versions, contents: [], db)
    }
    _ = try await evil.sync(through: fixture.shared)

    let report = try await victim.sync(through: fixture.shared)
    #expect(report.materialized.written == ["payload.txt"])
    #expect(Set(report.materialized.refused.map(\.path)) == Set(hostile))
    for refusal in report.materialized.refused { #expect(!refusal.reason.isEmpty) }
    // Nothing escaped, nothing in the state folder was replaced, the link's target is untouched.
    #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
    #expect(!FileManager.default.fileExists(atPath: fixture.directory.url.appendingPathComponent("escaped.txt").path))
    #expect(!FileManager.default.fileExists(atPath: "/tmp/filesync-absolute.txt"))
    #expect(try read("plain", in: victim) == "mine")
    #expect(try tree(victim.root) == ["payload.txt": try tree(evil.root)["payload.txt"]!, "plain": try tree(victim.root)["plain"]!, "link": "symlink"])
    _ = try SyncedFolder.open(at: victim.root)  // its index is intact
    // The refusals are visible, and the next sync does not write them either.
    #expect(Set(try victim.status().refused.map(\.path)) == Set(hostile))
    let again = try await victim.sync(through: fixture.shared)
    #expect(Set(again.materialized.refused.map(\.path)) == Set(hostile))
    #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
  }

  @Test func namesWithNULFromAPeerOverTCPAreRefusedAndTheRestIsWritten() async throws {
    let fixture = try FolderFixture()
    let evil = try fixture.peer("evil"), victim = try fixture.peer("victim")
    try write("payload", at: "payload.txt", in: evil)
    try evil.scan()
    let payload = try #require(try await evil.database.read { db in try evil.currentVersions(db) }["payload.txt"])
    let hostile = ["nul\u{0}inside.txt", "payload.txt\u{0}.exe"]
    try await evil.database.write { db in
      let versions = hostile.map { path in
        evil.newVersion(path: path, change: .added, contentHash: payload.contentHash, size: payload.size, modifiedAt: payload.modifiedAt, base: nil)
      }
      try evil.record(versions, contents: [], db)
    }
    var configuration = NetworkSyncConfiguration(key: .generate())
    configuration.handshakeTimeout = .seconds(60)
    for round in 1...2 {
      let report = try await serving(evil, configuration: configuration) { transport in try await victim.sync(with: transport) }
      #expect(report.materialized.written == (round == 1 ? ["payload.txt"] : []), "round \(round)")
      #expect(Set(report.materialized.refused.map(\.path)) == Set(hostile), "round \(round)")
      #expect(report.materialized.refused.allSatisfy { $0.reason.contains("NUL") })
    }
    #expect(try tree(victim.root).keys.sorted() == ["payload.txt"])
  }

  @Test func aChunkListThatDoesNotGiveItsContentIsRefusedAndTheRestGoesOn() async throws {
    let fixture = try FolderFixture()
    let evil = try fixture.peer("evil"), victim = try fixture.peer("victim")
    try write("honest", at: "honest.txt", in: evil)
    try write("payload", at: "payload.txt", in: evil)
    try evil.scan()
    let payload = try #require(try await evil.database.read { db in try evil.currentVersions(db) }["payload.txt"])
    let claimed = BlobHash(of: Array("what the name promises".utf8)).hex
    try await evil.database.write { db in
      let chunks = try #require(try ContentRecord.find(payload.contentHash!).fetchOne(db)).chunks
      let forged = evil.newVersion(path: "forged.txt", change: .added, contentHash: claimed, size: 22, modifiedAt: 0, base: nil)
      try evil.record([forged], contents: [ContentRecord(hash: claimed, size: 22, chunks: chunks)], db)
    }
    _ = try await evil.sync(through: fixture.shared)
    let report = try await victim.sync(through: fixture.shared)
    #expect(report.materialized.written.sorted() == ["honest.txt", "payload.txt"])
    #expect(report.materialized.refused.map(\.path) == ["forged.txt"])
    #expect(report.materialized.refused.first?.reason.contains("does not match its hash") == true)
    #expect(!FileManager.default.fileExists(atPath: victim.root.appendingPathComponent("forged.txt").path))
    #expect(try FileManager.default.contentsOfDirectory(atPath: victim.temporaryFolder.path).isEmpty)
  }

  @Test func namesThatAreNotUTF8AreReportedAsSkippedNotDroppedSilently() throws {
    let fixture = try FolderFixture()
    let alice = try fixture.peer("alice")
    try write("fine", at: "fine.txt", in: alice)
    // Latin-1 "café.txt", and a folder named in Latin-1 with a file inside.
    let root = alice.root.path
    let file = open(root + "/caf" + String(decoding: [0xC3, 0xA9], as: UTF8.self) + ".txt", O_CREAT | O_WRONLY, 0o644)
    close(file)
    func path(_ bytes: [UInt8]) -> [CChar] { (Array(root.utf8) + [0x2F] + bytes + [0]).map { CChar(bitPattern: $0) } }
    close(open(path(Array("caf".utf8) + [0xE9] + Array(".txt".utf8)), O_CREAT | O_WRONLY, 0o644))
    #expect(mkdir(path([0x64, 0xE9, 0x6A, 0xE0]), 0o755) == 0)
    close(open(path([0x64, 0xE9, 0x6A, 0xE0, 0x2F, 0x69, 0x6E, 0x73, 0x69, 0x64, 0x65]), O_CREAT | O_WRONLY, 0o644))

    let report = try alice.scan()
    #expect(report.added.sorted() == ["café.txt", "fine.txt"])
    #expect(report.skipped.map(\.path).sorted() == ["caf\\xE9.txt", "d\\xE9j\\xE0"], "\(report.skipped)")
    #expect(report.skipped.allSatisfy { $0.reason.contains("not valid UTF-8") })
  }

  @Test func theScanSkipsLinksAndSpecialFilesAndNeverFollowsThem() throws {
    let fixture = try FolderFixture()
    let alice = try fixture.peer("alice")
    let outside = fixture.directory.url.appendingPathComponent("outside")
    try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
    try Data("outside".utf8).write(to: outside.appendingPathComponent("secret.txt"))
    try FileManager.default.createSymbolicLink(at: alice.root.appendingPathComponent("out"), withDestinationURL: outside)
    try FileManager.default.createSymbolicLink(
      at: alice.root.appendingPathComponent("file-link"), withDestinationURL: outside.appendingPathComponent("secret.txt"))
    #expect(mkfifo(alice.root.appendingPathComponent("pipe").path, 0o644) == 0)
    try write("inside", at: "in.txt", in: alice)
    let report = try alice.scan()
    #expect(report.added == ["in.txt"])
    #expect(Set(report.skipped.map(\.path)) == ["out", "file-link", "pipe"])
  }

  @Test func everyRuleOfThePathCheck() {
    for good in ["a", "a/b/c.txt", "name with spaces", ".hidden", "dir/.filesync", "ünïcødé/ファイル"] {
      #expect(throws: Never.self) { try FolderPath.validate(good) }
    }
    for bad in ["", "/abs", "..", "../x", "a/../b", ".", "a/./b", "a//b", "a/", ".filesync", ".filesync/x", "a\\b", "x\u{0}y",
      String(repeating: "a", count: 256), String(repeating: "a/", count: 2049) + "a"]
    {
      #expect(throws: FileSyncError.self, "\(bad.prefix(20))") { try FolderPath.validate(bad) }
    }
  }
}
