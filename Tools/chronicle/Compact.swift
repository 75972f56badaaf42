import ArgumentParser
import Chronicle
import Foundation

struct Compact: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Replace the oldest events by a baseline of the tables, up to a version vector every known peer has acknowledged.",
    discussion: """
      VECTOR is PEER-UUID:SEQUENCE[,...] (as `chronicle peers` prints it): the events every peer is known to hold. \
      Only the longest prefix of the log those events make up is pruned. Replay, verify, rebuild and step start \
      from the baseline afterwards; a new peer starts from `chronicle clone`.
      """)

  @Argument(help: "The Chronicle database.") var database: String
  @Option(help: "The version vector every known peer has acknowledged.") var before: String
  @Flag(help: "Print JSON.") var json = false

  func run() throws {
    guard FileManager.default.fileExists(atPath: database) else { throw ChronicleError.noSuchFile(database) }
    let vector = try VersionVector(parsing: before)
    let db = try Chronicle.open(path: database)
    let report = try db.compact(before: vector)
    if json {
      try EventDescription.printJSON([
        "through": report.throughPosition.map { $0 as Any } ?? NSNull(), "pruned": report.prunedEvents, "remaining": report.remainingEvents,
        "baselineRows": report.baselineRows, "prunedBytes": report.prunedBytes, "baselineBytes": report.baselineBytes,
      ])
    } else if let through = report.throughPosition {
      print("pruned \(report.prunedEvents) events through #\(through) (\(report.prunedBytes) bytes) into a baseline of \(report.baselineRows) rows (\(report.baselineBytes) bytes); \(report.remainingEvents) events remain")
    } else {
      print("nothing to prune: the vector does not cover the log's first event")
    }
  }
}

struct Clone: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Start a new peer from a database: its tables and merge state, a baseline of its log, a new peer identity.")

  @Argument(help: "The Chronicle database (opened read-only).") var database: String
  @Option(help: "The new peer's file (must not exist).") var into: String

  func run() throws {
    let archive = try ChronicleArchive(path: database)
    let peer = try archive.clone(into: into)
    print("new peer \(peer) in \(into)")
  }
}
