// filesync: a tree of one large file and many small ones, scanned and synced
// into an empty peer, side by side with a plain copy of the same tree
// (read every file, write it elsewhere) in the same run.
import Chronicle
import ChronicleNetwork
import FileSync
import Foundation

struct FileSyncWorkload {
  var largeMiB: Int
  var smallFiles = 2_000
  var smallSize = 4_096

  var bytes: Int { largeMiB << 20 + smallFiles * smallSize }

  func makeTree(at root: URL) throws {
    try FileManager.default.createDirectory(at: root.appendingPathComponent("small"), withIntermediateDirectories: true)
    var state: UInt64 = 0x1234_5678
    func chunk(_ count: Int) -> Data {
      var data = Data(count: count)
      data.withUnsafeMutableBytes { buffer in
        let words = buffer.bindMemory(to: UInt64.self)
        for index in words.indices {
          state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
          words[index] = state
        }
      }
      return data
    }
    let handle = try FileHandle(forWritingTo: {
      let url = root.appendingPathComponent("large.bin")
      _ = FileManager.default.createFile(atPath: url.path, contents: nil)
      return url
    }())
    for _ in 0..<largeMiB { try handle.write(contentsOf: chunk(1 << 20)) }
    try handle.close()
    for index in 0..<smallFiles { try chunk(smallSize).write(to: root.appendingPathComponent("small/\(index).dat")) }
  }
}

/// Copies every file of `source` to `destination`, reading and writing whole files.
func plainCopy(_ source: URL, to destination: URL) throws {
  let manager = FileManager.default
  guard let walker = manager.enumerator(at: source, includingPropertiesForKeys: [.isRegularFileKey]) else { return }
  for case let url as URL in walker where try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
    let relative = String(url.path.dropFirst(source.path.count + 1))
    let target = destination.appendingPathComponent(relative)
    try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
    let handle = try FileHandle(forReadingFrom: url)
    _ = manager.createFile(atPath: target.path, contents: nil)
    let out = try FileHandle(forWritingTo: target)
    while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty { try out.write(contentsOf: piece) }
    try out.synchronize()
    try out.close()
    try handle.close()
  }
}

func runFileSyncBenchmark(_ workload: FileSyncWorkload, repeats: Int, folder: URL) async throws {
  var best: [String: Double] = [:]
  func record(_ name: String, _ seconds: Double) { best[name] = min(best[name] ?? .infinity, seconds) }
  var configuration = NetworkSyncConfiguration(key: .generate())
  configuration.logger.logLevel = .warning
  for _ in 0..<repeats {
    let run = folder.appendingPathComponent("filesync-\(UUID())")
    let sourceRoot = run.appendingPathComponent("source")
    try workload.makeTree(at: sourceRoot)
    record("plain copy of the tree (read, write, fsync)", try measure { try plainCopy(sourceRoot, to: run.appendingPathComponent("copy")) })

    let source = try SyncedFolder.create(at: sourceRoot, name: "source")
    record("filesync scan (hash, store chunks, index)", try measure { try source.scan() })

    let server = try await SyncServer.bind(source.database, host: "127.0.0.1", port: 0, configuration: configuration, blobs: source.objects)
    let serving = Task { try await server.run() }
    let receiver = try SyncedFolder.create(at: run.appendingPathComponent("tcp"), name: "tcp")
    let transport = TCPTransport(host: "127.0.0.1", port: server.port, configuration: configuration)
    record("filesync sync over TCP into an empty peer", try await measureAsync {
      let report = try await receiver.sync(with: transport)
      guard report.materialized.written.count == workload.smallFiles + 1 else { throw BenchmarkFailure("TCP sync wrote \(report.materialized.written.count) files") }
    })
    server.shutdown()
    try await serving.value

    let shared = run.appendingPathComponent("shared")
    record("filesync sync through a folder: send", try await measureAsync { _ = try await source.sync(through: shared) })
    let folderReceiver = try SyncedFolder.create(at: run.appendingPathComponent("folder"), name: "folder")
    record("filesync sync through a folder: receive", try await measureAsync {
      let report = try await folderReceiver.sync(through: shared)
      guard report.materialized.written.count == workload.smallFiles + 1 else { throw BenchmarkFailure("folder sync wrote \(report.materialized.written.count) files") }
    })
    try? FileManager.default.removeItem(at: run)
  }
  let megabytes = Double(workload.bytes) / Double(1 << 20)
  let plain = best["plain copy of the tree (read, write, fsync)"]!
  print("\nfilesync: \(workload.largeMiB) MiB file + \(workload.smallFiles) files of \(workload.smallSize) bytes (\(String(format: "%.0f", megabytes)) MiB)")
  print("step".padding(toLength: 46, withPad: " ", startingAt: 0) + "MiB/s     ratio vs plain copy (time)")
  for name in [
    "plain copy of the tree (read, write, fsync)", "filesync scan (hash, store chunks, index)", "filesync sync over TCP into an empty peer",
    "filesync sync through a folder: send", "filesync sync through a folder: receive",
  ] {
    let seconds = best[name]!
    print(name.padding(toLength: 46, withPad: " ", startingAt: 0) + String(format: "%7.1f   %.2fx", megabytes / seconds, seconds / plain))
  }
}
