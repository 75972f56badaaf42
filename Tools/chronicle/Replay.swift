import ArgumentParser
import Chronicle
import Foundation

struct Replay: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Rebuild the database from its log alone, as it was at a point in history, into a new file.",
    discussion: """
      The source is opened read-only. The result is a Chronicle database holding the replayed log \
      (open it with the other tools), or only the tables with --tables or --tables-only. \
      The replay is strict: an event that cannot be applied stops it (exit status 1) with the event and \
      the reason, and no file is left; --lenient skips such events and lists them.
      """)

  @Argument(help: "The Chronicle database.") var database: String
  @Option(help: "The new file to write (must not exist).") var into: String
  @Option(help: "Stop after this event (log position or origin:sequence) or at this time (ISO 8601).") var until: String?
  @Option(parsing: .upToNextOption, help: "Replay only these tables (and the tables they reference).") var tables: [String] = []
  @Flag(help: "Skip events that cannot be applied, instead of stopping.") var lenient = false
  @Flag(help: "Write only the application tables, not the replayed log.") var tablesOnly = false
  @Flag(help: "Print JSON.") var json = false

  func run() throws {
    let archive = try ChronicleArchive(path: database)
    let point = try until.map { try HistoryPoint.parse($0, in: archive.log) }
    let bar = ProgressBar("replaying")
    let options = ReplayOptions(
      until: point, tables: tables.isEmpty ? nil : Set(tables), isStrict: !lenient, keepsLog: !tablesOnly,
      progress: bar.replayProgress)
    let report: ReplayReport
    do {
      report = try archive.replay(into: into, options: options)
      bar.finish()
    } catch {
      bar.finish()
      throw error
    }
    if json {
      try EventDescription.printJSON([
        "output": into, "events": report.eventCount, "rowChanges": report.rowChangeCount,
        "until": point?.description ?? NSNull(), "lastEvent": report.lastEvent?.description ?? NSNull(),
        "tables": report.digests.map(RowText.json),
        "skipped": report.failures.map { ["position": $0.position, "event": $0.event.description, "reason": $0.reason] },
      ])
    } else {
      print("replayed \(report.eventCount) events (\(report.rowChangeCount) row changes) into \(into)"
        + (point.map { " until \($0)" } ?? "") + (report.lastEvent.map { ", last \($0)" } ?? ""))
      for digest in report.digests { print("  \(digest.table): \(digest.rowCount) rows  \(digest.hash.prefix(16))") }
      for failure in report.failures { print("skipped #\(failure.position) \(failure.event): \(failure.reason)") }
    }
    if !report.failures.isEmpty { throw ExitCode(ExitStatus.finding) }
  }
}
