import ChronicleTestSupport
import Foundation
import Testing

@testable import Chronicle

/// A bundle longer than a batch is decoded and merged a batch at a time, in
/// one transaction: all of it, or, on an error in any batch, none of it.
@Suite("Sync: a long bundle merges in batches, all or nothing")
struct BundleBatchTests {
  let directory: TemporaryDirectory
  let clock = ManualWallClock()

  init() throws { directory = try TemporaryDirectory() }

  /// A peer with 20 lists and an item in every fifth, one write each.
  func writer() throws -> ChronicleDatabase {
    let peer = try openSyncPeerWithLists(directory, name: "writer.sqlite", clock: clock, count: 20)
    for id in stride(from: 1, through: 20, by: 5) {
      try peer.write { db in try db.execute(sql: "INSERT INTO items (id, listID, title) VALUES (?, ?, 'item')", arguments: [id, id]) }
      clock.advance(by: 1)
    }
    return peer
  }

  @Test func aBundleOfManyBatchesMergesAsOneWould() throws {
    let source = try writer()
    let events = try source.serializedEvents(beyond: VersionVector())
    #expect(ChronicleDatabase.batches(of: events, maxEvents: 4, maxBytes: 1 << 20).count == 7)
    let batched = try openSyncPeer(directory, name: "batched.sqlite", clock: clock, bundleBatchEvents: 4)
    let whole = try openSyncPeer(directory, name: "whole.sqlite", clock: clock)
    let bundle = EventBundle.encode(writer: source.peerID, events: events)
    let report = try batched.applyRemote(bundle: bundle, source: "batched")
    _ = try whole.applyRemote(bundle: bundle, source: "whole")
    #expect(report.appliedEvents == events.count && report.duplicateEvents == 0)
    #expect(try batched.digests() == source.digests())
    #expect(try batched.digests() == whole.digests())
    #expect(try batched.versionVector()[source.peerID] == whole.versionVector()[source.peerID])
    // Again: every event is held already.
    #expect(try batched.applyRemote(bundle: bundle, source: "again").duplicateEvents == events.count)
  }

  @Test func aRefusedEventInTheLastBatchLeavesTheRestApplied() throws {
    let source = try writer()
    let batched = try openSyncPeer(directory, name: "batched.sqlite", clock: clock, bundleBatchEvents: 4)
    let all = try source.serializedEvents(beyond: VersionVector())
    // The receiver holds the first three events; the bundle brings the rest,
    // then a forged copy of the second (same origin and sequence, other rows).
    _ = try batched.applyRemote(bundle: EventBundle.encode(writer: source.peerID, events: Array(all.prefix(3))), source: "first")
    let digests = try batched.digests()
    let held = try batched.log.count()
    var changed = try EventCodec.decode(all[1])
    changed.operations = [.insert(table: 0, values: [.integer(99), .text("Forged"), .null])]
    let key = try #require(try DeviceKey.read(from: source.identity.keyFile))
    let forged = EventSignature.seal(try EventCodec.encode(changed).bytes, linkedTo: EventSignature.noLink, with: key)
    let bundle = EventBundle.encode(writer: source.peerID, events: Array(all.dropFirst(3)) + [forged])
    #expect(ChronicleDatabase.batches(of: Array(all.dropFirst(3)) + [forged], maxEvents: 4, maxBytes: 1 << 20).count > 1)
    expectRefused(source.peerID, "different event with the same origin and sequence", by: batched) {
      try batched.applyRemote(bundle: bundle, source: "forged.chrb")
    }
    #expect(try batched.log.count() == held + all.count - 3)
    #expect(try batched.digests() == source.digests())
    #expect(try batched.digests() != digests)
    let count = try batched.log.count()

    // A corrupt event anywhere is refused before anything merges, naming it.
    var corrupt = Array(all.dropFirst(3))
    corrupt[10][corrupt[10].count / 2] ^= 0xFF
    #expect { try batched.applyRemote(bundle: EventBundle.encode(writer: source.peerID, events: corrupt), source: "corrupt.chrb") } throws: { error in
      guard case SyncError.badBundle(let source, _, let reason) = error else { return false }
      return source == "corrupt.chrb" && reason.hasPrefix("event 11:") && reason.contains("checksum")
    }
    #expect(try batched.log.count() == count)
  }
}
