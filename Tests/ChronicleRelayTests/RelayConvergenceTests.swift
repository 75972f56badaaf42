import Chronicle
import ChronicleNetwork
import ChronicleRelay
import Foundation
import Testing

import ChronicleTestSupport

/// The randomized and fault suites each start PostgreSQL clusters and relay
/// processes; run one case at a time, they leave the 2 cores to the other
/// suites (network tests with deadlines) running beside them.
@Suite("Relay: heavy suites, one case at a time", .serialized)
enum RelayHeavySuites {}

extension RelayHeavySuites {
@Suite("Relay: randomized groups converge")
struct RelayConvergenceTests {
  /// One group's devices and key.
  struct Group {
    var devices: [ChronicleDatabase]
    var key: SyncKey
  }

  /// 3 groups of 5 devices write, update and delete the same few rows (so
  /// they conflict), go offline at random, and sync only through two relay
  /// processes over one PostgreSQL, picking either relay each time. Every
  /// device of a group must end with the same rows, no device may hold an
  /// event of another group, and every log must verify.
  @Test(arguments: [UInt64(20_261_123), 7, 424_242])
  func groupsConvergeThroughTwoRelaysOverOnePostgres(seed: UInt64) async throws {
    var random = SeededGenerator(seed: seed)
    let postgres = try TemporaryPostgres()
    let directory = try TemporaryDirectory()
    var configuration = RelayServerConfiguration(storage: .postgres(url: postgres.url), logger: quietLogger)
    configuration.port = 0
    configuration.openGroups = true
    let relays = [try await RelayServer(configuration: configuration), try await RelayServer(configuration: configuration)]
    let running = relays.map { relay in Task { try await relay.run() } }
    defer { running.forEach { $0.cancel() } }
    var urls: [String] = []
    for relay in relays { urls.append("ws://127.0.0.1:\(try await relay.port)") }

    var groups: [Group] = []
    for g in 0..<3 {
      let founder = try makeDevice(directory, "g\(g)-d0")
      try founder.createGroup()
      var devices = [founder]
      for d in 1..<5 {
        let device = try makeDevice(directory, "g\(g)-d\(d)")
        try enroll(device, with: founder, in: directory)
        devices.append(device)
      }
      groups.append(Group(devices: devices, key: .generate()))
    }
    func sync(_ device: ChronicleDatabase, _ group: Group, _ random: inout SeededGenerator) async throws {
      let url = urls[Int.random(in: 0..<urls.count, using: &random)]
      _ = try await RelayTransport(url: url, configuration: clientConfiguration()).sync(device)
    }
    // Founders first: a relay learns of a group from its founder's membership events.
    for group in groups { try await sync(group.devices[0], group, &random) }

    for round in 0..<8 {
      for group in groups {
        for device in group.devices {
          let writes = Int.random(in: 0...3, using: &random)
          for _ in 0..<writes {
            let id = Int.random(in: 1...12, using: &random)
            let choice = Int.random(in: 0..<10, using: &random)
            try await device.write { db in
              switch choice {
              case 0..<5:
                try db.execute(
                  sql: "INSERT INTO notes (id, body) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body",
                  arguments: [id, "r\(round) \(device.peerID.shortDescription)"])
              case 5..<8:
                try db.execute(sql: "UPDATE notes SET stars = stars + 1 WHERE id = ?", arguments: [id])
              default:
                try db.execute(sql: "DELETE FROM notes WHERE id = ?", arguments: [id])
              }
            }
          }
          // Offline about one round in three.
          if Int.random(in: 0..<3, using: &random) > 0 { try await sync(device, group, &random) }
        }
      }
    }
    // Everyone comes online: two passes bring every event to every device.
    for _ in 0..<2 {
      for group in groups { for device in group.devices { try await sync(device, group, &random) } }
    }

    for (index, group) in groups.enumerated() {
      let members = Set(group.devices.map(\.peerID))
      let expected = try group.devices[0].notesDigest()
      for device in group.devices {
        #expect(try device.notesDigest() == expected, "seed \(seed): group \(index), device \(device.peerID.shortDescription) differs")
        let origins = try await device.read { db in try Data.fetchAll(db, sql: "SELECT DISTINCT origin FROM chronicle_events") }
          .compactMap { PeerID(bytes: $0) }
        #expect(Set(origins).isSubset(of: members), "seed \(seed): group \(index) holds another group's events")
        let report = try device.verify()
        #expect(report.isValid, "seed \(seed): \(report.problems.map(\.message))")
      }
    }
  }
}
}
