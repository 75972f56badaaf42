import ArgumentParser
import Chronicle
import Foundation

struct Blame: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Which event (origin peer, time, sequence) set each current value of a row, and the row's full history.",
    discussion: """
      KEY is the primary key: one value per key column in key order, or column=value pairs; \
      a last extra argument names one column. Exit status 1 when the table holds a value \
      or a row the log does not explain (run chronicle verify).
      """)

  @Argument(help: "The Chronicle database.") var database: String
  @Argument(help: "The table.") var table: String
  @Argument(parsing: .allUnrecognized, help: "The primary key value(s), then optionally a column (negative numbers included).")
  var keyAndColumn: [String]
  @Flag(help: "Print JSON.") var json = false

  func run() throws {
    let archive = try ChronicleArchive(path: database)
    let keyCount = try archive.read { db in
      try Int.fetchOne(db, sql: "SELECT count(*) FROM pragma_table_info(?, 'main') WHERE pk > 0", arguments: [table]) ?? 0
    }
    var key = keyAndColumn
    var column: String?
    if key.count > max(keyCount, 1), let last = key.last, !last.contains("=") {
      column = last
      key.removeLast()
    }
    let blame = try archive.blame(table: table, key: key, column: column)
    if json {
      try EventDescription.printJSON([
        "table": blame.table, "key": RowText.json(blame.key), "inTable": blame.current != nil, "explainedByLog": blame.isExplainedByLog,
        "columns": blame.columns.map { column -> [String: Any] in
          ["column": column.column, "value": column.value.map(EventDescription.jsonValue) ?? NSNull(),
           "setBy": column.setBy.map(Self.json) ?? NSNull(), "matchesLog": column.matchesLog]
        },
        "history": blame.history.map(Self.json),
      ])
    } else {
      print("\(blame.table) \(RowText.key(blame.key))" + (blame.current == nil ? "  (not in the table: deleted or parked)" : ""))
      let width = blame.columns.map(\.column.count).max() ?? 0
      for column in blame.columns {
        let name = column.column.padding(toLength: width, withPad: " ", startingAt: 0)
        let value = column.value?.description ?? "-"
        let origin = column.setBy.map { "#\($0.position) \($0.event) \($0.timestamp)\($0.isReceived ? " received" : "")" }
          ?? "no event wrote it (a default)"
        print("  \(name)  \(value)  \(origin)" + (column.matchesLog ? "" : "  MISMATCH: the log says \(Self.winningValue(column) ?? "?")"))
      }
      print("history:")
      for entry in blame.history {
        print("  #\(entry.position) \(entry.event) \(entry.timestamp)\(entry.isReceived ? " received" : "")  \(entry.kind.rawValue)  \(RowText.values(entry.values))")
      }
      if blame.history.isEmpty { print("  (no event touched this row\(blame.historyMayBePartial ? " that this history reaches" : ""))") }
      if !blame.isExplainedByLog {
        print("NOT IN THE LOG: the table holds this row, but the log never inserted it: "
          + "a write made around Chronicle (chronicle verify lists them; chronicle adopt records them as an event)")
      }
    }
    if !blame.isExplainedByLog || blame.columns.contains(where: { !$0.matchesLog }) { throw ExitCode(ExitStatus.finding) }
  }

  private static func winningValue(_ column: RowBlame.Column) -> String? {
    column.setBy?.values.first { $0.column.lowercased() == column.column.lowercased() }?.value.description
  }

  static func json(_ entry: RowBlame.Entry) -> [String: Any] {
    [
      "position": entry.position, "event": entry.event.description, "origin": entry.event.origin.description,
      "sequence": entry.event.sequence, "hlc": entry.timestamp.rawValue, "time": entry.timestamp.description,
      "operation": entry.kind.rawValue, "values": RowText.json(entry.values), "received": entry.isReceived,
    ]
  }
}
