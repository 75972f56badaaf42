import ArgumentParser
import Chronicle
import Foundation

struct Verify: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Check every event's checksum and decoding, each origin's sequence continuity, and that a replay of the log reproduces the tracked tables.",
    discussion: "Exit status 0 when all holds, 1 when something does not (each finding is printed).")

  @Argument(help: "The Chronicle database (opened read-only).") var database: String
  @Flag(help: "Print JSON.") var json = false

  func run() throws {
    let archive = try ChronicleArchive(path: database)
    let bar = ProgressBar("replaying")
    let report = try archive.verify(progress: bar.replayProgress)
    bar.finish()
    if json {
      try EventDescription.printJSON([
        "valid": report.isValid, "events": report.eventCount,
        "problems": report.problems.map(Self.json), "warnings": report.warnings.map(Self.json),
        "tables": report.tables.map { check -> [String: Any] in
          ["table": check.table, "rows": check.live.rowCount, "digest": check.live.hash,
           "replayedRows": check.replayed?.rowCount ?? NSNull(), "replayedDigest": check.replayed?.hash ?? NSNull(),
           "matches": check.matches]
        },
        "differences": report.differences.map { $0.tables.filter(\.hasDifferences).map(Diff.json) } ?? [],
      ])
    } else {
      print("\(report.eventCount) events")
      for check in report.tables {
        let replayed = check.replayed.map { "\($0.rowCount) rows replayed" } ?? "not replayed"
        print("  \(check.table): \(check.live.rowCount) rows live, \(replayed)  \(check.matches ? "ok" : "DIFFERS")")
      }
      for finding in report.problems { print("problem: \(finding.message)") }
      for finding in report.warnings { print("warning: \(finding.message)") }
      if let differences = report.differences {
        print("differences (live first, replay second):")
        for table in differences.tables where table.hasDifferences { Diff.printTable(table) }
      }
      print(report.isValid ? "ok" : "FAILED: \(report.problems.count) problem(s)")
    }
    if !report.isValid { throw ExitCode(ExitStatus.finding) }
  }

  static func json(_ finding: VerificationReport.Finding) -> [String: Any] {
    ["kind": finding.kind.rawValue, "position": finding.position ?? NSNull(), "event": finding.event ?? NSNull(), "message": finding.message]
  }
}
