import GRDB

/// The tables whose writes are captured, kept in `chronicle_tracked_tables`
/// (with the event from which each is tracked): the one place that reads or
/// writes that table. Capture keeps it; merging and `Chronicle.open` go by it.
enum TrackedTables {
  /// Their names, sorted.
  static func names(_ db: Database) throws -> [String] {
    try String.fetchAll(db, sql: "SELECT name FROM chronicle_tracked_tables ORDER BY name")
  }

  /// Records that `table` is tracked from the event at log position `since`.
  static func track(_ table: String, since: Int64, _ db: Database) throws {
    try db.execute(sql: "INSERT OR REPLACE INTO chronicle_tracked_tables (name, since_event) VALUES (?, ?)", arguments: [table, since])
  }

  /// Follows a tracked table's rename.
  static func rename(_ from: String, to: String, _ db: Database) throws {
    try db.execute(sql: "UPDATE chronicle_tracked_tables SET name = ? WHERE name = ?", arguments: [to, from])
  }

  /// Stops tracking `table` (dropped).
  static func untrack(_ table: String, _ db: Database) throws {
    try db.execute(sql: "DELETE FROM chronicle_tracked_tables WHERE name = ?", arguments: [table])
  }

  /// Forgets every tracked table.
  static func removeAll(_ db: Database) throws {
    try db.execute(sql: "DELETE FROM chronicle_tracked_tables")
  }

  /// Makes the tracked tables of a replay target its trackable tables (STRICT,
  /// with a primary key), all tracked from the start.
  static func refresh(_ db: Database) throws {
    try removeAll(db)
    let names = try String.fetchAll(db, sql: "SELECT name FROM main.sqlite_schema WHERE type = 'table' ORDER BY name")
    for name in names where !InternalSchema.isReserved(name) {
      guard try TableShape.read(db, table: name)?.isTrackable == true else { continue }
      try track(name, since: 0, db)
    }
  }
}
