// Maintenance at two sizes: compacting a whole log, and the first push of one
// row to a peer that serves a long history, beside plain GRDB in the same run.
// The same workload at 4x the rows shows whether a cost grows with the data
// (4x) or faster.
import Chronicle
import ChronicleNetwork
import Foundation

/// One size's figures.
struct MaintenanceFigures {
  var rows: Int
  var events: Int
  var plainCopy: Double
  var compact: Double
  var firstPush: Double
  var laterPush: Double
}

func runMaintenanceBenchmark(rows: Int, folder: URL) async throws {
  var figures: [MaintenanceFigures] = []
  for size in [rows, rows * 4] {
    figures.append(try await maintenanceFigures(rows: size, folder: folder))
  }
  print("\nmaintenance: a log of N inserts then N two-column updates, 10 rows per transaction (one run per size)")
  print("size".padding(toLength: 34, withPad: " ", startingAt: 0)
    + "events   plain copy   compact (ratio)        first push   later push")
  for figure in figures {
    print("\(figure.rows) rows".padding(toLength: 34, withPad: " ", startingAt: 0)
      + String(
        format: "%6d   %8.3f s   %7.3f s (%6.2fx)   %8.3f s   %8.3f s",
        figure.events, figure.plainCopy, figure.compact, figure.compact / figure.plainCopy, figure.firstPush, figure.laterPush))
  }
  if figures.count == 2 {
    let (small, large) = (figures[0], figures[1])
    print(String(
      format: "growth for 4x the rows: plain copy %.1fx, compact %.1fx, first push %.1fx",
      large.plainCopy / small.plainCopy, large.compact / small.compact, large.firstPush / small.firstPush))
  }
}

private func maintenanceFigures(rows: Int, folder: URL) async throws -> MaintenanceFigures {
  let workload = SyncWorkload(rows: rows, rowsPerEvent: 10)

  // The first push: a peer with one new row sends it to a server whose own
  // history this is; the server merges it. Then a second row, for comparison.
  let server = try workload.makeSource(in: folder)
  let events = try server.log.count()
  var configuration = NetworkSyncConfiguration(key: .generate())
  configuration.logger.logLevel = .warning
  let listener = try await SyncServer.bind(server, host: "127.0.0.1", port: 0, configuration: configuration)
  let serving = Task { try await listener.run() }
  let client = try workload.makeTarget(in: folder)
  let transport = TCPTransport(host: "127.0.0.1", port: listener.port, configuration: configuration)
  var pushes: [Double] = []
  for id in [rows + 1, rows + 2] {
    try await client.write { db in try db.execute(sql: insertSQL, arguments: arguments(id)) }
    pushes.append(try await measureAsync {
      let sent = try await transport.send(from: client)
      // The first push carries the client's schema too.
      guard sent == (id == rows + 1 ? 2 : 1) else { throw BenchmarkFailure("the push sent \(sent) events") }
    })
  }
  listener.shutdown()
  try await serving.value
  guard try await server.read({ db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items") }) == rows + 2 else {
    throw BenchmarkFailure("the server does not hold the pushed rows")
  }

  return try MaintenanceFigures(
    rows: rows, events: events, plainCopy: 0, compact: 0, firstPush: pushes[0], laterPush: pushes[1]
  ).withCompaction(of: server, plainRows: rows + 2, folder: folder)
}

extension MaintenanceFigures {
  /// Compacts `server`'s whole log, and times plain GRDB copying as many rows.
  fileprivate func withCompaction(of server: ChronicleDatabase, plainRows: Int, folder: URL) throws -> MaintenanceFigures {
  let vector = try server.versionVector()
  let compact = try measure {
    let report = try server.compact(before: vector)
    guard report.remainingEvents == 0 else { throw BenchmarkFailure("compaction left \(report.remainingEvents) events") }
  }

  // Plain GRDB: copy the same rows into a new file.
  let plain = try DatabaseQueue(path: folder.appendingPathComponent("plain-\(UUID()).sqlite").path)
  try plain.write { db in
    try db.execute(sql: schema)
    for id in 1...plainRows { try db.execute(sql: insertSQL, arguments: arguments(id)) }
  }
  let copyPath = folder.appendingPathComponent("copy-\(UUID()).sqlite").path
  let plainCopy = try measure {
    try plain.writeWithoutTransaction { db in
      try db.execute(sql: "ATTACH DATABASE ? AS copy", arguments: [copyPath])
      try db.inTransaction {
        try db.execute(sql: schema.replacingOccurrences(of: "CREATE TABLE items", with: "CREATE TABLE copy.items"))
        try db.execute(sql: "INSERT INTO copy.items SELECT * FROM main.items")
        return .commit
      }
      try db.execute(sql: "DETACH DATABASE copy")
    }
  }
  var figures = self
  figures.plainCopy = plainCopy
  figures.compact = compact
  return figures
  }
}
