import ArgumentParser
import Chronicle

struct Log: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "List the events of the log, oldest first (the file is opened read-only).")

  @Argument(help: "The SQLite file.") var database: String
  @Option(help: "Only events that change this table.") var table: String?
  @Option(help: "Only events from this peer (UUID).") var origin: String?
  @Option(help: "At most this many events.") var limit: Int?
  @Flag(help: "One JSON object per line.") var json = false

  func run() throws {
    var filter = EventFilter(table: table, limit: limit)
    if let origin {
      guard let peer = PeerID(origin) else { throw ValidationError("--origin must be a peer UUID, got \(origin)") }
      filter.origin = peer
    }
    reportingErrors {
      let db = try ChronicleArchive(path: database)
      try db.log.forEach(filter) { stored in
        if json {
          try EventDescription.printJSON(EventDescription.json(stored, withOperations: false))
        } else {
          print(EventDescription.summary(stored))
        }
      }
    }
  }
}

struct Show: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Show one event and every change in it.")

  @Argument(help: "The SQLite file.") var database: String
  @Argument(help: "A log position (12) or origin:sequence (4f2c1a9e:3).") var event: String
  @Flag(help: "Print JSON.") var json = false

  func run() {
    reportingErrors {
      let db = try ChronicleArchive(path: database)
      let stored = try db.log.event(reference: event)
      if json {
        try EventDescription.printJSON(EventDescription.json(stored, withOperations: true))
      } else {
        print(EventDescription.summary(stored))
        EventDescription.operations(stored.event).forEach { print("  " + $0) }
      }
    }
  }
}
