import Chronicle
import Foundation
import Testing

@testable import FileSync

@Suite("filesync: peers through a shared folder")
struct FolderSyncTests {
  @Test func additionsEditsRenamesAndDeletionsReachTheOtherPeers() async throws {
    let fixture = try FolderFixture()
    let alice = try fixture.peer("alice"), bob = try fixture.peer("bob"), carol = try fixture.peer("carol")
    try write("hello", at: "notes.txt", in: alice)
    try write("plan", at: "docs/plan.md", in: alice)
    try write(randomBytes(2_500_000, seed: 1), at: "media/photo.raw", in: alice)
    try write("", at: "empty", in: alice)
    let first = try await alice.sync(through: fixture.shared)
    #expect(first.scan.added.sorted() == ["docs/plan.md", "empty", "media/photo.raw", "notes.txt"])
    #expect(first.sentChunks.stored == 5)  // 3 chunks of the photo, 2 of the small files (the empty file has none)

    for peer in [bob, carol] { _ = try await peer.sync(through: fixture.shared) }
    #expect(try tree(bob.root) == tree(alice.root))
    #expect(try tree(carol.root) == tree(alice.root))

    // Bob edits, renames and deletes; Carol adds.
    tick()
    try write("hello, world", at: "notes.txt", in: bob)
    try move("media/photo.raw", to: "archive/photo.raw", in: bob)
    try remove("docs/plan.md", in: bob)
    try write("carol's", at: "docs/carol.txt", in: carol)
    let bobs = try await bob.sync(through: fixture.shared)
    #expect(bobs.scan.edited == ["notes.txt"])
    #expect(bobs.scan.renamed.map { [$0.from, $0.to] } == [["media/photo.raw", "archive/photo.raw"]])
    #expect(bobs.scan.deleted == ["docs/plan.md"])
    #expect(bobs.sentChunks.stored == 1)  // a rename moves no content
    _ = try await carol.sync(through: fixture.shared)
    _ = try await alice.sync(through: fixture.shared)
    _ = try await bob.sync(through: fixture.shared)

    let expected = try tree(alice.root)
    #expect(expected["archive/photo.raw"] != nil && expected["media/photo.raw"] == nil && expected["docs/plan.md"] == nil)
    #expect(expected["docs/carol.txt"] != nil)
    #expect(try read("notes.txt", in: alice) == "hello, world")
    #expect(try tree(bob.root) == expected)
    #expect(try tree(carol.root) == expected)
    // Folders emptied by the rename and deletion are gone too.
    #expect(!FileManager.default.fileExists(atPath: alice.root.appendingPathComponent("media").path))
    for peer in [alice, bob, carol] {
      let status = try peer.status()
      #expect(status.waitingForContent.isEmpty && status.changedSinceScan.isEmpty && status.conflicts.isEmpty)
    }
  }

  @Test func concurrentEditsKeepTheLosingVersionAsAConflictCopyOnEveryPeer() async throws {
    let fixture = try FolderFixture()
    let alice = try fixture.peer("alice"), bob = try fixture.peer("bob")
    try write("v1", at: "report.txt", in: alice)
    _ = try await alice.sync(through: fixture.shared)
    _ = try await bob.sync(through: fixture.shared)

    tick()
    try write("alice's v2", at: "report.txt", in: alice)
    try alice.scan()
    tick()
    try write("bob's v2", at: "report.txt", in: bob)
    try bob.scan()  // later: bob wins
    _ = try await alice.sync(through: fixture.shared)
    let bobs = try await bob.sync(through: fixture.shared)
    #expect(bobs.conflicts.map(\.losingPeer) == ["alice"])
    _ = try await alice.sync(through: fixture.shared)

    #expect(try read("report.txt", in: alice) == "bob's v2")
    let copyPath = try #require(bobs.conflicts.first?.copyPath)
    #expect(copyPath.hasPrefix("report (conflict from alice at ") && copyPath.hasSuffix(").txt"))
    #expect(try read(copyPath, in: alice) == "alice's v2")
    #expect(try read(copyPath, in: bob) == "alice's v2")
    #expect(try tree(alice.root) == tree(bob.root))
    #expect(try tree(alice.root).count == 2)

    // Detected on both peers, recorded once: one conflict, one copy version.
    try alice.resolveConflicts()
    _ = try await alice.sync(through: fixture.shared)
    _ = try await bob.sync(through: fixture.shared)
    #expect(try alice.status().conflicts.count == 1)
    let digests = (try alice.database.digests(), try bob.database.digests())
    #expect(digests.0 == digests.1)
  }

  @Test func aDeletionRacingAnEditLosesNothing() async throws {
    let fixture = try FolderFixture()
    let alice = try fixture.peer("alice"), bob = try fixture.peer("bob")
    try write("draft", at: "a.txt", in: alice)
    try write("same", at: "b.txt", in: alice)
    _ = try await alice.sync(through: fixture.shared)
    _ = try await bob.sync(through: fixture.shared)

    // Bob edits a.txt, then Alice deletes it later: the deletion wins, the edit is kept.
    tick()
    try write("bob's edit", at: "a.txt", in: bob)
    try bob.scan()
    tick()
    try remove("a.txt", in: alice)
    try alice.scan()
    // Both write the same new content to b.txt: no conflict copy for identical contents.
    try write("same again", at: "b.txt", in: alice)
    try write("same again", at: "b.txt", in: bob)
    _ = try await bob.sync(through: fixture.shared)
    _ = try await alice.sync(through: fixture.shared)
    _ = try await bob.sync(through: fixture.shared)

    let files = try tree(alice.root)
    #expect(files.keys.sorted().count == 2)
    #expect(files["a.txt"] == nil)
    let copy = try #require(files.keys.first { $0.hasPrefix("a (conflict from bob at ") })
    #expect(try read(copy, in: alice) == "bob's edit")
    #expect(try read("b.txt", in: alice) == "same again")
    #expect(try tree(bob.root) == files)
  }

  @Test func aFileChangedAfterTheScanIsNeverOverwritten() async throws {
    let fixture = try FolderFixture()
    let alice = try fixture.peer("alice"), bob = try fixture.peer("bob")
    try write("one", at: "f.txt", in: alice)
    _ = try await alice.sync(through: fixture.shared)
    _ = try await bob.sync(through: fixture.shared)
    tick()
    try write("alice two", at: "f.txt", in: alice)
    _ = try await alice.sync(through: fixture.shared)

    // Bob fetches without scanning first, while his copy was edited: it is kept.
    try write("bob's unsaved work", at: "f.txt", in: bob)
    _ = try await DirectoryTransport(folder: fixture.shared.appendingPathComponent("events")).fetch(into: bob.database)
    _ = try FileBlobStore(folder: fixture.shared.appendingPathComponent("chunks")).copy(try bob.chunksOfCurrentContents(), to: bob.objects)
    let report = try bob.materialize()
    #expect(report.changedLocally == ["f.txt"])
    #expect(try read("f.txt", in: bob) == "bob's unsaved work")
    // The next sync records it; it is newer, so it wins and Alice's becomes a conflict copy.
    _ = try await bob.sync(through: fixture.shared)
    _ = try await alice.sync(through: fixture.shared)
    #expect(try read("f.txt", in: alice) == "bob's unsaved work")
    #expect(try tree(alice.root).count == 2)
    #expect(try tree(alice.root) == tree(bob.root))
  }
}
