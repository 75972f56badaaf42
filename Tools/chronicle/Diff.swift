import ArgumentParser
import Chronicle
import Foundation

struct Diff: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Compare two databases, or one database at two points of its history: rows added, removed and changed, per table, down to columns.",
    discussion: "Exit status 0 when they hold the same rows, 1 when they differ.",
    )

  @Argument(help: "The first database.") var first: String
  @Argument(help: "The second database (or give --at twice).") var second: String?
  @Option(help: "A point of the first database's history (event or time); give it twice.") var at: [String] = []
  @Option(parsing: .upToNextOption, help: "Compare only these tables.") var tables: [String] = []
  @Option(help: "List at most this many rows per table and kind.") var limit = 50
  @Flag(help: "Print JSON.") var json = false

  func validate() throws {
    switch (second, at.count) {
    case (.some, 0), (nil, 2): break
    case (.some, _): throw ValidationError("give either a second database or --at twice, not both")
    default: throw ValidationError("give a second database, or two points of the first's history with --at E1 --at E2")
    }
    if limit < 0 { throw ValidationError("--limit cannot be negative") }
  }

  func run() throws {
    let names = tables.isEmpty ? nil : tables
    let diff: DatabaseDiff
    if let second {
      diff = try DatabaseDiff.compare(first, second, tables: names, rowLimit: limit)
    } else {
      let archive = try ChronicleArchive(path: first)
      let points = try at.map { try HistoryPoint.parse($0, in: archive.log) }
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-diff-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: directory) }
      var paths: [String] = []
      for (index, point) in points.enumerated() {
        let path = directory.appendingPathComponent("at-\(index).sqlite").path
        let bar = ProgressBar("replaying to \(point)")
        try archive.replay(into: path, options: ReplayOptions(until: point, keepsLog: false, progress: bar.replayProgress))
        bar.finish()
        paths.append(path)
      }
      diff = try DatabaseDiff.compare(paths[0], paths[1], tables: names, rowLimit: limit)
    }
    if json {
      try EventDescription.printJSON(["differ": diff.hasDifferences, "tables": diff.tables.map(Self.json)])
    } else {
      for table in diff.tables where table.hasDifferences { Self.printTable(table) }
      if !diff.hasDifferences { print("no differences in \(diff.tables.count) tables") }
    }
    if diff.hasDifferences { throw ExitCode(ExitStatus.finding) }
  }

  static func printTable(_ table: TableDiff) {
    switch table.presence {
    case .onlyInFirst: Swift.print("table \(table.table): only in the first (\(table.removedCount) rows)")
    case .onlyInSecond: Swift.print("table \(table.table): only in the second (\(table.addedCount) rows)")
    case .both: Swift.print("table \(table.table): \(table.addedCount) added, \(table.removedCount) removed, \(table.changedCount) changed")
    }
    if !table.columnsOnlyInFirst.isEmpty && table.presence == .both { Swift.print("  columns only in the first: \(table.columnsOnlyInFirst.joined(separator: ", "))") }
    if !table.columnsOnlyInSecond.isEmpty && table.presence == .both { Swift.print("  columns only in the second: \(table.columnsOnlyInSecond.joined(separator: ", "))") }
    for row in table.added { Swift.print("  + " + RowText.values(row)) }
    for row in table.removed { Swift.print("  - " + RowText.values(row)) }
    for row in table.changed {
      Swift.print("  ~ \(RowText.key(row.key))  " + row.changes.map(RowText.change).joined(separator: "  "))
    }
    let listed = table.added.count + table.removed.count + table.changed.count
    let total = table.addedCount + table.removedCount + table.changedCount
    if listed < total && table.presence == .both { Swift.print("  ... \(total - listed) more (raise --limit)") }
  }

  static func json(_ table: TableDiff) -> [String: Any] {
    [
      "table": table.table, "presence": table.presence.rawValue, "key": table.keyColumns,
      "columnsOnlyInFirst": table.columnsOnlyInFirst, "columnsOnlyInSecond": table.columnsOnlyInSecond,
      "addedCount": table.addedCount, "removedCount": table.removedCount, "changedCount": table.changedCount,
      "added": table.added.map(RowText.json), "removed": table.removed.map(RowText.json),
      "changed": table.changed.map { row -> [String: Any] in
        ["key": RowText.json(row.key),
         "changes": Dictionary(row.changes.map { ($0.column, RowText.json($0)) }, uniquingKeysWith: { first, _ in first })]
      },
    ]
  }
}
