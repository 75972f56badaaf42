import Chronicle
import ChronicleNetwork
import ChronicleRelay
import Foundation
import Testing

import ChronicleTestSupport

extension RelayHeavySuites {
  /// Every member's events reach every member by any path: devices that
  /// sync only over TCP, only through a shared folder, only through a relay,
  /// or any mix, converge, because every device forwards to the relay what
  /// the relay lacks (with its origins' routes).
  @Suite("Relay: mixed topologies converge")
  struct MixedTopologyConvergenceTests {
    /// How a device reaches the others.
    enum Link: CaseIterable, CustomStringConvertible {
      case relay, tcp, folder
      var description: String {
        switch self {
        case .relay: "relay"
        case .tcp: "tcp"
        case .folder: "folder"
        }
      }
    }

    /// Six devices, each given a random set of links (the founder serves
    /// TCP, so it always has that one), write the same few rows, sync over
    /// one of their links at random (partitions come and go), and one joins
    /// midway. Then every device syncs every link a few rounds: every
    /// device must end with the same rows, and every log must verify.
    @Test(arguments: [UInt64(20_261_129), 31])
    func devicesOnTCPFoldersAndARelayConverge(seed: UInt64) async throws {
      var random = SeededGenerator(seed: seed)
      let directory = try TemporaryDirectory()
      let folder = directory.url.appendingPathComponent("shared", isDirectory: true)
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      let founder = try makeDevice(directory, "d0")
      try founder.createGroup()
      var devices = [founder]
      var links: [[Link]] = [[.tcp]]
      for index in 1..<6 {
        let device = try makeDevice(directory, "d\(index)")
        if index < 5 { try enroll(device, with: founder, in: directory) }
        devices.append(device)
        var chosen = Link.allCases.filter { _ in Bool.random(using: &random) }
        if chosen.isEmpty { chosen = [Link.allCases.randomElement(using: &random)!] }
        links.append(chosen)
      }
      if Bool.random(using: &random) { links[0].append(.relay) }
      if Bool.random(using: &random) { links[0].append(.folder) }
      // Each link's devices must reach the rest: a folder (or relay) whose
      // devices all use nothing else gets one that also uses TCP.
      for hub in [Link.folder, .relay] {
        let users = links.indices.filter { links[$0].contains(hub) }
        if !users.isEmpty, !users.contains(where: { links[$0].count > 1 }) {
          links[users[0]].append(.tcp)
        }
      }
      let layout = links.enumerated().map { "d\($0.offset): \($0.element)" }.joined(separator: ", ")

      var tcp = NetworkSyncConfiguration(key: .generate(), logger: quietLogger)
      tcp.handshakeTimeout = .seconds(20)
      tcp.frameTimeout = .seconds(30)
      let server = try await SyncServer.bind(founder, host: "127.0.0.1", port: 0, configuration: tcp)
      let serving = Task { try await server.run() }
      defer { server.shutdown(gracePeriod: .seconds(1)) }
      let overTCP = TCPTransport(host: "127.0.0.1", port: server.port, configuration: tcp)
      let overFolder = DirectoryTransport(folder: folder)

      try await withRelay(relayConfiguration(directory.path("relay.sqlite"))) { url, _ in
        let relay = try RelayTransport(url: url, configuration: clientConfiguration())
        func sync(_ index: Int, over link: Link) async throws {
          let device = devices[index]
          switch link {
          case .relay:
            do {
              _ = try await relay.sync(device)
            } catch RelayError.refused(_, _, retryable: true) {
              // Awaiting admission: the relay learns of it when a device that
              // holds the admission next syncs with it (as an app retries).
            }
          case .tcp: if index != 0 { _ = try await overTCP.sync(device) }
          case .folder:
            _ = try await overFolder.send(from: device)
            _ = try await overFolder.fetch(into: device)
          }
        }
        // The founder starts the group on the relay.
        _ = try await relay.sync(founder)
        var joined = 5
        for step in 0..<80 {
          if step == 40 {
            // The sixth device joins midway, through a bundle the founder admits.
            try enroll(devices[5], with: founder, in: directory)
            joined = 6
          }
          let index = Int.random(in: 0..<joined, using: &random)
          let device = devices[index]
          if Int.random(in: 0..<3, using: &random) == 0 {
            let id = Int.random(in: 1...15, using: &random)
            let choice = Int.random(in: 0..<10, using: &random)
            try await device.write { db in
              switch choice {
              case 0..<6:
                try db.execute(
                  sql: "INSERT INTO notes (id, body) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body",
                  arguments: [id, "step \(step) by d\(index)"])
              case 6..<9:
                try db.execute(sql: "UPDATE notes SET stars = stars + 1 WHERE id = ?", arguments: [id])
              default:
                try db.execute(sql: "DELETE FROM notes WHERE id = ?", arguments: [id])
              }
            }
          } else {
            try await sync(index, over: links[index].randomElement(using: &random)!)
          }
        }
        // Everyone online: each round, every device syncs every link (a
        // forwarder may need a round to ask for routes, another to forward).
        for _ in 0..<6 {
          for index in devices.indices.shuffled(using: &random) {
            for link in links[index] { try await sync(index, over: link) }
          }
        }
      }
      server.shutdown(gracePeriod: .seconds(1))
      _ = try? await serving.value

      let expected = try founder.notesDigest()
      for (index, device) in devices.enumerated() {
        #expect(try device.notesDigest() == expected, "seed \(seed) (\(layout)): d\(index) differs from the founder")
        let report = try device.verify()
        #expect(report.isValid, "seed \(seed) (\(layout)): d\(index): \(report.problems.map(\.message))")
      }
    }
  }
}
