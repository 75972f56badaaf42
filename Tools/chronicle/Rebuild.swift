import ArgumentParser
import Chronicle
import Foundation

struct Rebuild: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Rebuild the tracked tables from the whole log, through the upcasters of its migrations, and swap them in.",
    discussion: """
      The history is replayed into shadow tables (a side file, DATABASE.rebuild, checkpointed: an \
      interrupted rebuild resumes), checked, compared with the live tables and swapped in with one \
      transaction; readers and writers keep working meanwhile. Migrations whose steps need the app's \
      code (conversions, custom upcasters) can only be rebuilt from the app (ChronicleDatabase.rebuild). \
      Exit status 0 when done (or, with --dry-run, when nothing would change), 1 when a dry run finds \
      differences or the shadow tables fail their checks.
      """)

  @Argument(help: "The Chronicle database.") var database: String
  @Flag(help: "Build and compare, but leave the live tables as they are.") var dryRun = false
  @Flag(help: "Print JSON.") var json = false

  func run() throws {
    let report = try Self.rebuild(database, label: "rebuilding", RebuildOptions(isDryRun: dryRun))
    let differing = report.tables.filter { !$0.matches }
    if json {
      try EventDescription.printJSON([
        "swapped": report.swapped, "events": report.eventCount, "rowChanges": report.rowChangeCount,
        "resumedAfter": report.resumedAfter ?? NSNull(),
        "tables": report.tables.map { check -> [String: Any] in
          ["table": check.table, "liveRows": check.live.rowCount, "rebuiltRows": check.replayed?.rowCount ?? NSNull(), "changed": !check.matches]
        },
        "differences": report.differences.map { $0.tables.filter(\.hasDifferences).map(Diff.json) } ?? [],
      ])
    } else {
      if let resumed = report.resumedAfter { print("resumed after event #\(resumed)") }
      print("replayed \(report.eventCount) events (\(report.rowChangeCount) row changes) into shadow tables")
      for check in report.tables {
        print("  \(check.table): \(check.live.rowCount) rows live, \(check.replayed?.rowCount ?? 0) rebuilt  \(check.matches ? "same" : "CHANGED")")
      }
      if let differences = report.differences {
        print("differences (live first, rebuilt second):")
        for table in differences.tables where table.hasDifferences { Diff.printTable(table) }
      }
      print(report.swapped ? "swapped in" : "dry run: nothing swapped")
    }
    if dryRun && !differing.isEmpty { throw ExitCode(ExitStatus.finding) }
  }

  /// Opens `path` and rebuilds it with `options` and a progress bar; a
  /// failed check of the shadow tables exits 1.
  static func rebuild(_ path: String, label: String, _ options: RebuildOptions) throws -> RebuildReport {
    guard FileManager.default.fileExists(atPath: path) else { throw ChronicleError.noSuchFile(path) }
    let db = try Chronicle.open(path: path)
    let bar = ProgressBar(label)
    var options = options
    options.progress = bar.replayProgress
    do {
      let report = try db.rebuild(options: options)
      bar.finish()
      return report
    } catch ChronicleError.rebuildFailed(let reason) {
      bar.finish()
      printError("error: \(ChronicleError.rebuildFailed(reason))")
      throw ExitCode(ExitStatus.finding)
    } catch {
      bar.finish()
      throw error
    }
  }
}
