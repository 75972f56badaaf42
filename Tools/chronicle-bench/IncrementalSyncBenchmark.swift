// Incremental sync: what one small sync costs once two peers share a long
// history, beside plain GRDB writing the same rows. A sync that moves ten
// row changes should cost about the same whatever the history's length.
import Chronicle
import ChronicleNetwork
import Foundation

/// Lists and their items, joined by a foreign key (a Reminders app's shape).
let listsAndItemsSchema = """
  CREATE TABLE lists (id INTEGER PRIMARY KEY, title TEXT NOT NULL) STRICT;
  CREATE TABLE items (
    id INTEGER PRIMARY KEY,
    listID INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    count INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX items_by_list ON items(listID);
  """

private let listCount = 100
private let changesPerSync = 10

/// The source's history: the lists, then `events` transactions of one item each.
private func writeHistory(_ database: ChronicleDatabase, events: Int) throws {
  try database.write { db in
    try db.execute(sql: listsAndItemsSchema)
    for list in 1...listCount { try db.execute(sql: "INSERT INTO lists VALUES (?, ?)", arguments: [list, "List \(list)"]) }
  }
  for id in 1...events {
    try database.write { db in
      try db.execute(sql: "INSERT INTO items VALUES (?, ?, ?, 0)", arguments: [id, id % listCount + 1, "Item \(id)"])
    }
  }
}

/// One sync's worth of writes: `changesPerSync` items edited, round `round`.
private func edit(round: Int, items: Int, _ db: Database) throws {
  for offset in 0..<changesPerSync {
    let id = (round * 7_919 + offset * 104_729) % items + 1
    try db.execute(sql: "UPDATE items SET count = count + 1, title = ? WHERE id = ?", arguments: ["Item \(id), edit \(round)", id])
  }
}

/// `histories`: each history's length, and whether every peer compacted it
/// into a baseline before the small syncs.
func runIncrementalSyncBenchmark(histories: [(events: Int, compacted: Bool)], repeats: Int, folder: URL) async throws {
  print("\nincremental sync: \(changesPerSync) row changes in one event, once the peers share a history of N events (one item each; items have a foreign key to lists)")
  print("history".padding(toLength: 21, withPad: " ", startingAt: 0)
    + "plain upserts   TCP, nothing new   TCP, one event   folder, one event   ratio (TCP one event / plain)")
  for (events, compacted) in histories {
    let source = try Chronicle.open(path: folder.appendingPathComponent("incremental-source-\(UUID()).sqlite").path)
    try writeHistory(source, events: events)
    let target = try Chronicle.open(path: folder.appendingPathComponent("incremental-target-\(UUID()).sqlite").path)
    try await target.write { db in try db.execute(sql: listsAndItemsSchema) }
    _ = try await MemoryTransport(peer: source).fetch(into: target)
    let shared = folder.appendingPathComponent("incremental-shared-\(UUID())", isDirectory: true)
    try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
    let folderTarget = try Chronicle.open(path: folder.appendingPathComponent("incremental-folder-\(UUID()).sqlite").path)
    try await folderTarget.write { db in try db.execute(sql: listsAndItemsSchema) }
    _ = try await DirectoryTransport(folder: shared).send(from: source)
    _ = try await DirectoryTransport(folder: shared).fetch(into: folderTarget)
    var configuration = NetworkSyncConfiguration(key: .generate())
    configuration.logger.logLevel = .warning
    let server = try await SyncServer.bind(source, host: "127.0.0.1", port: 0, configuration: configuration)
    let serving = Task { try await server.run() }
    let transport = TCPTransport(host: "127.0.0.1", port: server.port, configuration: configuration)
    if compacted {
      // Every peer holds every event first: each prunes what all three have.
      _ = try await DirectoryTransport(folder: shared).send(from: folderTarget)
      _ = try await DirectoryTransport(folder: shared).fetch(into: source)
      _ = try await transport.exchange(with: target)
      _ = try await DirectoryTransport(folder: shared).send(from: source)
      _ = try await DirectoryTransport(folder: shared).fetch(into: folderTarget)
      let vectors = try [source, target, folderTarget].map { try $0.versionVector() }
      var everywhere = VersionVector()
      for origin in Set(vectors.flatMap(\.sequences.keys)) { everywhere[origin] = vectors.map { $0[origin] }.min() ?? 0 }
      for peer in [source, target, folderTarget] { _ = try peer.compact(before: everywhere) }
    }

    let plainPool = try DatabasePool(path: folder.appendingPathComponent("incremental-plain-\(UUID()).sqlite").path)
    try await plainPool.write { db in
      try db.execute(sql: listsAndItemsSchema)
      for list in 1...listCount { try db.execute(sql: "INSERT INTO lists VALUES (?, ?)", arguments: [list, "List \(list)"]) }
      let insert = try db.cachedStatement(sql: "INSERT INTO items VALUES (?, ?, ?, 0)")
      for id in 1...events { try insert.execute(arguments: [id, id % listCount + 1, "Item \(id)"]) }
    }


    var plain = Double.infinity, idle = Double.infinity, tcp = Double.infinity, directory = Double.infinity
    let rounds = max(repeats, 1) * 5
    for round in 1...rounds {
      // Plain GRDB: the same rows written as upserts of whole rows.
      plain = min(plain, try measure {
        try plainPool.write { db in
          let upsert = try db.cachedStatement(sql: """
            INSERT INTO items VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET title = excluded.title, count = excluded.count
            """)
          for offset in 0..<changesPerSync {
            let id = (round * 7_919 + offset * 104_729) % events + 1
            try upsert.execute(arguments: [id, id % listCount + 1, "Item \(id), edit \(round)", round])
          }
        }
      })
      idle = min(idle, try await measureAsync { _ = try await transport.exchange(with: target) })
      try await source.write { db in try edit(round: round, items: events, db) }
      tcp = min(tcp, try await measureAsync {
        let report = try await transport.fetch(into: target)
        guard report.merged.appliedEvents == 1 else { throw BenchmarkFailure("TCP fetch applied \(report.merged.appliedEvents) events, not 1") }
      })
      directory = min(directory, try await measureAsync {
        _ = try await DirectoryTransport(folder: shared).send(from: source)
        let report = try await DirectoryTransport(folder: shared).fetch(into: folderTarget)
        guard report.merged.appliedEvents == 1 else { throw BenchmarkFailure("folder fetch applied \(report.merged.appliedEvents) events, not 1") }
      })
    }
    server.shutdown()
    try await serving.value
    let expected = try source.digests()
    guard try target.digests() == expected, try folderTarget.digests() == expected else {
      throw BenchmarkFailure("an incrementally synced peer differs from the source")
    }
    func milliseconds(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }
    print("\(events)\(compacted ? ", compacted" : "")".padding(toLength: 21, withPad: " ", startingAt: 0)
      + milliseconds(plain).padding(toLength: 16, withPad: " ", startingAt: 0)
      + milliseconds(idle).padding(toLength: 19, withPad: " ", startingAt: 0)
      + milliseconds(tcp).padding(toLength: 17, withPad: " ", startingAt: 0)
      + milliseconds(directory).padding(toLength: 20, withPad: " ", startingAt: 0)
      + String(format: "%.0fx", tcp / plain))
  }
}
