import ChronicleTestSupport
import Foundation
import Testing

@testable import Chronicle

/// `exportBundle` (what `chronicle export` runs) streams the events into the
/// file a mebibyte at a time: the file is byte for byte the bundle
/// `EventBundle.encode` makes of the same events, and it appears whole or
/// not at all.
@Suite("Sync: a bundle exported a buffer at a time")
struct BundleExportTests {
  let directory: TemporaryDirectory
  let clock = ManualWallClock()

  init() throws { directory = try TemporaryDirectory() }

  /// A peer whose events come to several mebibytes: names of random hex
  /// text, which compression cannot shrink below half.
  func writer() throws -> ChronicleDatabase {
    let peer = try openSyncPeer(directory, name: "writer.sqlite", clock: clock)
    for id in 1...24 {
      try peer.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (?, hex(randomblob(200000)))", arguments: [id]) }
      clock.advance(by: 1)
    }
    return peer
  }

  @Test func theFileIsTheBundleEncodeMakesAndImportsWhole() throws {
    let source = try writer()
    let url = URL(fileURLWithPath: directory.path("all.chrb"))
    let count = try source.exportBundle(beyond: VersionVector(), to: url)
    let written = try [UInt8](Data(contentsOf: url))
    let events = try source.serializedEvents(beyond: VersionVector())
    #expect(count == events.count && count == 25)
    #expect(written.count > 3 * EventBundleFileWriter.flushBytes)
    // Compared outside the expectation, which would print both on a failure.
    let sameAsEncode = written == EventBundle.encode(writer: source.peerID, events: events)
    #expect(sameAsEncode, "the exported file differs from EventBundle.encode's bytes")

    let target = try openSyncPeer(directory, name: "target.sqlite", clock: clock)
    let report = try target.applyRemote(bundle: written, source: "all.chrb")
    #expect(report.appliedEvents == 25)
    #expect(try target.digests() == source.digests())
    // Beyond what the target holds now: an empty bundle, still well formed.
    let none = URL(fileURLWithPath: directory.path("none.chrb"))
    #expect(try source.exportBundle(beyond: target.versionVector(), to: none) == 0)
    #expect(try [UInt8](Data(contentsOf: none)) == EventBundle.encode(writer: source.peerID, events: []))
  }

  @Test func aFailedExportLeavesTheDestinationAsItWasAndNoPartialFile() throws {
    let source = try writer()
    // A directory stands where the bundle would go: the rename fails.
    let destination = URL(fileURLWithPath: directory.path("taken"))
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)
    try Data("kept".utf8).write(to: destination.appendingPathComponent("inside.txt"))
    #expect(throws: (any Error).self) { try source.exportBundle(beyond: VersionVector(), to: destination) }
    #expect(try String(contentsOf: destination.appendingPathComponent("inside.txt"), encoding: .utf8) == "kept")
    let left = try FileManager.default.contentsOfDirectory(atPath: directory.path("."))
    #expect(left.filter { $0.hasSuffix(".partial") }.isEmpty, "\(left)")
  }
}
