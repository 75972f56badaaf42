import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

/// A segment under its final name is complete (writers rename it into
/// place), so one that stays shorter than its header declares is damaged, not
/// in progress: it used to be skipped as "still being written" forever.
@Suite("Shared folder: damaged and misplaced segments are reported, and their writer repairs them")
struct DamagedSegmentTests {
  func peers(_ directory: TemporaryDirectory) throws -> (writer: ChronicleDatabase, reader: ChronicleDatabase) {
    let clock = ManualWallClock()
    let writer = try openSyncPeerWithLists(directory, name: "writer.sqlite", clock: clock, count: 3)
    return (writer, try openSyncPeer(directory, name: "reader.sqlite", clock: clock))
  }

  func onlySegment(of peer: PeerID, in folder: URL) throws -> URL {
    let own = folder.appendingPathComponent(peer.description)
    let names = try FileManager.default.contentsOfDirectory(atPath: own.path).filter { $0.hasSuffix(".chrb") }
    try #require(names.count == 1)
    return own.appendingPathComponent(names[0])
  }

  /// Damages: cut short, or a size field claiming more than the file holds.
  @Test(arguments: ["cut short", "size field"])
  func aDamagedSegmentIsReportedAfterTheGracePeriodAndRewrittenByItsWriter(damage: String) async throws {
    let directory = try TemporaryDirectory()
    let (writer, reader) = try peers(directory)
    let folder = directory.url.appendingPathComponent("shared")
    #expect(try await DirectoryTransport(folder: folder).send(from: writer) == 4)
    let segment = try onlySegment(of: writer.peerID, in: folder)
    var bytes = [UInt8](try Data(contentsOf: segment))
    if damage == "cut short" {
      bytes.removeLast(20)
    } else {
      bytes[EventBundle.headerSize - 1] &+= 7
    }
    try Data(bytes).write(to: segment)

    // Within the grace period it may still be arriving (a sync tool copying it).
    let early = try await DirectoryTransport(folder: folder).fetch(into: reader)
    #expect(early.incompleteSources == [segment.path] && early.rejected.isEmpty)
    // After it, it is damaged: reported, with the events this peer lacks.
    let late = try await DirectoryTransport(folder: folder, damagedAfter: .zero).fetch(into: reader)
    #expect(late.incompleteSources.isEmpty && late.merged.appliedEvents == 0)
    let message = try #require(late.rejected.first).description
    #expect(message.contains("damaged") && message.contains("\(writer.peerID.shortDescription):1...4"), "\(message)")

    // The writer's next send rewrites it from its log; the reader then gets everything.
    #expect(try await DirectoryTransport(folder: folder).send(from: writer) == 0)
    #expect(DirectoryTransport.sizeMatchesHeader(segment))
    let repaired = try await DirectoryTransport(folder: folder, damagedAfter: .zero).fetch(into: reader)
    #expect(repaired.rejected.isEmpty && repaired.merged.appliedEvents == 4)
    #expect(try reader.digests() == writer.digests())
  }

  @Test func segmentsOutsideAPeerFolderOrWithoutARangeInTheirNameAreReported() async throws {
    let directory = try TemporaryDirectory()
    let (writer, reader) = try peers(directory)
    let folder = directory.url.appendingPathComponent("shared")
    _ = try await DirectoryTransport(folder: folder).send(from: writer)
    let segment = try onlySegment(of: writer.peerID, in: folder)
    // A copy at the top, one in a folder that is no peer's, one renamed by a sync tool's conflict handling.
    try FileManager.default.copyItem(at: segment, to: folder.appendingPathComponent(segment.lastPathComponent))
    try FileManager.default.createDirectory(at: folder.appendingPathComponent("backup"), withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: segment, to: folder.appendingPathComponent("backup/\(segment.lastPathComponent)"))
    let renamed = segment.deletingLastPathComponent().appendingPathComponent("conflicted copy 1.chrb")
    try FileManager.default.copyItem(at: segment, to: renamed)
    try Data("hidden files are a sync tool's own".utf8).write(to: folder.appendingPathComponent(".DS_Store"))

    let report = try await DirectoryTransport(folder: folder).fetch(into: reader)
    #expect(report.merged.appliedEvents == 4)
    let sources = report.rejected.map { error -> String in
      guard case .badBundle(let source, _, _) = error else { return "\(error)" }
      return String(source.dropFirst(folder.path.count + 1))
    }
    #expect(Set(sources) == [
      segment.lastPathComponent, "backup/\(segment.lastPathComponent)", "\(writer.peerID)/conflicted copy 1.chrb",
    ])
    #expect(report.rejected.allSatisfy { "\($0)".contains("never read") })
  }
}
