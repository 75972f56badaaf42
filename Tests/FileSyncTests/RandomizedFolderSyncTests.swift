import Chronicle
import Foundation
import Testing

import ChronicleTestSupport

@testable import FileSync

@Suite("filesync: randomized edits on three peers converge")
struct RandomizedFolderSyncTests {
  static let names = ["a.txt", "b.txt", "docs/c.md", "docs/d.md", "deep/e/f.bin", "g"]

  @Test(arguments: [1, 2, 3] as [UInt64])
  func randomEditsConvergeToOneTreeWithNothingLost(seed: UInt64) async throws {
    var random = SeededGenerator(seed: seed)
    let fixture = try FolderFixture()
    let peers = [try fixture.peer("p0"), try fixture.peer("p1"), try fixture.peer("p2")]
    for step in 0..<40 {
      let peer = peers[Int(random.next() % 3)]
      let present = try tree(peer.root).keys.sorted()
      switch random.next() % 6 {
      case 0, 1:  // add or overwrite
        let path = Self.names[Int(random.next() % UInt64(Self.names.count))]
        guard (try? FolderPath.location(of: path, in: peer.root)) != nil else { continue }
        try write("seed \(seed) step \(step) by \(peer.name)", at: path, in: peer)
      case 2:  // delete
        guard let path = present.randomElement(using: &random) else { continue }
        try remove(path, in: peer)
      case 3:  // rename
        guard let path = present.randomElement(using: &random) else { continue }
        let target = "moved/\(step)-" + (path.split(separator: "/").last.map(String.init) ?? "x")
        try move(path, to: target, in: peer)
      default:  // sync
        _ = try await peer.sync(through: fixture.shared)
      }
      tick()
    }
    for _ in 0..<3 {
      for peer in peers {
        _ = try await peer.sync(through: fixture.shared)
      }
    }
    let expected = try tree(peers[0].root)
    for (index, peer) in peers.enumerated() {
      #expect(try tree(peer.root) == expected, "seed \(seed): peer \(index) differs")
      let status = try peer.status()
      #expect(status.waitingForContent.isEmpty && status.changedSinceScan.isEmpty, "seed \(seed)")
    }
    let digests = try peers.map { try $0.database.digests() }
    #expect(digests.allSatisfy { $0 == digests[0] }, "seed \(seed): indexes differ")
    // Nothing lost: a content version that no later version replaced is
    // either its path's current version (on disk, checked above) or a
    // losing concurrent edit kept as a conflict copy.
    let unkept = try await peers[0].database.read { db in
      try #sql(
        """
        SELECT \(FileVersion.columns) FROM \(FileVersion.self)
        WHERE \(FileVersion.columns.contentHash) IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM fileVersions AS successor WHERE successor.base = \(FileVersion.columns.id))
          AND NOT EXISTS (SELECT 1 FROM files WHERE files.versionID = \(FileVersion.columns.id))
          AND NOT EXISTS (SELECT 1 FROM conflicts WHERE conflicts.versionID = \(FileVersion.columns.id))
        """,
        as: FileVersion.self
      ).fetchAll(db)
    }
    #expect(unkept.isEmpty, "seed \(seed): versions neither current, replaced nor kept: \(unkept.map(\.path))")
  }
}
