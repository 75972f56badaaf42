import Chronicle
import ChronicleNetwork
import ChronicleRelay
import Foundation
import GRDB
import Testing

import ChronicleTestSupport

/// One bad event in a group's store stops nothing: each device refuses it
/// alone, records it, and keeps applying everything else (issue 59, item 1).
@Suite("Relay: refusal per event")
struct RelayRefusalTests {
  /// A stored event damaged in the relay's store (a disk fault, an
  /// operator's edit): every device skips it, applies the rest of the
  /// group's events, and takes later writes as they come.
  @Test func aDamagedStoredEventStopsNoOne() async throws {
    let directory = try TemporaryDirectory()
    let phone = try makeDevice(directory, "phone"), laptop = try makeDevice(directory, "laptop")
    try phone.createGroup()
    try enroll(laptop, with: phone, in: directory)
    for id in 1...4 { try writeNotes(phone, [id]) }
    let storePath = directory.path("relay.sqlite")
    try await withRelay(relayConfiguration(storePath)) { url, _ in
      _ = try await RelayTransport(url: url, configuration: clientConfiguration()).sync(phone)
    }
    // The second note's event, damaged where the relay keeps it.
    let damaged = try await phone.read { db in
      try Int64.fetchOne(db, sql: "SELECT max(sequence) FROM chronicle_events WHERE origin = ?", arguments: [Data(phone.peerID.bytes)])
    }.map { UInt64($0) - 2 }
    let store = try DatabaseQueue(path: storePath)
    let changed = try await store.writeWithoutTransaction { db -> Int in
      try db.execute(
        sql: "UPDATE relay_events SET sealed = zeroblob(length(sealed)) WHERE origin = ? AND sequence = ?",
        arguments: [Data(phone.peerID.bytes), damaged.map { Int64($0) }])
      return db.changesCount
    }
    #expect(changed == 1)
    try store.close()
    try await withRelay(relayConfiguration(storePath)) { url, _ in
      let transport = try RelayTransport(url: url, configuration: clientConfiguration())
      let first = try await transport.sync(laptop)
      #expect(first.received.refused.map(\.sequence) == [try #require(damaged)], "\(first.received.refused)")
      #expect(first.received.refused.allSatisfy { $0.origin == phone.peerID && !$0.settled })
      #expect(try laptop.noteCount() == 3)
      // Later writes flow; the damaged copy is refused again, and stops nothing.
      try writeNotes(phone, [5])
      _ = try await transport.sync(phone)
      let second = try await transport.sync(laptop)
      #expect(second.received.appliedEvents == 1)
      #expect(try laptop.noteCount() == 4)
      #expect(try laptop.refusedEvents().first?.times == 2)
    }
  }
}
