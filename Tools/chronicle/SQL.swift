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
      let (output, event) = try db.writeReturningEvent { db -> [String] in
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
      if let event {
        FileHandle.standardError.write(Data(
          "event #\(event.id) \(event.event.id): \(event.event.rowChangeCount) row changes, \(event.rawSize) bytes raw, \(event.storedSize) stored\n".utf8))
      }
    }
  }
}
