import Chronicle
import Foundation
import Testing

import ChronicleTestSupport

@Suite("Events leave the device signed, even while it writes")
struct SealingRaceTests {
  /// A transport signs the device's events, then reads them; an event
  /// committed in between must wait for the next read instead of leaving
  /// unsigned (a relay would store it, and every receiver refuse it forever).
  @Test func eventsReadWhileTheDeviceWritesAreAllSigned() async throws {
    let (unsigned, outgoingUnsigned, rounds, through) = try await offThePool { () -> (Int, Int, Int, UInt64) in
      let directory = try TemporaryDirectory()
      let database = try Chronicle.open(path: directory.path("busy.sqlite"))
      try database.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT) STRICT") }
      let writing = DispatchGroup()
      writing.enter()
      DispatchQueue.global().async {
        defer { writing.leave() }
        for id in 0..<1_500 { try? database.write { db in try db.execute(sql: "INSERT INTO t VALUES (?, 'x')", arguments: [id]) } }
      }
      var through: UInt64 = 0, unsigned = 0, outgoingUnsigned = 0, rounds = 0
      while writing.wait(timeout: .now()) == .timedOut || rounds == 0 {
        rounds += 1
        for event in try database.ownEvents(after: through, maxEvents: 50, maxBytes: 1 << 20) {
          if event.bytes[4] < 2 { unsigned += 1 }
          through = event.sequence
        }
        var outgoing = try OutgoingEvents(from: database, beyond: VersionVector())
        while let page = try outgoing.nextPage(maxEvents: 500, maxBytes: 1 << 20) {
          outgoingUnsigned += page.filter { $0[4] < 2 }.count
        }
      }
      return (unsigned, outgoingUnsigned, rounds, through)
    }
    #expect(unsigned == 0, "\(unsigned) unsigned events among those pushed, in \(rounds) rounds")
    #expect(outgoingUnsigned == 0, "\(outgoingUnsigned) unsigned events among those sent, in \(rounds) rounds")
    #expect(through > 0)
  }
}
