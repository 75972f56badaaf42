import ArgumentParser
import Chronicle
import Foundation

struct Demo: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run the main flow on a database in a temporary folder and report what happened.")

  @Option(help: "Reminders to write.") var reminders = 1000

  func run() {
    reportingErrors {
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-demo-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: folder) }
      let path = folder.appendingPathComponent("demo.sqlite").path
      let database = try Chronicle.open(path: path)
      print("opened \(path)")
      print("peer \(database.peerID)")

      try database.write { db in
        try db.execute(sql: """
          CREATE TABLE remindersLists (
            id TEXT PRIMARY KEY NOT NULL DEFAULT (uuid()),
            title TEXT NOT NULL DEFAULT ''
          ) STRICT;
          CREATE TABLE reminders (
            id TEXT PRIMARY KEY NOT NULL DEFAULT (uuid()),
            title TEXT NOT NULL DEFAULT '',
            isCompleted INTEGER NOT NULL DEFAULT 0,
            listID TEXT NOT NULL REFERENCES remindersLists(id) ON DELETE CASCADE
          ) STRICT;
          """)
      }
      print("created 2 STRICT tables; tracked: \(try database.trackedTables.joined(separator: ", "))")

      try database.write { db in
        try db.execute(sql: "INSERT INTO remindersLists (id, title) VALUES ('home', 'Home'), ('work', 'Work')")
        let insert = try db.makeStatement(sql: "INSERT INTO reminders (title, listID) VALUES (?, ?)")
        for index in 0..<reminders {
          try insert.execute(arguments: ["Reminder \(index)", index % 3 == 0 ? "work" : "home"])
        }
      }
      print("wrote \(reminders) reminders in one transaction")
      try database.write { db in
        try db.execute(sql: "UPDATE reminders SET isCompleted = 1 WHERE rowid % 4 = 0")
      }
      try database.write { db in
        try db.execute(sql: "DELETE FROM remindersLists WHERE id = 'work'")
      }
      print("completed every 4th reminder, deleted the Work list (cascading to its reminders)")
      try database.write { db in
        try db.execute(sql: "UPDATE reminders SET title = title")  // changes nothing: no event
      }

      let events = try database.log.events()
      let raw = events.reduce(0) { $0 + $1.rawSize }
      let stored = events.reduce(0) { $0 + $1.storedSize }
      let rowChanges = events.reduce(0) { $0 + $1.event.rowChangeCount }
      print("\nlog: \(events.count) events, \(rowChanges) row changes, \(raw) bytes raw, \(stored) bytes stored (zlib: \(String(format: "%.1f", Double(raw) / Double(max(stored, 1))))x smaller)")
      for event in events { print("  " + EventDescription.summary(event)) }

      let replayPath = folder.appendingPathComponent("replayed.sqlite").path
      let report = try database.replay(into: replayPath)
      let live = try database.digests()
      print("\nreplayed \(report.eventCount) events (\(report.rowChangeCount) row changes) into an empty file")
      for (replayed, current) in zip(report.digests, live) {
        let mark = replayed == current ? "same" : "DIFFERENT"
        print("  \(current.table): live \(current.rowCount) rows \(current.hash.prefix(16)), replay \(replayed.rowCount) rows \(replayed.hash.prefix(16)): \(mark)")
      }
      guard report.digests == live else {
        throw ValidationError("replay of the log does not reproduce the live tables")
      }
      print("replay of the log gives the same digest as the live tables")
    }
  }
}
