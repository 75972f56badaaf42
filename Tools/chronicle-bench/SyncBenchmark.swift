// Sync: how fast a fresh peer takes in another peer's history, beside plain
// GRDB writing the same row changes as upserts in one transaction.
import Chronicle
import ChronicleNetwork
import Foundation

/// The row changes the source peer makes: `rows` inserts, then an update of
/// two columns of every row, `rowsPerEvent` changes per transaction.
struct SyncWorkload {
  var rows: Int
  var rowsPerEvent: Int
  var rowChanges: Int { rows * 2 }

  /// The source peer, with its history written (not timed).
  func makeSource(in folder: URL, configuration: ChronicleConfiguration = ChronicleConfiguration()) throws -> ChronicleDatabase {
    try makeSource(at: folder.appendingPathComponent("source-\(UUID()).sqlite").path, configuration: configuration)
  }

  /// The source peer, written to `path`.
  func makeSource(at path: String, configuration: ChronicleConfiguration = ChronicleConfiguration()) throws -> ChronicleDatabase {
    let source = try Chronicle.open(path: path, configuration: configuration)
    try source.write { db in try db.execute(sql: schema) }
    for start in stride(from: 1, through: rows, by: rowsPerEvent) {
      try source.write { db in
        let statement = try db.cachedStatement(sql: insertSQL)
        for id in start..<min(start + rowsPerEvent, rows + 1) { try statement.execute(arguments: arguments(id)) }
      }
    }
    for start in stride(from: 1, through: rows, by: rowsPerEvent) {
      try source.write { db in
        try db.execute(
          sql: "UPDATE items SET count = count + 1, title = title || ' (edited)' WHERE id >= ? AND id < ?",
          arguments: [start, start + rowsPerEvent])
      }
    }
    return source
  }

  /// A fresh peer with the same schema, at the same epoch.
  func makeTarget(in folder: URL, configuration: ChronicleConfiguration = ChronicleConfiguration()) throws -> ChronicleDatabase {
    let target = try Chronicle.open(path: folder.appendingPathComponent("target-\(UUID()).sqlite").path, configuration: configuration)
    try target.write { db in try db.execute(sql: schema) }
    return target
  }

  /// Plain GRDB: the same inserts and updates as upserts of whole rows, one transaction.
  func plainUpserts(in folder: URL) throws -> Double {
    let pool = try DatabasePool(path: folder.appendingPathComponent("plain-\(UUID()).sqlite").path)
    try pool.write { db in try db.execute(sql: schema) }
    let upsert = """
      INSERT INTO items (id, title, count, score, listID) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT(id) DO UPDATE SET title = excluded.title, count = excluded.count
      """
    return try measure {
      try pool.write { db in
        let statement = try db.cachedStatement(sql: upsert)
        for id in 1...rows { try statement.execute(arguments: arguments(id)) }
        for id in 1...rows {
          try statement.execute(arguments: [id, "Item number \(id) (edited)", id % 97 + 1, Double(id) / 7, "list-\(id % 13)"])
        }
      }
    }
  }
}

/// One transport's figures: the time to bring a fresh peer up to date.
struct SyncFigures {
  var name: String
  var seconds = Double.infinity
  var bytes = 0
}

func measureAsync(_ body: () async throws -> Void) async rethrows -> Double {
  let start = ContinuousClock.now
  try await body()
  let elapsed = ContinuousClock.now - start
  return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func runSyncBenchmark(_ workload: SyncWorkload, repeats: Int, folder: URL) async throws {
  let source = try workload.makeSource(in: folder)
  let expected = try source.digests().filter { $0.table == "items" }
  let events = try source.log.events().count
  // A device signs its events the first time it hands them out; a peer that
  // has synced before has signed all but its latest. Signing here, untimed,
  // keeps that one-time cost out of the first transport measured (it was
  // ~10% of the memory transport's time at 2,000,000 changes, and made its
  // ratio look as if it grew with size).
  let signing = try measure { try source.sealOwnEvents() }
  var plain = Double.infinity
  var memory = SyncFigures(name: "memory transport (fetch)")
  var directorySend = SyncFigures(name: "folder transport: send")
  var directoryFetch = SyncFigures(name: "folder transport: fetch")
  var tcpFetch = SyncFigures(name: "TCP transport (loopback): fetch")
  var stored: StoredBytes?
  var configuration = NetworkSyncConfiguration(key: .generate())
  configuration.logger.logLevel = .warning
  let server = try await SyncServer.bind(source, host: "127.0.0.1", port: 0, configuration: configuration)
  let serving = Task { try await server.run() }

  for _ in 0..<repeats {
    plain = min(plain, try workload.plainUpserts(in: folder))

    let target = try workload.makeTarget(in: folder)
    memory.seconds = min(memory.seconds, try await measureAsync {
      _ = try await MemoryTransport(peer: source).fetch(into: target)
    })
    try check(target, equals: expected)
    stored = try StoredBytes.measure(target, rows: workload.rows)

    let shared = folder.appendingPathComponent("shared-\(UUID())", isDirectory: true)
    try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
    directorySend.seconds = min(directorySend.seconds, try await measureAsync {
      _ = try await DirectoryTransport(folder: shared).send(from: source)
    })
    directorySend.bytes = try folderSize(shared)
    let fetcher = try workload.makeTarget(in: folder)
    directoryFetch.seconds = min(directoryFetch.seconds, try await measureAsync {
      let report = try await DirectoryTransport(folder: shared).fetch(into: fetcher)
      guard report.rejected.isEmpty else { throw BenchmarkFailure("folder fetch rejected: \(report.rejected)") }
    })
    try check(fetcher, equals: expected)

    let receiver = try workload.makeTarget(in: folder)
    tcpFetch.seconds = min(tcpFetch.seconds, try await measureAsync {
      let report = try await TCPTransport(host: "127.0.0.1", port: server.port, configuration: configuration).fetch(into: receiver)
      guard report.merged.appliedEvents == events else { throw BenchmarkFailure("TCP fetch applied \(report.merged.appliedEvents) of \(events) events") }
    })
    try check(receiver, equals: expected)
  }
  server.shutdown()
  try await serving.value
  memory.bytes = directorySend.bytes
  directoryFetch.bytes = directorySend.bytes

  let changes = Double(workload.rowChanges)
  print("\nsync: \(workload.rowChanges) row changes (\(workload.rows) inserts, then \(workload.rows) two-column updates) in \(events) events, into a fresh peer")
  print("  bundle size: \(directorySend.bytes) bytes, \(String(format: "%.1f", Double(directorySend.bytes) / changes)) bytes/change")
  print("  the source signed its \(events) events first (Ed25519), untimed: \(String(format: "%.2f", signing)) s")
  if let stored {
    print("  merge state: \(String(format: "%.1f", stored.mergeState)) bytes/row in chronicle_rows and chronicle_integer_rows; the items table itself: \(String(format: "%.1f", stored.table)) bytes/row")
  }
  print("step".padding(toLength: 46, withPad: " ", startingAt: 0) + "changes/s     ratio vs GRDB upserts")
  print("plain GRDB upserts, 1 transaction".padding(toLength: 46, withPad: " ", startingAt: 0)
    + String(format: "%9.0f     1.00x", changes / plain))
  for figures in [memory, directorySend, directoryFetch, tcpFetch] {
    print(figures.name.padding(toLength: 46, withPad: " ", startingAt: 0)
      + String(format: "%9.0f     %.2fx", changes / figures.seconds, figures.seconds / plain))
  }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Bytes per row that a synced peer stores, as SQLite's `dbstat` counts
/// pages: its merge state, beside the table the rows are in.
struct StoredBytes {
  var mergeState: Double
  var table: Double

  static func measure(_ database: ChronicleDatabase, rows: Int) throws -> StoredBytes {
    try database.read { db in
      func bytes(_ name: String) throws -> Double {
        Double(try Int.fetchOne(db, sql: "SELECT SUM(pgsize) FROM dbstat WHERE name = ?", arguments: [name]) ?? 0) / Double(rows)
      }
      return StoredBytes(mergeState: try bytes("chronicle_rows") + bytes("chronicle_integer_rows"), table: try bytes("items"))
    }
  }
}

/// The synced peer must hold exactly the source's rows.
func check(_ target: ChronicleDatabase, equals expected: [TableDigest]) throws {
  let found = try target.digests().filter { $0.table == "items" }
  guard found == expected else { throw BenchmarkFailure("synced peer differs from the source: \(found) vs \(expected)") }
}

func folderSize(_ folder: URL) throws -> Int {
  var total = 0
  let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.fileSizeKey])
  while let url = enumerator?.nextObject() as? URL {
    total += try url.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0
  }
  return total
}
