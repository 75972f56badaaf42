import CChronicleSQLite
import Foundation
import GRDB

/// Triggers that refuse writes to tracked tables from connections that are
/// not Chronicle's (the `sqlite3` shell, another library). Such a write would
/// change this peer's rows without an event, so no other peer would ever get
/// it, and the peers would differ with every sync reporting success.
///
/// Each tracked table has a `BEFORE INSERT`, `UPDATE` and `DELETE` trigger
/// whose condition calls ``functionName``, a function only Chronicle's writer
/// connection defines. Elsewhere the write fails before it starts with
/// `no such function: ` and the function's name, which is worded as the
/// message a user needs. Reads are not affected. A write with a tool must go
/// through `chronicle sql DB "..."` (or the app) to reach the other peers.
enum GuardTriggers {
  /// The function the triggers call; its name is the error other tools print.
  static let functionName = "Chronicle syncs this table: write it through Chronicle (the app, or chronicle sql DB) so other peers get the change"

  /// Defines the function on a connection (Chronicle's writer): the guard
  /// lets it write. In C, as it runs for every row written.
  static func define(on db: Database) throws {
    let code = chronicle_define_guard_function(db.sqliteConnection, functionName)
    guard code == 0 /* SQLITE_OK */ else {
      throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot define the guard function")
    }
  }

  static let operations = ["insert", "update", "delete"]
  static let namePrefix = "chronicle_guard_"

  /// Creates the guard triggers each of `tables` lacks (one per operation;
  /// a renamed table keeps its triggers, which follow it).
  static func ensure(for tables: some Sequence<String>, _ db: Database) throws {
    let guarded = try guardedOperations(db)
    for table in tables {
      for operation in operations where guarded[table.lowercased()]?.contains(operation) != true {
        // A unique name: a table renamed away keeps the triggers named after it.
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let trigger = quotedIdentifier("\(namePrefix)\(operation)_\(table)_\(suffix)")
        try db.execute(sql: """
          CREATE TRIGGER \(trigger) BEFORE \(operation.uppercased()) ON \(quotedIdentifier(table))
          WHEN NOT \(quotedIdentifier(functionName))()
          BEGIN SELECT RAISE(ABORT, 'write this table through Chronicle'); END
          """)
      }
    }
  }

  /// Runs `body` with the connection's triggers off when the guards are
  /// the only triggers of the database (its main and temp schemas), for
  /// Chronicle's own bulk writes (a merge). On Chronicle's connection a
  /// guard always lets the write through, yet SQLite runs it as a trigger
  /// program for every row written and keeps a statement journal for each
  /// statement because of it: a third of an `UPDATE`'s time by primary key.
  /// With any other trigger (the app's, which the writes must fire),
  /// triggers stay on. Turning them off or on again makes SQLite prepare
  /// the connection's statements anew, which it does on their next run.
  static func skipped<T>(_ db: Database, _ body: () throws -> T) throws -> T {
    let others = try Int.fetchOne(db, sql: """
      SELECT (SELECT count(*) FROM main.sqlite_schema WHERE type = 'trigger' AND substr(name, 1, 16) <> '\(namePrefix)')
        + (SELECT count(*) FROM temp.sqlite_schema WHERE type = 'trigger')
      """) ?? 0
    guard others == 0 else { return try body() }
    try setTriggersEnabled(false, db)
    defer { try? setTriggersEnabled(true, db) }
    return try body()
  }

  /// Whether the connection runs triggers.
  static func triggersEnabled(_ db: Database) -> Bool { chronicle_triggers_enabled(db.sqliteConnection) != 0 }

  private static func setTriggersEnabled(_ enabled: Bool, _ db: Database) throws {
    let code = chronicle_set_triggers_enabled(db.sqliteConnection, enabled ? 1 : 0)
    guard code == 0 /* SQLITE_OK */ else {
      throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot turn triggers \(enabled ? "on" : "off")")
    }
  }

  /// Drops every guard trigger; returns whether there was any.
  static func removeAll(_ db: Database) throws -> Bool {
    let names = try String.fetchAll(db, sql: "SELECT name FROM main.sqlite_schema WHERE type = 'trigger' AND name LIKE 'chronicle_guard_%'")
    for name in names { try db.execute(sql: "DROP TRIGGER main.\(quotedIdentifier(name))") }
    return !names.isEmpty
  }

  /// The tables among `tables` that lack any of their three guard triggers.
  static func missing(for tables: some Sequence<String>, _ db: Database) throws -> [String] {
    let guarded = try guardedOperations(db)
    return tables.filter { guarded[$0.lowercased()]?.count != operations.count }.sorted()
  }

  /// The operations each table (lower-cased name) has a guard trigger for,
  /// read from the schema (a trigger follows its table when renamed).
  private static func guardedOperations(_ db: Database) throws -> [String: Set<String>] {
    var guarded: [String: Set<String>] = [:]
    for row in try Row.fetchAll(db, sql: "SELECT name, tbl_name FROM main.sqlite_schema WHERE type = 'trigger' AND name LIKE 'chronicle_guard_%'") {
      let name: String = row["name"], table: String = row["tbl_name"]
      if let operation = operations.first(where: { name.hasPrefix(namePrefix + $0 + "_") }) { guarded[table.lowercased(), default: []].insert(operation) }
    }
    return guarded
  }
}

extension Database {
  /// Lets this connection write tracked tables behind Chronicle's back, as
  /// the guard triggers otherwise refuse: for tests that damage a database on
  /// purpose (what `verify`, `rebuild` and `adopt` must then find).
  package func bypassChronicleGuards() { try! GuardTriggers.define(on: self) }
}
