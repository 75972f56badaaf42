// Relay: how fast a new device pulls a group's history through a relay
// (`chronicle relay` as its own process, embedded SQLite store and
// PostgreSQL), beside the direct TCP transport and plain GRDB upserts in the
// same run; the relay's peak memory and the bytes it stores per change.
import Chronicle
import ChronicleNetwork
import ChronicleTestSupport
import Foundation
import Logging

/// A relay process: `chronicle relay` built beside this benchmark.
struct RelayProcess {
  let process: ChildProcess
  let url: String

  init(_ arguments: [String]) throws {
    // The relay's capacity, not its defaults: no push rate (16 MiB/s a
    // device by default) and no group quotas slow or stop the benchmark.
    let unlimited = ["--max-push-rate", "none", "--group-quota", "none", "--group-event-quota", "none"]
    process = try ChildProcess("chronicle", ["relay", "--port", "0", "--log-level", "error", "--open-groups"] + unlimited + arguments)
    let line = try process.waitForLine(containing: "relay listening on")
    url = String(line.split(separator: " ").last!)
  }

  /// The process's peak resident memory (VmHWM), in bytes.
  var peakMemory: Int {
    let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
  }
}

func runRelayBenchmark(_ workload: SyncWorkload, repeats: Int, folder: URL) async throws {
  let source = try workload.makeSource(in: folder)
  let expected = try source.digests().filter { $0.table == "items" }
  let key = SyncKey.generate()
  var quiet = Logger(label: "bench")
  quiet.logLevel = .error
  var client = RelayConfiguration(logger: quiet)
  client.responseTimeout = .seconds(600)

  // Direct TCP, the reference.
  var network = NetworkSyncConfiguration(key: key)
  network.logger.logLevel = .warning
  let server = try await SyncServer.bind(source, host: "127.0.0.1", port: 0, configuration: network)
  let serving = Task { try await server.run() }
  var plain = Double.infinity, tcp = Double.infinity
  for _ in 0..<repeats {
    plain = min(plain, try workload.plainUpserts(in: folder))
    let receiver = try workload.makeTarget(in: folder)
    tcp = min(tcp, try await measureAsync {
      _ = try await TCPTransport(host: "127.0.0.1", port: server.port, configuration: network).fetch(into: receiver)
    })
    try check(receiver, equals: expected)
  }
  server.shutdown()
  try await serving.value
  // A relay serves groups: the source creates one (one event more to pull).
  try source.createGroup()
  let events = try source.log.count()

  struct RelayFigures {
    var name: String
    var push = Double.infinity
    var pull = Double.infinity
    var peakMemory = 0
    var storedBytes = 0
  }
  let postgres = try TemporaryPostgres()
  var figures: [RelayFigures] = []
  for store in ["embedded SQLite", "PostgreSQL"] {
    var result = RelayFigures(name: store)
    for round in 0..<repeats {
      let storePath = folder.appendingPathComponent("relay-\(UUID()).sqlite").path
      if store == "PostgreSQL", round > 0 {
        _ = try postgres.value("DROP TABLE relay_events, relay_origins, relay_memberships, relay_groups, relay_creation_tokens, relay_schema")
      }
      let relay = try RelayProcess(store == "PostgreSQL" ? ["--postgres", postgres.url] : ["--data", storePath])
      let transport = try RelayTransport(url: relay.url, configuration: client)
      result.push = min(result.push, try await measureAsync { _ = try await transport.send(from: source) })
      let device = try workload.makeTarget(in: folder)
      try device.join(try source.invite())
      _ = try? await transport.send(from: device)  // the relay holds its join request, awaiting an admin
      _ = try await transport.send(from: source)  // the admin's device admits it
      result.pull = min(result.pull, try await measureAsync {
        let report = try await transport.fetch(into: device)
        guard report.merged.appliedEvents >= events else {
          throw BenchmarkFailure(
            "relay pull applied \(report.merged.appliedEvents) of \(events) events; \(report.merged.refused.count) refused, first: \(report.merged.refused.first.map(\.reason) ?? "none")")
        }
      })
      try check(device, equals: expected)
      result.peakMemory = max(result.peakMemory, relay.peakMemory)
      relay.process.stop()
      if store == "PostgreSQL" {
        result.storedBytes = Int(try postgres.value("SELECT pg_total_relation_size('relay_events')")) ?? 0
      } else {
        result.storedBytes = [storePath, storePath + "-wal"].reduce(0) { total, path in
          total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
        }
      }
    }
    figures.append(result)
  }

  let changes = Double(workload.rowChanges)
  print("\nrelay: a new device pulls \(workload.rowChanges) row changes (\(events) events) through a relay process, beside direct TCP")
  print("step".padding(toLength: 46, withPad: " ", startingAt: 0) + "changes/s   vs GRDB upserts   vs direct TCP")
  print("plain GRDB upserts, 1 transaction".padding(toLength: 46, withPad: " ", startingAt: 0)
    + String(format: "%9.0f   %14.2fx", changes / plain, 1.0))
  print("TCP transport (loopback): fetch".padding(toLength: 46, withPad: " ", startingAt: 0)
    + String(format: "%9.0f   %14.2fx   %12.2fx", changes / tcp, tcp / plain, 1.0))
  for result in figures {
    print("relay, \(result.name): push".padding(toLength: 46, withPad: " ", startingAt: 0)
      + String(format: "%9.0f   %14.2fx   %12.2fx", changes / result.push, result.push / plain, result.push / tcp))
    print("relay, \(result.name): pull (new device)".padding(toLength: 46, withPad: " ", startingAt: 0)
      + String(format: "%9.0f   %14.2fx   %12.2fx", changes / result.pull, result.pull / plain, result.pull / tcp))
    print("  relay peak RSS \(result.peakMemory >> 20) MiB; stored \(result.storedBytes >> 20) MiB, "
      + String(format: "%.1f bytes/change", Double(result.storedBytes) / changes))
  }
}
