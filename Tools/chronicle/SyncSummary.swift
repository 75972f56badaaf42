import ArgumentParser
import Chronicle
import Foundation

/// What one sync or import did, as `chronicle sync` and `chronicle import`
/// report it: lines for a person, or one JSON object (`--json`) for a
/// script. Either way the command exits 1 when anything was refused,
/// rejected or left unsent: the rest was applied.
struct SyncSummary {
  /// `folder`, `peer`, `relay` or `bundle`.
  var transport: String
  /// The folder, peer address, relay URL or bundle file.
  var address: String
  var sentEvents: Int?
  /// The peer synced with (TCP).
  var remotePeer: String?
  /// Of those sent, how many the peer applied (TCP).
  var remoteApplied: Int?
  var merged: MergeReport
  /// Folder files merged from.
  var files = 0
  /// Folder files skipped while still being written.
  var skippedFiles = 0
  /// Folder files that could not be read, and why.
  var rejected: [String] = []
  /// Why some of this device's events were not sent (a relay's refusal).
  var unpushed: String?
  /// Why other members' events were not forwarded (a relay's refusal; not a failure).
  var unforwarded: String?

  /// Whether the command exits 1.
  var isFinding: Bool { !merged.refused.isEmpty || !rejected.isEmpty || unpushed != nil }

  /// Prints the summary (refusals and rejections on stderr, as lines), then
  /// exits 1 when it is a finding.
  func report(json: Bool, database: String) throws {
    if json {
      try EventDescription.printJSON(jsonObject)
    } else {
      printLines(database: database)
    }
    if isFinding { throw ExitCode(1) }
  }

  var jsonObject: [String: Any] {
    var object: [String: Any] = [
      "transport": transport, "address": address,
      "receivedEvents": merged.appliedEvents + merged.duplicateEvents, "appliedEvents": merged.appliedEvents,
      "duplicateEvents": merged.duplicateEvents, "rowChanges": merged.rowChanges, "parkedRows": merged.parkedRows,
      "refused": merged.refused.map { event in
        ["origin": event.origin.description, "sequence": Int(event.sequence), "reason": event.reason, "source": event.source, "settled": event.settled]
          as [String: Any]
      },
    ]
    if let sentEvents { object["sentEvents"] = sentEvents }
    if let remoteApplied { object["remoteApplied"] = remoteApplied }
    if let remotePeer { object["remotePeer"] = remotePeer }
    if transport == "folder" {
      object["files"] = files
      object["skippedFiles"] = skippedFiles
      object["rejected"] = rejected
    }
    if let unpushed { object["unpushed"] = unpushed }
    if let unforwarded { object["unforwarded"] = unforwarded }
    return object
  }

  private func printLines(database: String) {
    switch transport {
    case "peer": print("synced with peer \(remotePeer ?? "?") at \(address)")
    case "relay": print("synced through the relay at \(address)")
    default: break
    }
    if let sentEvents { print("sent \(sentEvents) events" + (remoteApplied.map { " (\($0) applied there)" } ?? "")) }
    if let unpushed { printError("some of this device's events were not sent: \(unpushed)") }
    if let unforwarded { printError("note: other members' events were not forwarded: \(unforwarded)") }
    let received = "merged \(merged.appliedEvents) events (\(merged.rowChanges) row changes)"
    switch transport {
    case "folder":
      print("\(received) from \(files) files, \(merged.duplicateEvents) already held")
      if skippedFiles > 0 { print("skipped \(skippedFiles) files still being written") }
    case "bundle": print("\(received), \(merged.duplicateEvents) already held, \(merged.parkedRows) rows parked")
    default:
      print("received \(merged.appliedEvents + merged.duplicateEvents) events: merged \(merged.appliedEvents) (\(merged.rowChanges) row changes), \(merged.duplicateEvents) already held")
    }
    if merged.parkedRows > 0, transport != "bundle" { print("\(merged.parkedRows) rows parked (see chronicle parked)") }
    for error in rejected { printError("rejected: \(error)") }
    _ = printRefused(merged.refused, database: database)
  }
}
