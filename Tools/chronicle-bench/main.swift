// Chronicle benchmarks, side by side with plain GRDB in the same run.
//
//   swift run -c release chronicle-bench [--rows 100000] [--transactions 2000] [--repeat 3]
//                                        [--sync-rows 500000] [--replay-changes 1000000]
//                                        [--filesync-mib 256] [--maintenance-rows 20000] [--incremental-events 200000]
//                                        [--only capture|query|sync|incremental|olderwrite|replay|filesync|signing|membership|relay|maintenance]
//                                        [--scenario N]  (only the Nth capture scenario or incremental history, for profiling)
//   swift run -c release chronicle-bench --write-sync-source FILE [--sync-rows N]
//     writes the sync scenario's source peer to FILE and exits (to time
//     `chronicle serve` and `chronicle sync --peer` as separate processes).
//
// Each scenario writes the same rows with the same prepared statement into a
// fresh WAL database: once through plain GRDB (DatabasePool.write), once
// through Chronicle (capture + one zlib event per transaction). The best of
// --repeat runs is reported, as rows/s and as the ratio Chronicle / GRDB time.
// The query scenarios compare the typed builder with hand-written GRDB
// (QueryBenchmark.swift); the sync scenarios are in SyncBenchmark.swift, the
// replay scenarios in ReplayBenchmark.swift, one small sync after a long
// shared history in IncrementalSyncBenchmark.swift, the first merge of an
// older write into a long unfolded history in OlderWriteBenchmark.swift, the filesync example's in
// FileSyncBenchmark.swift, compaction and the first push in
// MaintenanceBenchmark.swift, the relay's in RelayBenchmark.swift (it runs the
// `chronicle` built beside it: build both, `swift build -c release`).
import Chronicle
import Foundation

struct Options {
  var rows = 100_000
  var transactions = 2_000
  var rowsPerTransaction = 10
  var repeats = 3
  var syncRows = 500_000  // 1,000,000 row changes: inserts, then updates
  var replayChanges = 1_000_000
  var fileSyncMiB = 256
  var maintenanceRows = 20_000  // and 4x as many
  var incrementalEvents = 200_000  // and a tenth as many
  var only: String?
  var scenario: Int?
  var syncSourcePath: String?

  init(_ arguments: [String]) {
    var iterator = arguments.makeIterator()
    while let argument = iterator.next() {
      switch argument {
      case "--rows": rows = Int(iterator.next() ?? "") ?? rows
      case "--transactions": transactions = Int(iterator.next() ?? "") ?? transactions
      case "--repeat": repeats = Int(iterator.next() ?? "") ?? repeats
      case "--sync-rows": syncRows = Int(iterator.next() ?? "") ?? syncRows
      case "--replay-changes": replayChanges = Int(iterator.next() ?? "") ?? replayChanges
      case "--filesync-mib": fileSyncMiB = Int(iterator.next() ?? "") ?? fileSyncMiB
      case "--maintenance-rows": maintenanceRows = Int(iterator.next() ?? "") ?? maintenanceRows
      case "--incremental-events": incrementalEvents = Int(iterator.next() ?? "") ?? incrementalEvents
      case "--only": only = iterator.next()
      case "--scenario": scenario = Int(iterator.next() ?? "")
      case "--write-sync-source": syncSourcePath = iterator.next()
      default:
        FileHandle.standardError.write(Data("unknown option \(argument)\nusage: chronicle-bench [--rows N] [--transactions N] [--repeat N] [--sync-rows N] [--replay-changes N] [--filesync-mib N] [--maintenance-rows N] [--incremental-events N] [--only capture|query|sync|incremental|olderwrite|replay|filesync|signing|membership|relay|maintenance] [--scenario N] [--write-sync-source FILE]\n".utf8))
        exit(2)
      }
    }
  }
}

let schema = """
  CREATE TABLE items (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    count INTEGER NOT NULL,
    score REAL,
    listID TEXT NOT NULL
  ) STRICT
  """
let insertSQL = "INSERT INTO items (id, title, count, score, listID) VALUES (?, ?, ?, ?, ?)"

func arguments(_ id: Int) -> StatementArguments {
  [id, "Item number \(id)", id % 97, Double(id) / 7, "list-\(id % 13)"]
}

/// A writer that runs a transaction: plain GRDB or Chronicle.
struct Target {
  var name: String
  var write: (_ body: (Database) throws -> Void) throws -> Void
  var close: () -> Void
}

/// `tracked: false` creates the table without STRICT, which Chronicle leaves
/// alone: what remains is the cost of the hook and of the write wrapper.
/// `guarded: false` opens Chronicle without guard triggers, to show what they cost.
func makeTarget(chronicle: Bool, tracked: Bool = true, guarded: Bool = true, folder: URL) throws -> Target {
  let path = folder.appendingPathComponent(chronicle ? "chronicle-\(UUID()).sqlite" : "grdb-\(UUID()).sqlite").path
  let schema = tracked ? schema : schema.replacingOccurrences(of: ") STRICT", with: ")")
  if chronicle {
    var configuration = ChronicleConfiguration()
    configuration.guardsTrackedTables = guarded
    // Written through `any DatabaseWriter`, as SQLiteData apps write
    // `@Dependency(\.defaultDatabase) var database; try database.write { … }`.
    let database: any DatabaseWriter = try Chronicle.open(path: path, configuration: configuration)
    try database.write { db in try db.execute(sql: schema) }
    return Target(name: guarded ? "Chronicle" : "unguarded", write: { body in try database.write(body) }, close: {})
  } else {
    let pool = try DatabasePool(path: path)
    try pool.write { db in try db.execute(sql: schema) }
    return Target(name: "GRDB", write: { body in try pool.write(body) }, close: {})
  }
}

func measure(_ body: () throws -> Void) rethrows -> Double {
  let start = ContinuousClock.now
  try body()
  let elapsed = ContinuousClock.now - start
  return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func oneBigTransaction(_ target: Target, rows: Int) throws -> Double {
  try measure {
    try target.write { db in
      let statement = try db.cachedStatement(sql: insertSQL)
      for id in 1...rows { try statement.execute(arguments: arguments(id)) }
    }
  }
}

func manySmallTransactions(_ target: Target, transactions: Int, rowsEach: Int) throws -> Double {
  try measure {
    for transaction in 0..<transactions {
      try target.write { db in
        let statement = try db.cachedStatement(sql: insertSQL)
        for offset in 1...rowsEach { try statement.execute(arguments: arguments(transaction * rowsEach + offset)) }
      }
    }
  }
}

func updateAll(_ target: Target) throws -> Double {
  try measure {
    try target.write { db in try db.execute(sql: "UPDATE items SET count = count + 1, score = score * 2") }
  }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
if let path = options.syncSourcePath {
  let workload = SyncWorkload(rows: options.syncRows, rowsPerEvent: 100)
  let source = try workload.makeSource(at: path)
  print("wrote \(try source.log.count()) events (\(workload.rowChanges) row changes) to \(path)")
  exit(0)
}
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-bench-\(UUID())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

struct Scenario {
  var name: String
  var rows: Int
  var tracked = true
  var run: (Target) throws -> Double
}

let scenarios = [
  Scenario(name: "1 transaction x \(options.rows) rows (insert)", rows: options.rows) {
    try oneBigTransaction($0, rows: options.rows)
  },
  Scenario(name: "\(options.transactions) transactions x \(options.rowsPerTransaction) rows (insert)",
           rows: options.transactions * options.rowsPerTransaction) {
    try manySmallTransactions($0, transactions: options.transactions, rowsEach: options.rowsPerTransaction)
  },
  Scenario(name: "1 UPDATE of \(options.rows) rows, 2 columns", rows: options.rows) { target in
    _ = try oneBigTransaction(target, rows: options.rows)
    return try updateAll(target)
  },
  Scenario(name: "1 transaction x \(options.rows) rows, untracked", rows: options.rows, tracked: false) {
    try oneBigTransaction($0, rows: options.rows)
  },
]

#if DEBUG
print("warning: debug build; run with -c release for meaningful figures\n")
#endif
print("chronicle-bench: best of \(options.repeats) runs, fresh WAL database per run\n")
@MainActor func runCaptureBenchmark() throws {
  print("scenario".padding(toLength: 46, withPad: " ", startingAt: 0) + "GRDB rows/s   Chronicle rows/s   ratio (time)   without guards")
  for (number, scenario) in scenarios.enumerated() where options.scenario.map({ $0 == number + 1 }) ?? true {
    var best = ["GRDB": Double.infinity, "Chronicle": Double.infinity, "unguarded": Double.infinity]
    for _ in 0..<options.repeats {
      for (chronicle, guarded) in [(false, true), (true, true), (true, false)] {
        let target = try makeTarget(chronicle: chronicle, tracked: scenario.tracked, guarded: guarded, folder: folder)
        let seconds = try scenario.run(target)
        best[target.name] = min(best[target.name]!, seconds)
        target.close()
      }
    }
    let grdb = Double(scenario.rows) / best["GRDB"]!
    let chronicle = Double(scenario.rows) / best["Chronicle"]!
    let ratio = best["Chronicle"]! / best["GRDB"]!
    let unguarded = best["unguarded"]! / best["GRDB"]!
    print(scenario.name.padding(toLength: 46, withPad: " ", startingAt: 0)
      + String(format: "%11.0f   %16.0f   %11.2fx   %13.2fx", grdb, chronicle, ratio, unguarded))
  }
}

if options.only == nil || options.only == "capture" { try runCaptureBenchmark() }
if options.only == nil || options.only == "query" { try runQueryBenchmark(rows: options.rows, repeats: options.repeats, folder: folder) }
if options.only == nil || options.only == "sync" {
  try await runSyncBenchmark(SyncWorkload(rows: options.syncRows, rowsPerEvent: 100), repeats: options.repeats, folder: folder)
}
if options.only == nil || options.only == "incremental" {
  try await runIncrementalSyncBenchmark(
    histories: [(options.incrementalEvents / 10, false), (options.incrementalEvents, false), (options.incrementalEvents, true)]
      .enumerated().filter { entry in options.scenario.map { $0 == entry.offset + 1 } ?? true }.map(\.element),
    repeats: options.repeats, folder: folder)
}
if options.only == nil || options.only == "olderwrite" {
  for behind in [1_000, nil] {
    try await runOlderWriteBenchmark(histories: [options.incrementalEvents / 10, options.incrementalEvents], behind: behind, folder: folder)
  }
}
if options.only == nil || options.only == "replay" {
  try runReplayBenchmark(changes: options.replayChanges, repeats: options.repeats, folder: folder)
  try runRebuildBenchmark(changes: options.replayChanges, repeats: options.repeats, folder: folder)
}
if options.only == nil || options.only == "signing" {
  try await runSigningBenchmark(
    transactions: options.transactions, rowsEach: options.rowsPerTransaction,
    sync: SyncWorkload(rows: options.syncRows, rowsPerEvent: 100), repeats: options.repeats, folder: folder)
}
if options.only == nil || options.only == "signing" || options.only == "membership" {
  try runMembershipBenchmark(sizes: [50, 200], batch: SyncWorkload(rows: 10_000, rowsPerEvent: 100), repeats: options.repeats, folder: folder)
}
if options.only == nil || options.only == "relay" {
  try await runRelayBenchmark(SyncWorkload(rows: options.syncRows, rowsPerEvent: 100), repeats: options.repeats, folder: folder)
}
if options.only == nil || options.only == "maintenance" {
  try await runMaintenanceBenchmark(rows: options.maintenanceRows, folder: folder)
}
if options.only == nil || options.only == "filesync" {
  try await runFileSyncBenchmark(FileSyncWorkload(largeMiB: options.fileSyncMiB), repeats: options.repeats, folder: folder)
}
