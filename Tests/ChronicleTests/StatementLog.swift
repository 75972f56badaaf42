import Chronicle
import Synchronization

/// Records the SQL of every statement run on the application's tables
/// (those `main."…"` names, not Chronicle's own), for the tests that show
/// the statements a merge or the projector runs.
final class StatementLog: Sendable {
  private let statements = Mutex<[String]>([])

  init(_ writer: some DatabaseWriter) {
    writer.writeWithoutTransaction { db in
      db.trace(options: .statement) { [self] event in
        guard case .statement(let statement) = event, !statement.sql.contains("chronicle_"),
              statement.sql.contains("main.\"") else { return }
        statements.withLock { $0.append(statement.sql) }
      }
    }
  }

  convenience init(_ database: ChronicleDatabase) {
    self.init(database.writer)
  }

  /// The statements recorded since the last call, one per line.
  func take() -> String {
    statements.withLock { recorded in
      defer { recorded = [] }
      return recorded.joined(separator: "\n")
    }
  }
}
