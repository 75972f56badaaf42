import ArgumentParser
import Chronicle
import Foundation

struct SQL: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sql",
    abstract: "Run SQL: statements that return rows print them; writes go through capture and append one event.")

  @Argument(help: "The SQLite file.") var database: String
  @Argument(help: "SQL statements, separated by semicolons.") var statement: String

  func run() {
    reportingErrors {
      let db = try Chronicle.open(path: database)
      let before = try untrackedTables(db)
      let (output, event) = try db.writeSummarizingEvent { db -> [String] in
        var lines: [String] = []
        let statements = try db.allStatements(sql: statement)
        while let statement = try statements.next() {
          if statement.columnCount > 0 {
            lines.append(statement.columnNames.joined(separator: "|"))
            let rows = try Row.fetchCursor(statement)
            while try rows.next() != nil {
              lines.append(statement.exactValues().map(\.description).joined(separator: "|"))
            }
          } else {
            try statement.execute()
          }
        }
        return lines
      }
      output.forEach { print($0) }
      // A table Chronicle cannot track is said once, when it is created.
      for table in try untrackedTables(db).subtracting(before).sorted() {
        do {
          try db.track(table)
        } catch {
          printError("warning: table \(table) is not tracked, so its writes make no events and will not sync: \(error)")
        }
      }
      if let event {
        FileHandle.standardError.write(Data(
          "event #\(event.position) \(event.id): \(event.rowChanges) row changes, \(event.rawSize) bytes raw, \(event.storedSize) stored\n".utf8))
      }
    }
  }
}

/// Application tables (not Chronicle's or SQLite's own, not virtual or shadow
/// tables) that Chronicle does not track.
private func untrackedTables(_ database: ChronicleDatabase) throws -> Set<String> {
  let tracked = Set(try database.trackedTables.map { $0.lowercased() })
  let tables = try database.read { db in
    try String.fetchAll(db, sql: """
      SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table'
        AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE 'chronicle\\_%' ESCAPE '\\'
      """)
  }
  return Set(tables.filter { !tracked.contains($0.lowercased()) })
}

