import ArgumentParser
import Chronicle
import Foundation

struct MigrateKeys: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "migrate-keys",
    abstract: "Turn a table's integer primary keys into UUIDs, rewriting the foreign keys that point to them, without breaking sync.",
    discussion: """
      Each key becomes a name-based UUID of the peer that first inserted the row, the table and the old key, \
      so every peer and every replay derives the same one. The migration is an event of the log: older events, \
      and events of peers that have not migrated yet, are read through the same mapping. Runs once per table.
      """)

  @Argument(help: "The Chronicle database.") var database: String
  @Option(help: "The table whose INTEGER primary key changes.") var table: String
  @Option(help: "The new key type (uuid).") var to: String = "uuid"
  @Flag(help: "Print JSON.") var json = false

  func validate() throws {
    guard to.lowercased() == "uuid" else { throw ValidationError("--to must be uuid (the only key type supported)") }
  }

  func run() throws {
    guard FileManager.default.fileExists(atPath: database) else { throw ChronicleError.noSuchFile(database) }
    let db = try Chronicle.open(path: database)
    let name = "migrate-keys \(table) to uuid"
    let ran = try db.migrate(name) { migration in try migration.migrateKeysToUUID(in: table) }
    let rows = try db.read { database in try Int.fetchOne(database, sql: "SELECT count(*) FROM \(quotedIdentifier(table))") ?? 0 }
    let last = try db.read { database in try Int64.fetchOne(database, sql: "SELECT MAX(id) FROM chronicle_events") ?? 0 }
    let event = try db.log.event(position: last)
    if json {
      try EventDescription.printJSON(["migrated": ran, "table": table, "rows": rows, "event": event?.event.id.description ?? NSNull()])
    } else if ran {
      print("\(table): \(rows) rows now keyed by UUID; recorded as event \(event.map { "#\($0.id) \($0.event.id)" } ?? "?")")
      if let event { EventDescription.operations(event.event).filter { $0.hasPrefix("migration") }.forEach { print("  " + $0) } }
    } else {
      print("\(table): already migrated (\(name))")
    }
  }
}
