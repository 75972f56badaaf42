import ArgumentParser
import Chronicle
import Foundation

struct Refused: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List the received events this database refused, and why: the rest of their batches applied without them.")

  @Argument(help: "The SQLite file.") var database: String
  @Flag(help: "Print JSON.") var json = false

  func run() {
    reportingErrors {
      let db = try ChronicleArchive(path: database)
      let refused = try db.refusedEvents()
      if json {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        try EventDescription.printJSON(refused.map { event in
          [
            "origin": event.origin.description, "sequence": Int(event.sequence), "reason": event.reason, "source": event.source,
            "settled": event.settled, "bytes": event.bytes, "times": event.times,
            "firstRefused": formatter.string(from: event.firstRefused), "lastRefused": formatter.string(from: event.lastRefused),
          ] as [String: Any]
        })
        return
      }
      for event in refused {
        print("\(event.origin):\(event.sequence)  \(event.settled ? "settled" : "open")  \(event.times)x  from \(event.source): \(event.reason)")
      }
      print("\(refused.count) refused events")
    }
  }
}

/// Prints the events a sync refused on stderr; true when there were any
/// (the command then exits 1: a finding, the rest was applied).
func printRefused(_ refused: [RefusedEvent], database: String) -> Bool {
  guard !refused.isEmpty else { return false }
  for event in refused { printError("refused: event \(event)") }
  printError("\(refused.count) received events refused, the rest applied (chronicle refused \(database) lists them)")
  return true
}
