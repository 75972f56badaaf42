import Foundation
import GRDB
import GRDBSQLite

/// Applies events to a database strictly, as they were recorded: schema
/// changes, then inserts that must not conflict, updates and deletes that must
/// find their row. Anything else stops with the event's id and the reason.
///
/// Foreign keys are not enforced while applying: the log holds every change
/// that cascades made, in the order they were made. Triggers are created only
/// by ``finish(_:)``: their effects are already in the log as row changes.
final class EventApplier {
  /// Trigger definitions seen so far, created at the end.
  var pendingTriggers: [(name: String, sql: String)] = []
  /// Whether deletes keep the row's last values in the merge state, as
  /// capture does on the live database, so that received events merged
  /// later can bring the row back whole.
  var retainsDeletedRows = false
  /// Whether an insert replaces a row with the same key instead of failing:
  /// for rebuilds, where an event that reshaped a table carries its rows again.
  var insertsReplace = false
  /// What an update or a delete that finds no row does.
  var missingRows = MissingRows.fail
  /// Updates and deletes that found no row, waiting for a later insert of
  /// it (``MissingRows/deferUntilInserted``), oldest first.
  private var unexplained: [(table: String, key: [SQLiteValue], failure: ChronicleError)] = []

  /// What an update or a delete of a row that is not there does. A row
  /// written around Chronicle (its guards dropped) and then updated
  /// through it has an update in the log and no insert before it, until
  /// `chronicle adopt` records the row, in a later event.
  enum MissingRows {
    /// Stops at once, naming the event.
    case fail
    /// Goes on; ``finish(_:)`` fails, naming the first such event, unless
    /// a later event inserted the row (strict replays: the log explains
    /// the row once an adoption recorded it).
    case deferUntilInserted
    /// Goes on: the row is not there (rebuilds, which discard rows written
    /// around Chronicle unless adopting them).
    case skip
  }

  /// An update or delete of `key` in `table` found no row.
  private func missing(_ table: String, _ key: [SQLiteValue], _ failure: ChronicleError) throws {
    switch missingRows {
    case .fail: throw failure
    case .deferUntilInserted: unexplained.append((table.lowercased(), key, failure))
    case .skip: break
    }
  }
  /// The columns of each table read so far, by name (forgotten on a schema change).
  private var tableColumns: [String: [String]?] = [:]
  /// How each table's deleted rows are encoded, by name (made again when its columns change).
  private var retainedEncoders: [String: RetainedValuesEncoder] = [:]

  private func retainedEncoder(_ table: String, columns: [String]) -> RetainedValuesEncoder {
    if let known = retainedEncoders[table], known.columns == columns { return known }
    let encoder = RetainedValuesEncoder(columns: columns)
    retainedEncoders[table] = encoder
    return encoder
  }

  private func columnsOfTable(_ name: String, _ db: Database) throws -> [String]? {
    if let known = tableColumns[name] { return known }
    let columns = try TableShape.read(db, table: name)?.columns
    tableColumns[name] = columns
    return columns
  }

  /// Applies one event inside the current transaction.
  func apply(_ event: ChangeEvent, to db: Database) throws {
    func fail(_ reason: String) -> ChronicleError { .replayFailed(event: event.id.description, reason: reason) }
    // Statements are looked up once per table (inserts) or per table and
    // column set (updates) within an event; GRDB's statement cache keeps them
    // across events.
    var inserts = [GRDB.Statement?](repeating: nil, count: event.tables.count)
    var deletes = [GRDB.Statement?](repeating: nil, count: event.tables.count)
    var takeOuts = [(statement: GRDB.Statement, encoder: RetainedValuesEncoder)?](repeating: nil, count: event.tables.count)
    var updates: [UpdateShape: GRDB.Statement] = [:]
    // Made on the event's first retained delete: its names' numbers are
    // cached for the rest of the event (within this transaction).
    var mergeStore: MergeStore?
    for operation in event.operations {
      switch operation {
      case .schema(.execute(let sql)):
        try executeSchema(sql, db, fail)
        tableColumns = [:]
        // A schema change invalidates prepared statements of its tables.
        inserts = inserts.map { _ in nil }
        deletes = deletes.map { _ in nil }
        takeOuts = takeOuts.map { _ in nil }
        updates = [:]
      case .schema(.rebuildTable(let name, let createSQL, let copied, let dependents)):
        try rebuild(name: name, createSQL: createSQL, copied: copied, dependents: dependents, db, fail)
        tableColumns = [:]
        inserts = inserts.map { _ in nil }
        deletes = deletes.map { _ in nil }
        takeOuts = takeOuts.map { _ in nil }
        updates = [:]
      case .schema(.migration):
        continue  // its DDL is recorded beside it
      case .membership:
        continue  // admission records it, before the rows
      case .insert(let table, let values):
        let descriptor = event.tables[table]
        let statement = try inserts[table] ?? prepared(db, fail) {
          "INSERT \(insertsReplace ? "OR REPLACE " : "")INTO main.\(quotedIdentifier(descriptor.name)) (\(descriptor.columns.map(quotedIdentifier).joined(separator: ", "))) "
            + "VALUES (\(databaseQuestionMarks(count: descriptor.columns.count)))"
        }
        inserts[table] = statement
        try run(statement, values, db, fail) { "insert into \(descriptor.name) failed: \($0)" }
        if !unexplained.isEmpty {
          let name = descriptor.name.lowercased(), key = descriptor.primaryKey.map { values[$0] }
          unexplained.removeAll { $0.table == name && $0.key == key }
        }
      case .update(let table, let key, let changes):
        let descriptor = event.tables[table]
        let shape = UpdateShape(table: table, columns: changes.map(\.column))
        let statement = try updates[shape] ?? prepared(db, fail) {
          let assignments = changes.map { "\(quotedIdentifier(descriptor.columns[$0.column])) = ?" }.joined(separator: ", ")
          return "UPDATE main.\(quotedIdentifier(descriptor.name)) SET \(assignments) WHERE \(keyCondition(descriptor))"
        }
        updates[shape] = statement
        try run(statement, changes.map(\.value) + key, db, fail) { "update of \(descriptor.name) \(key) failed: \($0)" }
        if sqlite3_changes(db.sqliteConnection) != 1 { try missing(descriptor.name, key, fail("update of \(descriptor.name) \(key) found no row")) }
      case .delete(let table, let key):
        let descriptor = event.tables[table]
        guard retainsDeletedRows else {
          let statement = try deletes[table] ?? prepared(db, fail) {
            "DELETE FROM main.\(quotedIdentifier(descriptor.name)) WHERE \(keyCondition(descriptor))"
          }
          deletes[table] = statement
          try run(statement, key, db, fail) { "delete from \(descriptor.name) \(key) failed: \($0)" }
          if sqlite3_changes(db.sqliteConnection) != 1 { try missing(descriptor.name, key, fail("delete from \(descriptor.name) \(key) found no row")) }
          continue
        }
        // The delete returns every column of the row as the table has it
        // (a delete's descriptor may name only the key, as an upcast
        // event's does), to keep in the merge state.
        if takeOuts[table] == nil {
          let columns = try columnsOfTable(descriptor.name, db) ?? descriptor.columns
          takeOuts[table] = (try prepared(db, fail) {
            "DELETE FROM main.\(quotedIdentifier(descriptor.name)) WHERE \(keyCondition(descriptor)) "
              + "RETURNING \(columns.map(quotedIdentifier).joined(separator: ", "))"
          }, retainedEncoder(descriptor.name, columns: columns))
        }
        let takeOut = takeOuts[table]!
        let retained: [UInt8]?
        do {
          retained = try takeOut.statement.firstRow(key) { handle in
            try takeOut.encoder.encode { SQLiteValue(statement: handle, column: Int32($0)) }
          }
        } catch let error as DatabaseError {
          throw fail("delete from \(descriptor.name) \(key) failed: \(error.message ?? "\(error)")")
        }
        guard let retained else {
          try missing(descriptor.name, key, fail("delete from \(descriptor.name) \(key) found no row"))
          continue
        }
        if mergeStore == nil { mergeStore = MergeStore(db: db) }
        try mergeStore!.retainDeletedRow(table: descriptor.name, key: MergeStore.encodeKey(key), retained: retained)
      }
    }
  }

  private struct UpdateShape: Hashable {
    var table: Int
    var columns: [Int]
  }

  private func prepared(_ db: Database, _ fail: (String) -> ChronicleError, _ sql: () -> String) throws -> GRDB.Statement {
    let text = sql()
    do {
      return try db.cachedStatement(sql: text)
    } catch let error as DatabaseError {
      throw fail("\(error.message ?? "\(error)") in: \(text)")
    }
  }

  /// Runs `statement` with `values` through the C API (see `Statement.run(_:)`):
  /// replay binds millions of values.
  private func run(
    _ statement: GRDB.Statement, _ values: [SQLiteValue], _ db: Database, _ fail: (String) -> ChronicleError,
    _ failure: (String) -> String
  ) throws {
    do {
      try statement.run(values)
    } catch let error as DatabaseError {
      throw fail(failure(error.message ?? "\(error)"))
    }
  }

  /// Creates the triggers that the applied history defines.
  func finish(_ db: Database) throws {
    if let first = unexplained.first {
      guard case .replayFailed(let event, let reason) = first.failure else { throw first.failure }
      throw ChronicleError.replayFailed(
        event: event,
        reason: "\(reason), and no later event inserted it (a row written around Chronicle: chronicle adopt records it, chronicle rebuild discards it)")
    }
    for trigger in pendingTriggers { try db.execute(sql: trigger.sql) }
    pendingTriggers = []
  }

  private func keyCondition(_ descriptor: TableDescriptor) -> String {
    descriptor.primaryKey.map { "\(quotedIdentifier(descriptor.columns[$0])) = ?" }.joined(separator: " AND ")
  }

  private func executeSchema(_ sql: String, _ db: Database, _ fail: (String) -> ChronicleError) throws {
    let statement = try db.makeStatement(sql: sql)
    // CREATE TRIGGER and DROP TRIGGER act on the pending list, not the database.
    let words = sql.split(whereSeparator: \.isWhitespace).prefix(6).map { $0.uppercased() }
    if words.starts(with: ["CREATE", "TRIGGER"]) || words.starts(with: ["CREATE", "TEMP", "TRIGGER"]) {
      let name = triggerName(sql)
      pendingTriggers.removeAll { $0.name.lowercased() == name.lowercased() }
      pendingTriggers.append((name, sql))
      return
    }
    if words.starts(with: ["DROP", "TRIGGER"]), let name = sql.split(separator: " ").last {
      let unquoted = name.trimmingCharacters(in: CharacterSet(charactersIn: "\"`[]"))
      if let index = pendingTriggers.firstIndex(where: { $0.name.lowercased() == unquoted.lowercased() }) {
        pendingTriggers.remove(at: index)
        return
      }
    }
    do {
      try statement.execute()
    } catch let error as DatabaseError {
      throw fail("schema change failed: \(error.message ?? "\(error)") in: \(sql)")
    }
  }

  private func triggerName(_ sql: String) -> String {
    // The name is in sqlite_schema when the trigger is created; here we only
    // need it to honor a later DROP TRIGGER, so the token after TRIGGER
    // (and an optional IF NOT EXISTS) is enough.
    var tokens = sql.split(whereSeparator: \.isWhitespace).map(String.init)[...]
    while let token = tokens.first, token.uppercased() != "TRIGGER" { tokens = tokens.dropFirst() }
    tokens = tokens.dropFirst()
    if tokens.first?.uppercased() == "IF" { tokens = tokens.dropFirst(3) }
    return (tokens.first ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\"`[]"))
  }

  private func rebuild(
    name: String, createSQL: String, copied: [CopiedColumn], dependents: [String], _ db: Database,
    _ fail: (String) -> ChronicleError
  ) throws {
    let temporary = "chronicle_rebuild_\(name)"
    guard let parenthesis = createSQL.firstIndex(of: "(") else { throw fail("cannot rebuild \(name): no column list in \(createSQL)") }
    do {
      try db.execute(sql: "PRAGMA legacy_alter_table = ON")
      defer { try? db.execute(sql: "PRAGMA legacy_alter_table = OFF") }
      try db.execute(sql: "CREATE TABLE \(quotedIdentifier(temporary)) " + createSQL[parenthesis...])
      if !copied.isEmpty {
        let target = copied.map { quotedIdentifier($0.newName) }.joined(separator: ", ")
        let source = copied.map { quotedIdentifier($0.oldName) }.joined(separator: ", ")
        try db.execute(sql: "INSERT INTO \(quotedIdentifier(temporary)) (\(target)) SELECT \(source) FROM main.\(quotedIdentifier(name))")
      }
      try db.execute(sql: "DROP TABLE main.\(quotedIdentifier(name))")
      try db.execute(sql: "ALTER TABLE \(quotedIdentifier(temporary)) RENAME TO \(quotedIdentifier(name))")
      for sql in dependents { try executeSchema(sql, db, fail) }
    } catch let error as DatabaseError {
      throw fail("rebuild of \(name) failed: \(error.message ?? "\(error)")")
    }
  }
}
