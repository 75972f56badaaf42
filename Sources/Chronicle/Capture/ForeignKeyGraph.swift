import GRDB

/// Which tables refer to which, as the schema has it now: what a merge checks
/// after writing rows (the tables with foreign keys, a row's parents), which
/// updates may orphan rows (a key to a column besides the primary key), and
/// which tables a partial replay must keep for the ones asked for (their
/// parents, and theirs).
///
/// Read through GRDB (but for ``foreignKeys(referringTo:from:)``), which
/// caches each table's foreign keys until the schema changes, so a table
/// created by an event in the middle of a merge is seen. Parent table names
/// it returns are lower-cased; other names are as the caller or the tracked
/// tables spell them.
struct ForeignKeyGraph {
  let db: Database

  /// Whether `table` has a foreign key.
  func hasForeignKeys(_ table: String) throws -> Bool {
    try !db.foreignKeys(on: table, in: "main").isEmpty
  }

  /// The tables `table`'s foreign keys refer to.
  func parents(of table: String) throws -> Set<String> {
    Set(try db.foreignKeys(on: table, in: "main").map { $0.destinationTable.lowercased() })
  }

  /// `tables` with every table they refer to, directly or through others.
  func withAncestors(_ tables: Set<String>) throws -> Set<String> {
    var found = Set(tables.map { $0.lowercased() })
    var queue = Array(found)
    while let table = queue.popLast() {
      guard try db.tableExists(table) else { continue }
      for parent in try parents(of: table) where found.insert(parent).inserted { queue.append(parent) }
    }
    return found
  }

  /// The foreign keys of `tables` that refer to `parent` (which exists),
  /// each with the table that has it, as pairs of child and parent columns.
  /// Read with SQLite's pragma, not GRDB: GRDB fails on a table whose other
  /// foreign key names a table that does not exist, which SQLite allows.
  func foreignKeys(referringTo parent: String, from tables: [String]) throws -> [(child: String, mapping: [(origin: String, destination: String)])] {
    let name = parent.lowercased()
    let parentKey = try db.primaryKey(parent).columns
    var found: [(child: String, mapping: [(origin: String, destination: String)])] = []
    for child in tables {
      let rows = try Row.fetchAll(
        db, sql: "SELECT id, \"from\", \"to\" FROM pragma_foreign_key_list(?) WHERE lower(\"table\") = ? ORDER BY id, seq",
        arguments: [child, name])
      for key in Dictionary(grouping: rows, by: { $0[0] as Int64 }).sorted(by: { $0.key < $1.key }).map(\.value) {
        // A key naming no parent columns refers to the parent's primary key.
        let mapping = key.enumerated().map { index, row in
          (origin: row[1] as String, destination: (row[2] as String?) ?? (index < parentKey.count ? parentKey[index] : ""))
        }
        found.append((child, mapping))
      }
    }
    return found
  }

  /// The tracked tables that have a foreign key.
  func trackedTablesWithForeignKeys() throws -> [String] {
    try TrackedTables.names(db).filter { try db.tableExists($0) && hasForeignKeys($0) }
  }

  /// Whether a tracked table's foreign key refers to columns of `shape`
  /// besides its primary key (a `UNIQUE` column): updating a row can then
  /// orphan rows that refer to it, as deleting one can.
  func referencesNonKeyColumns(of shape: TableShape) throws -> Bool {
    let name = shape.name.lowercased()
    let key = Set(shape.primaryKey.map { shape.columns[$0].lowercased() })
    for child in try TrackedTables.names(db) where try db.tableExists(child) {
      for foreignKey in try db.foreignKeys(on: child, in: "main") where foreignKey.destinationTable.lowercased() == name {
        if foreignKey.mapping.contains(where: { !key.contains($0.destination.lowercased()) }) { return true }
      }
    }
    return false
  }

  /// One SQL condition per foreign key of `child` (its rows read under
  /// `alias`): true when the key is set and its parent row is absent.
  func missingParentConditions(child: String, alias: String) throws -> [String] {
    // A key naming no parent columns refers to the parent's primary key: GRDB fills them in.
    try db.foreignKeys(on: child, in: "main").map { foreignKey in
      let set = foreignKey.mapping.map { "\(alias).\(quotedIdentifier($0.origin)) IS NOT NULL" }.joined(separator: " AND ")
      let match = foreignKey.mapping.map { "p.\(quotedIdentifier($0.destination)) = \(alias).\(quotedIdentifier($0.origin))" }
        .joined(separator: " AND ")
      return "\(set) AND NOT EXISTS (SELECT 1 FROM main.\(quotedIdentifier(foreignKey.destinationTable)) AS p WHERE \(match))"
    }
  }
}
