import Chronicle
import Foundation
import Testing

@testable import FileSync

@Suite("filesync: history and restore")
struct HistoryRestoreTests {
  @Test func historyShowsWhoChangedAFileAndRestoreBringsBackAnOlderVersion() async throws {
    let fixture = try FolderFixture()
    let alice = try fixture.peer("alice"), bob = try fixture.peer("bob")
    try write("first", at: "essay.txt", in: alice)
    _ = try await alice.sync(through: fixture.shared)
    _ = try await bob.sync(through: fixture.shared)
    tick()
    try write("second, by bob", at: "essay.txt", in: bob)
    _ = try await bob.sync(through: fixture.shared)
    _ = try await alice.sync(through: fixture.shared)
    tick()
    try move("essay.txt", to: "final.txt", in: alice)
    _ = try await alice.sync(through: fixture.shared)

    let history = try alice.history(of: "essay.txt")
    #expect(history.map(\.version.change) == [.added, .edited, .deleted])
    #expect(history.map(\.version.peerName) == ["alice", "bob", "alice"])
    #expect(history.last?.movedTo == "final.txt")
    #expect(history.allSatisfy { !$0.isCurrent || $0.version.change == .deleted })
    #expect(try alice.history(of: "final.txt").map(\.version.detail) == ["essay.txt"])
    #expect(throws: FileSyncError.unknownPath("never.txt")) { try alice.history(of: "never.txt") }

    // Restore the path as it was before bob's edit: a new version, synced like an edit.
    let firstTime = history[0].version.recordedAt
    let restored = try alice.restore("essay.txt", at: firstTime)
    #expect(restored.change == .restored && restored.detail == history[0].version.id.uuidString.lowercased())
    #expect(try read("essay.txt", in: alice) == "first")
    _ = try await alice.sync(through: fixture.shared)
    _ = try await bob.sync(through: fixture.shared)
    #expect(try read("essay.txt", in: bob) == "first")
    #expect(try tree(bob.root) == tree(alice.root))
    #expect(try bob.history(of: "essay.txt").last?.version.change == .restored)
    #expect(throws: FileSyncError.self) { try alice.restore("essay.txt", at: firstTime - 60_000) }
  }

  @Test func restoringContentThatIsNoLongerStoredSaysSo() throws {
    let fixture = try FolderFixture()
    let alice = try fixture.peer("alice")
    try write("old", at: "x.txt", in: alice)
    try alice.scan()
    let old = try #require(try alice.history(of: "x.txt").first)
    tick()
    try write("new", at: "x.txt", in: alice)
    try alice.scan()
    for chunk in try alice.objects.allHashes() where try alice.objects.read(chunk) == Array("old".utf8) { try alice.objects.remove(chunk) }
    #expect(try alice.history(of: "x.txt").first?.isRestorable == false)
    #expect(throws: FileSyncError.contentNotStored(path: "x.txt", version: old.version.id.uuidString.lowercased())) {
      try alice.restore("x.txt", at: old.version.recordedAt)
    }
    #expect(try read("x.txt", in: alice) == "new")
  }
}
