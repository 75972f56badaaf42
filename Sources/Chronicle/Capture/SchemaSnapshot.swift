import GRDB

/// The application's part of the main schema at one moment: every table,
/// index, view and trigger that is not Chronicle's or SQLite's own.
struct SchemaSnapshot: Equatable {
  struct Object: Equatable {
    var type: String
    var name: String
    var tableName: String
    var rootPage: Int64
    var sql: String
    /// Column names (tables only).
    var columns: [String]
  }

  /// `PRAGMA schema_version` when read.
  var version: Int64
  /// Objects in `sqlite_schema` order (creation order).
  var objects: [Object]

  static func currentVersion(_ db: Database) throws -> Int64 {
    try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA main.schema_version")) ?? 0
  }

  static func read(_ db: Database) throws -> SchemaSnapshot {
    let version = try currentVersion(db)
    var objects: [Object] = []
    let rows = try Row.fetchAll(db, sql: """
      SELECT type, name, tbl_name, rootpage, sql FROM main.sqlite_schema
      WHERE sql IS NOT NULL ORDER BY rowid
      """)
    let shadowTables = try shadowTableNames(db)
    for row in rows {
      let name: String = row["name"]
      let tableName: String = row["tbl_name"]
      guard !InternalSchema.isReserved(name), !InternalSchema.isReserved(tableName) else { continue }
      guard !shadowTables.contains(tableName.lowercased()) else { continue }
      let type: String = row["type"]
      let columns = type == "table"
        ? try String.fetchAll(db, sql: "SELECT name FROM pragma_table_xinfo(?, 'main') ORDER BY cid", arguments: [name])
        : []
      objects.append(Object(
        type: type, name: name, tableName: tableName, rootPage: row["rootpage"] ?? 0, sql: row["sql"], columns: columns))
    }
    return SchemaSnapshot(version: version, objects: objects)
  }

  /// Lower-cased names of the tables a virtual table keeps its data in (an
  /// FTS5 table's `_data`, `_idx`, …). Creating the virtual table creates
  /// them, so a schema event must not: a replay would find them there.
  /// Empty before SQLite 3.37, which cannot tell them apart.
  private static func shadowTableNames(_ db: Database) throws -> Set<String> {
    do {
      return Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow'")
        .map { $0.lowercased() })
    } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
      return []
    }
  }

  func object(type: String, name: String) -> Object? {
    objects.first { $0.type == type && $0.name.lowercased() == name.lowercased() }
  }
}

/// How the schema went from one snapshot to the next, as the schema changes a
/// replay must apply, in a valid order: drops, renames, table rebuilds, creates.
struct SchemaDiff {
  var changes: [SchemaChange] = []
  /// Tables that appeared (created, not renamed).
  var createdTables: [String] = []
  /// (old name, new name) of renamed tables.
  var renamedTables: [(from: String, to: String)] = []
  /// Tables whose definition changed in place.
  var alteredTables: [String] = []
  /// Altered tables whose rows the event must carry in full, because their
  /// columns cannot be mapped by name (a column was renamed), a migration
  /// converted their values, or they were rebuilt in a new b-tree.
  var tablesNeedingRows: [String] = []
  var droppedTables: [String] = []

  /// - Parameters:
  ///   - columnRenames: columns a migration renamed, by lower-cased table
  ///     name, then new name to old name: they are copied, not dumped.
  ///   - rewrittenTables: lower-cased names of tables whose values a
  ///     migration converted: the event carries their rows whole.
  init(
    from old: SchemaSnapshot, to new: SchemaSnapshot, columnRenames: [String: [String: String]] = [:],
    rewrittenTables: Set<String> = []
  ) {
    let oldTables = old.objects.filter { $0.type == "table" }
    let newTables = new.objects.filter { $0.type == "table" }
    func isKept(_ object: SchemaSnapshot.Object, in snapshot: SchemaSnapshot) -> Bool {
      snapshot.object(type: object.type, name: object.name) != nil
    }

    // Renames: a table gone by name whose b-tree lives on under a new name.
    var renamedFrom = Set<String>(), renamedTo = Set<String>()
    for table in oldTables where !isKept(table, in: new) && table.rootPage != 0 {
      if let target = newTables.first(where: {
        $0.rootPage == table.rootPage && !isKept($0, in: old) && $0.columns == table.columns
      }) {
        renamedTables.append((table.name, target.name))
        renamedFrom.insert(table.name)
        renamedTo.insert(target.name)
      }
    }

    // Drops: views and triggers, then indexes, then tables.
    for type in ["view", "trigger", "index", "table"] {
      for object in old.objects where object.type == type && !renamedFrom.contains(object.name) {
        let changed = new.object(type: type, name: object.name).map { $0.sql != object.sql } ?? true
        // A changed table is rebuilt, not dropped; other changed objects are dropped and recreated.
        if changed && !(type == "table" && isKept(object, in: new)) {
          changes.append(.execute(sql: "DROP \(type.uppercased()) IF EXISTS \(quotedIdentifier(object.name))"))
          if type == "table" { droppedTables.append(object.name) }
        }
      }
    }
    for (from, to) in renamedTables {
      changes.append(.execute(sql: "ALTER TABLE \(quotedIdentifier(from)) RENAME TO \(quotedIdentifier(to))"))
    }

    // Tables altered in place: rebuilt, keeping the columns whose names survive.
    for table in newTables where !renamedTo.contains(table.name) {
      guard let before = old.object(type: "table", name: table.name), before.sql != table.sql else { continue }
      let renames = columnRenames[table.name.lowercased()] ?? [:]
      let carried = table.columns.compactMap { column -> CopiedColumn? in
        if before.columns.contains(column) { return CopiedColumn(newName: column, oldName: column) }
        if let old = renames[column], before.columns.contains(old) { return CopiedColumn(newName: column, oldName: old) }
        return nil
      }
      // Rows travel whole when their columns cannot be mapped by name (a
      // column was renamed), when a migration converted values, and when
      // the table has a new b-tree: rebuilt by hand (SQLite's twelve steps,
      // a GRDB migration), its rows are whatever the rebuild wrote
      // (`INSERT … SELECT` of computed values), not copies of the old ones.
      // ALTER TABLE keeps the b-tree.
      let rebuiltByHand = before.rootPage != 0 && table.rootPage != 0 && before.rootPage != table.rootPage
      let rowsTravelWhole = carried.count < min(before.columns.count, table.columns.count)
        || rewrittenTables.contains(table.name.lowercased()) || rebuiltByHand
      let copied = rowsTravelWhole ? [] : carried
      let dependents = new.objects.filter { object in
        object.tableName == table.name && (object.type == "index" || object.type == "trigger")
          && old.objects.contains { $0.type == object.type && $0.name == object.name && $0.sql == object.sql }
      }.map(\.sql)
      changes.append(.rebuildTable(name: table.name, createSQL: table.sql, copiedColumns: copied, dependents: dependents))
      alteredTables.append(table.name)
      if rowsTravelWhole { tablesNeedingRows.append(table.name) }
    }

    // Creates, in creation order.
    for object in new.objects where !renamedTo.contains(object.name) {
      let before = old.object(type: object.type, name: object.name)
      if before == nil || (object.type != "table" && before!.sql != object.sql) {
        changes.append(.execute(sql: object.sql))
        if object.type == "table" { createdTables.append(object.name) }
      }
    }
  }
}

