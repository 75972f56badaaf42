import ArgumentParser
import Chronicle
import Foundation

struct Step: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Walk the log one event at a time, showing each row change with its values before and after.",
    discussion: """
      Events before --from are replayed into memory first (the file is opened read-only). \
      On a terminal, each event waits for Enter (q quits); otherwise, or with --count or --json, events print straight through.
      """)

  @Argument(help: "The Chronicle database.") var database: String
  @Option(help: "The first event to show: log position or origin:sequence.") var from: String = "1"
  @Option(help: "Show at most this many events.") var count: Int?
  @Flag(help: "One JSON object per event per line.") var json = false

  func validate() throws {
    if let count, count < 1 { throw ValidationError("--count must be at least 1") }
  }

  func run() throws {
    let archive = try ChronicleArchive(path: database)
    let start = try archive.log.event(reference: from).id
    let stepper = try EventStepper(source: archive, from: start)
    let interactive = !json && count == nil && isatty(STDIN_FILENO) != 0 && isatty(STDOUT_FILENO) != 0
    var shown = 0
    while count.map({ shown < $0 }) ?? true, let step = try stepper.next() {
      shown += 1
      if json {
        try EventDescription.printJSON(Self.json(step))
      } else {
        Self.printStep(step)
        if interactive {
          Swift.print("-- Enter: next event, q: quit --", terminator: "")
          fflush(nil)
          guard let answer = readLine(), answer.lowercased() != "q" else { break }
        }
      }
    }
    if shown == 0 && !json { Swift.print("no events from \(from)") }
  }

  static func printStep(_ step: EventStep) {
    Swift.print(EventDescription.summary(step.stored) + (step.isReceived ? "  (received)" : ""))
    for change in step.schemaChanges {
      switch change {
      case .execute(let sql): Swift.print("  schema  \(sql)")
      case .rebuildTable(let name, _, _, _): Swift.print("  schema  rebuild \(name)")
      case .migration(let migration):
        Swift.print("  migration  \(migration.name): \(migration.steps.map(EventDescription.stepText).joined(separator: "; "))")
      }
    }
    for row in step.rows {
      Swift.print("  \(row.operations.map(\.rawValue).joined(separator: "+"))  \(row.table) \(RowText.key(row.key))")
      switch (row.before, row.after) {
      case (nil, let after?):
        Swift.print("    now  " + RowText.values(after))
      case (let before?, nil):
        Swift.print("    was  " + RowText.values(before))
        if row.operations != [.delete] { Swift.print("    (the row left its table: parked until its parent or insert arrives)") }
      case (nil, nil):
        Swift.print("    not in its table before or after (deleted or parked)")
      case (_?, _?):
        let changes = row.changes
        if changes.isEmpty { Swift.print(step.isReceived ? "    no change: newer writes win" : "    no change") }
        for change in changes { Swift.print("    " + RowText.change(change)) }
      }
    }
  }

  static func json(_ step: EventStep) -> [String: Any] {
    var object = EventDescription.json(step.stored, withOperations: false)
    object["received"] = step.isReceived
    object["rows"] = step.rows.map { row -> [String: Any] in
      [
        "table": row.table, "key": RowText.json(row.key), "operations": row.operations.map(\.rawValue),
        "before": row.before.map(RowText.json) ?? NSNull(), "after": row.after.map(RowText.json) ?? NSNull(),
        "changes": Dictionary(row.changes.map { ($0.column, RowText.json($0)) }, uniquingKeysWith: { first, _ in first }),
      ]
    }
    return object
  }
}
