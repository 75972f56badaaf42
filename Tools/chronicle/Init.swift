import ArgumentParser
import Chronicle

struct Init: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Create a Chronicle database, or adopt an existing SQLite file.")

  @Argument(help: "The SQLite file.") var database: String

  func run() {
    reportingErrors {
      let db = try Chronicle.open(path: database)
      let identity = try db.identity
      print("peer \(db.peerID)")
      print("device key \(identity.keyFile.path)\(identity.canSign ? "" : " (missing: this copy cannot write; see chronicle help init)")")
      print("tracked tables: \(try db.trackedTables.joined(separator: ", "))")
      print("events: \(try db.log.count())")
    }
  }
}
