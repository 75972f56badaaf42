import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

/// A send writes a long history as several segments of bounded size, so that
/// neither the writer nor a reader holds the whole history in memory, and a
/// reader merges it a segment at a time.
@Suite("Shared folder: a long history goes out in bounded segments")
struct SegmentLimitTests {
  @Test func aLongHistoryIsSentInBoundedSegmentsAndFetchedWhole() async throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let writer = try openSyncPeerWithLists(directory, name: "writer.sqlite", clock: clock, count: 24)
    let reader = try openSyncPeer(directory, name: "reader.sqlite", clock: clock)
    let folder = directory.url.appendingPathComponent("shared")
    var transport = DirectoryTransport(folder: folder)
    transport.maxSegmentEvents = 10
    // The schema's event and 24 inserts.
    #expect(try await transport.send(from: writer) == 25)
    #expect(try segmentNames(of: writer.peerID, in: folder) == ["1-10", "11-20", "21-25"])

    // A byte limit smaller than any event: one event to a segment.
    for id in 25...26 {
      try await writer.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (?, ?)", arguments: [id, "list \(id)"]) }
    }
    transport.maxSegmentBytes = 1
    #expect(try await transport.send(from: writer) == 2)
    #expect(try segmentNames(of: writer.peerID, in: folder) == ["1-10", "11-20", "21-25", "26-26", "27-27"])
    #expect(try await transport.send(from: writer) == 0)

    let report = try await DirectoryTransport(folder: folder).fetch(into: reader)
    #expect(report.rejected.isEmpty && report.merged.appliedEvents == 27)
    #expect(try reader.digests() == writer.digests())
  }

  /// The sequence ranges of a peer's segment files, in order.
  func segmentNames(of peer: PeerID, in folder: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(peer.description).path)
      .filter { $0.hasSuffix(".chrb") }.sorted()
      .map { name in
        name.dropLast(5).split(separator: "-").map { String(UInt64($0)!) }.joined(separator: "-")
      }
  }
}
