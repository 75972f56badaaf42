import ArgumentParser
import Chronicle
import Foundation

struct Adopt: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Record rows written outside Chronicle as one event, so that every peer gets them.",
    discussion: """
      Tracked tables refuse writes from other tools (their guard triggers); when those triggers were \
      removed, the database refuses to send its events until this command or `chronicle rebuild` has \
      run. adopt replays the log into shadow tables, as rebuild does, compares them with the live \
      tables, and appends one event that changes the log's rows into the live ones: the live rows \
      stay as they are and reach the other peers. rebuild does the opposite: it discards those writes. \
      Exit status 0 when done, 1 when the shadow tables fail their checks.
      """)

  @Argument(help: "The Chronicle database.") var database: String

  func run() throws {
    let report = try Rebuild.rebuild(database, label: "replaying", RebuildOptions(adoptsLiveRows: true))
    if let differences = report.differences {
      print("differences (live first, log second):")
      for table in differences.tables where table.hasDifferences { Diff.printTable(table) }
    }
    if let event = report.adoptedEvent {
      print("adopted as event #\(event.id) \(event.event.id): \(event.event.rowChangeCount) row changes")
    } else {
      print("the live tables match the log: nothing to adopt")
    }
  }
}
