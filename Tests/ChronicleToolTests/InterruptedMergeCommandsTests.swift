import Chronicle
import ChronicleTestSupport
import Foundation
import Testing

@testable import Chronicle

/// `chronicle sync` killed with SIGKILL at random points of a merge: every
/// kill leaves a database that `chronicle verify` passes, and the run that
/// finally completes leaves tables, merge state and log exactly as one
/// uninterrupted run does.
@Suite("chronicle sync killed mid-merge")
struct InterruptedMergeCommandsTests {
  let tool = ReplayCommandsTests()

  // One seed: its child processes take cores from the network tests beside it.
  @Test(arguments: [UInt64(0x5EED_0002)])
  func killedMergesLeaveAConsistentDatabase(seed: UInt64) async throws {
    try await offThePool { try killedMerges(seed: seed) }
  }

  func killedMerges(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-kill-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
    let folder = path("shared")

    // Two writers take turns: each round writes, then syncs through the
    // folder, so each leaves a dozen segments (one merge transaction each)
    // and later rounds update and delete rows the other peer wrote.
    let writers = [path("a.sqlite"), path("b.sqlite")]
    var workloads = writers.enumerated().map { index, path in Workload(path: path, idBase: (index + 1) * 1_000_000) }
    let victim = Workload(path: path("c.sqlite"), idBase: 3_000_000)
    for workload in workloads + [victim] { try workload.createTables() }
    for _ in 0..<12 {
      for index in workloads.indices {
        try workloads[index].writeRound(events: 50, using: &random)
        let synced = try tool.chronicle("sync", workloads[index].path, "--folder", folder)
        #expect(synced.status == 0, "\(synced.errors)")
      }
    }
    // The victim has a history of its own, so its first merge folds it first.
    var victimWriter = victim
    try victimWriter.writeRound(events: 150, using: &random)

    // The reference: a copy of the victim (same device) merges the same
    // segments, in a copy of the folder, uninterrupted.
    let reference = path("reference.sqlite")
    let referenceFolder = path("reference-shared")
    // A consistent copy, WAL included, even while the victim's last
    // connection is still closing (a file copy then can tear).
    var waiting = Configuration()
    waiting.busyMode = .timeout(30)
    try DatabaseQueue(path: victim.path, configuration: waiting).backup(to: DatabaseQueue(path: reference, configuration: waiting))
    try FileManager.default.copyItem(atPath: victim.path + "-device.key", toPath: reference + "-device.key")
    try FileManager.default.copyItem(atPath: folder, toPath: referenceFolder)
    let started = ContinuousClock.now
    let uninterrupted = try tool.chronicle("sync", reference, "--folder", referenceFolder)
    let duration = ContinuousClock.now - started
    #expect(uninterrupted.status == 0, "seed \(seed): \(uninterrupted.errors)")

    // Kill the victim's sync at random points, checking the database after
    // each kill. The window shrinks with the events left to merge, so most
    // kills land inside a merge rather than after it.
    let before = try eventCount(victim.path), total = try eventCount(reference)
    var kills: [String] = []
    for _ in 0..<6 {
      let left = Double(total - (try eventCount(victim.path))) / Double(total - before)
      guard left > 0 else { break }
      let delay = duration * max(0.15, left) * Double.random(in: 0.1..<1.0, using: &random)
      let sync = try ChildProcess("chronicle", ["sync", victim.path, "--folder", folder])
      Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) * 1e-18)
      let status = sync.stop(with: SIGKILL)
      kills.append("\(delay) (status \(status), \(try eventCount(victim.path)) of \(total) events)")
      let verified = try tool.chronicle("verify", victim.path)
      #expect(verified.status == 0, "seed \(seed), killed after \(kills): \(verified.output) \(verified.errors)")
    }
    let completed = try tool.chronicle("sync", victim.path, "--folder", folder)
    #expect(completed.status == 0, "seed \(seed), killed after \(kills): \(completed.errors)")

    let (merged, expected) = try (snapshot(victim.path), snapshot(reference))
    #expect(merged.digests == expected.digests, "seed \(seed), killed after \(kills)")
    #expect(merged.events == expected.events, "seed \(seed), killed after \(kills): \(difference(merged.events, expected.events))")
    #expect(merged.mergeState == expected.mergeState, "seed \(seed), killed after \(kills): \(difference(merged.mergeState, expected.mergeState))")
    #expect(merged.mergeState.count > 1_000)
    let rebuilt = try tool.chronicle("rebuild", victim.path, "--dry-run")
    #expect(rebuilt.status == 0, "seed \(seed), killed after \(kills): \(rebuilt.output) \(rebuilt.errors)")
  }

  /// The lines only one side has, a few of each.
  func difference(_ merged: [String], _ expected: [String]) -> String {
    let (mine, theirs) = (Set(merged), Set(expected))
    return "only after the kills: \(mine.subtracting(theirs).sorted().prefix(5)); only uninterrupted: \(theirs.subtracting(mine).sorted().prefix(5))"
  }

  func eventCount(_ path: String) throws -> Int { try Chronicle.open(path: path).log.count() }

  /// What must not depend on where merges were interrupted.
  struct Snapshot: Equatable {
    var digests: [TableDigest]
    /// Every event held: origin, sequence and checksum.
    var events: [String]
    /// Every row's merge state: table, key, column versions, delete, parking, retained values.
    var mergeState: [String]
  }

  func snapshot(_ path: String) throws -> Snapshot {
    let database = try Chronicle.open(path: path)
    return try database.read { db in
      Snapshot(
        digests: try TableDigest.compute(db, tables: ["items", "lists"]),
        events: try String.fetchAll(db, sql: "SELECT hex(origin) || ':' || sequence || ':' || checksum FROM chronicle_events ORDER BY 1"),
        mergeState: try MergeStore(db: db).allStates().map(Self.describe).sorted())
    }
  }

  /// A merge state as text that does not depend on the order its parts were stored in.
  static func describe(_ named: NamedMergeState) -> String {
    let state = named.state
    let clocks = state.clocks.sortedByColumn().map { "\($0.column)@\($0.version)" }
    let retained = state.retained.map { "\($0.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })" } ?? "none"
    return "\(named.table) \(Array(named.key)) complete \(state.isComplete) deleted \(state.deleted.map(String.init(describing:)) ?? "-") "
      + "clocks \(clocks) parked \(state.parkedReason?.rawValue ?? "-") retained \(retained)"
  }

  /// One peer's random writes: lists and items (each item in a list, deleted
  /// with it), inserted under ids of its own, updated and deleted wherever
  /// they came from.
  struct Workload {
    let path: String
    let idBase: Int
    var nextID = 0

    init(path: String, idBase: Int) {
      self.path = path
      self.idBase = idBase
    }

    func createTables() throws {
      try Chronicle.open(path: path).write { db in
        try db.execute(sql: """
          CREATE TABLE lists (id INTEGER PRIMARY KEY, name TEXT NOT NULL) STRICT;
          CREATE TABLE items (
            id INTEGER PRIMARY KEY,
            list INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
            title TEXT NOT NULL,
            rank REAL,
            done INTEGER NOT NULL DEFAULT 0
          ) STRICT;
          """)
      }
    }

    mutating func writeRound(events: Int, using random: inout SeededGenerator) throws {
      let database = try Chronicle.open(path: path)
      for _ in 0..<events {
        let changes = Int.random(in: 1...16, using: &random)
        let choices: [Int] = (0..<changes).map { _ in Int.random(in: 0..<100, using: &random) }
        let seeds: [Int] = (0..<changes).map { _ in Int.random(in: 0..<Int.max, using: &random) }
        try database.write { db in
          for (choice, seed) in zip(choices, seeds) {
            let lists = try Int.fetchAll(db, sql: "SELECT id FROM lists ORDER BY id")
            if lists.isEmpty || choice < 4 {
              nextID += 1
              try db.execute(sql: "INSERT INTO lists VALUES (?, ?)", arguments: [idBase + nextID, "list \(seed % 1000)"])
            } else if choice < 55 {
              nextID += 1
              let rank: Double? = seed % 5 == 0 ? nil : Double(seed % 10_000) / 7
              try db.execute(
                sql: "INSERT INTO items (id, list, title, rank) VALUES (?, ?, ?, ?)",
                arguments: [idBase + nextID, lists[seed % lists.count], "item \(seed % 100_000)", rank])
            } else if choice < 90 {
              try db.execute(
                sql: "UPDATE items SET title = ?, done = ? WHERE id = (SELECT id FROM items ORDER BY id LIMIT 1 OFFSET ?)",
                arguments: ["edited \(seed % 1000)", seed % 2, seed % max(1, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM items") ?? 1)])
            } else if choice < 98 {
              try db.execute(
                sql: "DELETE FROM items WHERE id = (SELECT id FROM items ORDER BY id LIMIT 1 OFFSET ?)",
                arguments: [seed % max(1, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM items") ?? 1)])
            } else {
              try db.execute(sql: "DELETE FROM lists WHERE id = ?", arguments: [lists[seed % lists.count]])
            }
          }
        }
      }
    }
  }
}
