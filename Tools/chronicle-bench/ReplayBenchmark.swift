// Replay throughput: a log of --replay-changes row changes (60% inserts,
// 30% two-column updates, 10% deletes, 1,000 changes per transaction) is
// replayed from a read-only archive into a fresh file, beside inserting the
// log's final rows with one prepared statement into a fresh file, in the same
// run. Both targets use the same settings (rollback journal, synchronous OFF).
import Chronicle
import Foundation

/// Writes the log through Chronicle; returns the number of row changes.
func buildReplayLog(path: String, changes: Int) throws -> Int {
  let database = try Chronicle.open(path: path)
  try database.write { db in try db.execute(sql: schema) }
  var random = SplitMix64(seed: 42)
  var live: [Int] = []  // ids present, for updates and deletes
  var nextID = 1
  var written = 0
  while written < changes {
    try database.write { db in
      let insert = try db.cachedStatement(sql: insertSQL)
      let update = try db.cachedStatement(sql: "UPDATE items SET count = ?, score = ? WHERE id = ?")
      let delete = try db.cachedStatement(sql: "DELETE FROM items WHERE id = ?")
      for _ in 0..<min(1000, changes - written) {
        let choice = random.next() % 10
        if choice < 6 || live.count < 100 {
          try insert.execute(arguments: arguments(nextID))
          live.append(nextID)
          nextID += 1
        } else if choice < 9 {
          let id = live[Int(random.next() % UInt64(live.count))]
          try update.execute(arguments: [Int(random.next() % 1000), Double(random.next() % 1000) / 8, id])
        } else {
          let index = Int(random.next() % UInt64(live.count))
          try delete.execute(arguments: [live[index]])
          live.swapAt(index, live.count - 1)
          live.removeLast()
        }
        written += 1
      }
    }
  }
  return written
}

/// Inserts `rows` with one prepared statement into a fresh file.
func insertFinalRows(_ rows: [Row], into path: String) throws -> Double {
  let queue = try DatabaseQueue(path: path)
  try queue.writeWithoutTransaction { db in
    // The same settings as the replay's connection (synchronous off, a 64 MiB page cache).
    try db.execute(sql: "PRAGMA synchronous = OFF; PRAGMA cache_size = -65536")
    try db.execute(sql: schema)
  }
  return try measure {
    try queue.write { db in
      let statement = try db.cachedStatement(sql: insertSQL)
      for row in rows { try statement.execute(arguments: StatementArguments(row.databaseValues)) }
    }
  }
}

func runReplayBenchmark(changes: Int, repeats: Int, folder: URL) throws {
  print("\nreplay: a log of \(changes) row changes (60% insert, 30% update, 10% delete; 1,000 per event)")
  let source = folder.appendingPathComponent("replay-source.sqlite").path
  let built = try measure { _ = try buildReplayLog(path: source, changes: changes) }
  let archive = try ChronicleArchive(path: source)
  let finalRows = try archive.read { db in try Row.fetchAll(db, sql: "SELECT id, title, count, score, listID FROM items ORDER BY id") }
  let events = try archive.log.count()
  let logBytes = try archive.read { db in try Int.fetchOne(db, sql: "SELECT sum(stored_size) FROM chronicle_events") ?? 0 }
  print(String(format: "  log: %d events, %.1f MB stored, %d final rows; written through Chronicle in %.2f s",
               events, Double(logBytes) / 1e6, finalRows.count, built))

  var best = ["insert": Double.infinity, "tables": Double.infinity, "database": Double.infinity]
  let live = try archive.digests(tables: ["items"])
  for run in 0..<repeats {
    best["insert"] = min(best["insert"]!, try insertFinalRows(finalRows, into: folder.appendingPathComponent("insert-\(run).sqlite").path))
    for keepsLog in [false, true] {
      let path = folder.appendingPathComponent("replay-\(run)-\(keepsLog).sqlite").path
      var report: ReplayReport?
      let seconds = try measure { report = try archive.replay(into: path, options: ReplayOptions(keepsLog: keepsLog, computesDigests: false)) }
      let replayed = try DatabaseQueue(path: path).read { db in try TableDigest.compute(db, tables: ["items"]) }
      guard report?.eventCount == events, replayed == live else { fatalError("the replay differs from the live table: \(replayed) vs \(live)") }
      best[keepsLog ? "database" : "tables"] = min(best[keepsLog ? "database" : "tables"]!, seconds)
      try? FileManager.default.removeItem(atPath: path)
    }
  }
  let insertRate = Double(finalRows.count) / best["insert"]!
  print("  " + "scenario".padding(toLength: 52, withPad: " ", startingAt: 0) + "seconds   rate/s        ratio (time)")
  print("  " + "insert the final rows (prepared statement)".padding(toLength: 52, withPad: " ", startingAt: 0)
    + String(format: "%7.2f   %9.0f rows   1.00x", best["insert"]!, insertRate))
  for (key, name) in [("tables", "replay, tables only"), ("database", "replay into a Chronicle database (log kept)")] {
    print("  " + name.padding(toLength: 52, withPad: " ", startingAt: 0)
      + String(format: "%7.2f   %9.0f changes %.2fx", best[key]!, Double(changes) / best[key]!, best[key]! / best["insert"]!))
  }
}

/// Rebuild throughput: the same history, then a migration (a column renamed,
/// one added), rebuilt through the upcasters and swapped in.
func runRebuildBenchmark(changes: Int, repeats: Int, folder: URL) throws {
  let path = folder.appendingPathComponent("rebuild-source.sqlite").path
  _ = try buildReplayLog(path: path, changes: changes)
  let database = try Chronicle.open(path: path)
  try database.migrate("rename and add") { migration in
    try migration.renameColumn("title", to: "name", in: "items")
    try migration.addColumn("archived", to: "items", type: "INTEGER", default: .integer(0))
  }
  let rows = try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items") ?? 0 }
  let finalRows = try database.read { db in try Row.fetchAll(db, sql: "SELECT id, name, count, score, listID FROM items ORDER BY id") }
  var best = (insert: Double.infinity, rebuild: Double.infinity)
  for run in 0..<repeats {
    best.insert = min(best.insert, try insertFinalRows(finalRows, into: folder.appendingPathComponent("rebuild-insert-\(run).sqlite").path))
    var report: RebuildReport?
    best.rebuild = min(best.rebuild, try measure { report = try database.rebuild() })
    guard report?.swapped == true, report?.differences == nil else { fatalError("the rebuild changed the tables: \(String(describing: report?.differences))") }
  }
  print("\nrebuild: the same history, then a migration (rename a column, add one); \(rows) rows")
  print("  " + "insert the final rows (prepared statement)".padding(toLength: 52, withPad: " ", startingAt: 0)
    + String(format: "%7.2f   %9.0f rows   1.00x", best.insert, Double(rows) / best.insert))
  print("  " + "rebuild through upcasters, verify, swap".padding(toLength: 52, withPad: " ", startingAt: 0)
    + String(format: "%7.2f   %9.0f changes %.2fx", best.rebuild, Double(changes) / best.rebuild, best.rebuild / best.insert))
}

/// A small deterministic generator, so every run replays the same history.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
