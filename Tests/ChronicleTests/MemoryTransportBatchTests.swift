import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

/// The memory transport moves a long history in bounded batches, each
/// merged in its own transaction, as the TCP transport does: an error keeps
/// the batches merged before it, and a later sync resumes after them.
@Suite("Memory transport: a long history moves in bounded batches")
struct MemoryTransportBatchTests {
  @Test func batchesMergeOneTransactionEachAndAnErrorKeepsTheOnesBefore() async throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let writer = try openSyncPeerWithLists(directory, name: "writer.sqlite", clock: clock, count: 24)
    let reader = try openSyncPeer(directory, name: "reader.sqlite", clock: clock)
    // A trigger of the reader's writes a tracked table when list 22 comes:
    // a change no event would describe, so its batch (events 21-25) fails.
    // (A row that merely breaks a constraint is refused alone instead.)
    try await reader.write { db in
      try db.execute(sql: "CREATE TEMP TRIGGER refuse AFTER INSERT ON lists WHEN NEW.id = 22 BEGIN UPDATE lists SET name = name || '!' WHERE id = 1; END")
    }
    var transport = MemoryTransport(peer: writer)
    transport.maxBatchEvents = 10
    await #expect(throws: (any Error).self) { try await transport.fetch(into: reader) }
    // The schema's event and lists 1 to 19 came in the first two batches.
    #expect(try await reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM lists") } == 19)
    #expect(try reader.versionVector()[writer.peerID] == 20)

    try await reader.write { db in try db.execute(sql: "DROP TRIGGER temp.refuse") }
    transport.maxBatchBytes = 1  // one event to a batch
    let report = try await transport.fetch(into: reader)
    #expect(report.merged.appliedEvents == 5 && report.merged.duplicateEvents == 0)
    #expect(try reader.digests() == writer.digests())
    #expect(try await MemoryTransport(peer: reader).send(from: writer) == 0)
  }
}
