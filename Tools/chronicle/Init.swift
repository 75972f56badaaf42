import ArgumentParser
import Chronicle

struct Init: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Create a Chronicle database, or adopt an existing SQLite file.")

  @Argument(help: "The SQLite file.") var database: String

  func run() {
    reportingErrors {
      let db = try Chronicle.open(path: database)
      print("peer \(db.peerID)")
      print("tracked tables: \(try db.trackedTables.joined(separator: ", "))")
      print("events: \(try db.log.count())")
    }
  }
}
