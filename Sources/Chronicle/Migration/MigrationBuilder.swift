import Foundation
import GRDB

/// What a migration asks capture to do beside recording it.
struct PendingMigration {
  var migration: SchemaMigration
  /// By lower-cased final table name: new column name to old.
  var columnRenames: [String: [String: String]] = [:]
  /// Lower-cased final names of tables whose values were converted.
  var rewrittenTables: Set<String> = []
}

/// Runs the steps of one migration, inside its transaction, and records
/// each as an ``UpcastStep`` so that older events can be read in the new
/// shape. Given to the body of ``ChronicleDatabase/migrate(_:upcasters:_:)``.
public struct MigrationBuilder {
  /// The migration's connection, for statements that need no upcasting
  /// (indexes, views, triggers, data fixes).
  public let db: Database
  let name: String
  let upcasters: Upcasters
  /// This database's peer.
  let localPeer: PeerID
  var steps: [UpcastStep] = []
  /// For each key migration, by lower-cased table: the origin each old key's UUID derives from.
  var keyOrigins: [String: [Int64: PeerID]] = [:]

  init(db: Database, name: String, upcasters: Upcasters, localPeer: PeerID) {
    self.db = db
    self.name = name
    self.upcasters = upcasters
    self.localPeer = localPeer
  }

  /// Renames a table (`ALTER TABLE ... RENAME TO`).
  public mutating func renameTable(_ table: String, to newName: String) throws {
    try db.execute(sql: "ALTER TABLE \(quotedIdentifier(table)) RENAME TO \(quotedIdentifier(newName))")
    steps.append(.renameTable(from: table, to: newName))
  }

  /// Renames a column (`ALTER TABLE ... RENAME COLUMN`).
  public mutating func renameColumn(_ column: String, to newName: String, in table: String) throws {
    try db.execute(sql: "ALTER TABLE \(quotedIdentifier(table)) RENAME COLUMN \(quotedIdentifier(column)) TO \(quotedIdentifier(newName))")
    steps.append(.renameColumn(table: table, from: column, to: newName))
  }

  /// Adds a column of a STRICT `type` (INTEGER, REAL, TEXT, BLOB, ANY) with a
  /// default: existing rows, and rows in older events, take it. The column is
  /// NOT NULL unless the default is NULL or `isNullable` is set.
  public mutating func addColumn(
    _ column: String, to table: String, type: String, default value: SQLiteValue, isNullable: Bool = false
  ) throws {
    let nullability = value == .null || isNullable ? "" : " NOT NULL"
    try db.execute(sql: """
      ALTER TABLE \(quotedIdentifier(table)) ADD COLUMN \(quotedIdentifier(column)) \(type)\(nullability) DEFAULT \(Self.literal(value))
      """)
    steps.append(.addColumn(table: table, column: column, default: value))
  }

  /// Drops a column (`ALTER TABLE ... DROP COLUMN`); older writes to it are ignored.
  public mutating func dropColumn(_ column: String, from table: String) throws {
    try db.execute(sql: "ALTER TABLE \(quotedIdentifier(table)) DROP COLUMN \(quotedIdentifier(column))")
    steps.append(.dropColumn(table: table, column: column))
  }

  /// Changes a column's type, converting every value with the conversion
  /// registered as `converter`. The column moves to the end of the table and
  /// is nullable; it cannot be part of the primary key, an index or a foreign key.
  public mutating func convertColumn(_ column: String, in table: String, to type: String, using converter: String) throws {
    let conversion = try upcasters.conversion(converter)
    guard let shape = try TableShape.read(db, table: table) else { throw ChronicleError.noSuchTable(table) }
    guard shape.columns.contains(column) else {
      throw ChronicleError.migrationFailed(migration: name, reason: "\(table) has no column \(column)")
    }
    let temporary = "chronicle_converted_\(column)"
    let quotedTable = quotedIdentifier(table)
    try db.execute(sql: "ALTER TABLE \(quotedTable) ADD COLUMN \(quotedIdentifier(temporary)) \(type)")
    let key = shape.primaryKey.map { shape.columns[$0] }
    let keyList = key.map(quotedIdentifier).joined(separator: ", ")
    let condition = key.map { "\(quotedIdentifier($0)) = ?" }.joined(separator: " AND ")
    let rows = try db.fetchRows(sql: "SELECT \(keyList), \(quotedIdentifier(column)) FROM \(quotedTable)", cached: false)
    let update = try db.makeStatement(sql: "UPDATE \(quotedTable) SET \(quotedIdentifier(temporary)) = ? WHERE \(condition)")
    for values in rows {
      let converted = try conversion(values[key.count])
      update.bindExactly([converted] + values[0..<key.count])
      try update.execute()
    }
    try db.execute(sql: "ALTER TABLE \(quotedTable) DROP COLUMN \(quotedIdentifier(column))")
    try db.execute(sql: "ALTER TABLE \(quotedTable) RENAME COLUMN \(quotedIdentifier(temporary)) TO \(quotedIdentifier(column))")
    steps.append(.convertColumn(table: table, column: column, converter: converter))
  }

  /// Runs `body` (any schema and data changes: a split, a merge) and records
  /// that older row operations on `tables` pass through the upcaster
  /// registered as `upcaster`.
  public mutating func custom(_ upcaster: String, tables: [String], _ body: (Database) throws -> Void) throws {
    _ = try upcasters.upcaster(upcaster)
    try body(db)
    steps.append(.custom(upcaster: upcaster, tables: tables))
  }

  /// What capture needs to record the migration without dumping the rows
  /// of renamed columns, and with the rows of converted ones.
  var pending: PendingMigration {
    var pending = PendingMigration(migration: SchemaMigration(name: name, steps: steps))
    // Steps name tables as they were at that step: follow later renames.
    func finalName(_ table: String, after index: Int) -> String {
      var name = table
      for step in steps[(index + 1)...] {
        if case .renameTable(let from, let to) = step, from.lowercased() == name.lowercased() { name = to }
      }
      return name.lowercased()
    }
    for (index, step) in steps.enumerated() {
      switch step {
      case .renameColumn(let table, let from, let to):
        let final = finalName(table, after: index)
        var renames = pending.columnRenames[final] ?? [:]
        renames[to] = renames.removeValue(forKey: from) ?? from  // chains: a -> b -> c
        pending.columnRenames[final] = renames
      case .convertColumn(let table, _, _):
        pending.rewrittenTables.insert(finalName(table, after: index))
      case .migrateKeys(let table, _, let references):
        pending.rewrittenTables.insert(finalName(table, after: index))
        for reference in references { pending.rewrittenTables.insert(finalName(reference.table, after: index)) }
      default:
        break
      }
    }
    return pending
  }

  /// A SQL literal for a default value.
  static func literal(_ value: SQLiteValue) -> String {
    switch value {
    case .null: "NULL"
    case .integer(let integer): String(integer)
    case .real(let real): real.isFinite ? "\(real)" : (real > 0 ? "9e999" : "-9e999")
    case .text, .blob: value.description  // quoted as SQL: 'it''s', X'0A1B'
    }
  }
}

extension ChronicleDatabase {
  /// Runs a schema migration once, in one write transaction whose event
  /// records its steps (a schema-epoch event), so that replay, rebuild and
  /// upcasting read older events in the new shape.
  ///
  /// ```swift
  /// try database.migrate("2026-11 titles") { migration in
  ///   try migration.renameColumn("name", to: "title", in: "lists")
  ///   try migration.addColumn("priority", to: "lists", type: "INTEGER", default: .integer(0))
  /// }
  /// ```
  ///
  /// Foreign keys are off while the migration runs, as SQLite's procedure
  /// for schema changes asks (a table rebuilt or dropped must not cascade),
  /// and `PRAGMA foreign_key_check` must pass before it commits; deleting a
  /// parent row in a migration does not cascade to its children.
  ///
  /// - Returns: false when a migration of that name was applied before (nothing runs).
  @discardableResult
  public func migrate(
    _ name: String, upcasters: Upcasters = Upcasters(), _ body: (inout MigrationBuilder) throws -> Void
  ) throws -> Bool {
    let session = self.session
    // As SQLite's ALTER TABLE procedure asks: foreign keys off while the
    // schema changes (a dropped parent must not cascade), checked before commit.
    return try writer.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA foreign_keys = OFF")
      defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
      var ran = false
      try db.inTransaction(.immediate) {
        let meta = ChronicleMeta(db: db)
        if try meta.contains(.migration(name)) { return .commit }
        var builder = MigrationBuilder(db: db, name: name, upcasters: upcasters, localPeer: session.peer)
        do {
          try body(&builder)
        } catch let error as DatabaseError {
          throw ChronicleError.migrationFailed(migration: name, reason: error.message ?? "\(error)")
        }
        // Merge states folded so far take the new shape; events folded later
        // are upcast as they are folded.
        try MergeStateMigration.apply(builder.steps, keyOrigins: builder.keyOrigins, localPeer: session.peer, upcasters: upcasters, db)
        let violations = try Row.fetchAll(db, sql: "PRAGMA main.foreign_key_check")
        guard violations.isEmpty else {
          throw ChronicleError.migrationFailed(
            migration: name, reason: "it breaks \(violations.count) foreign key(s), first in table \(violations[0][0] as String? ?? "?")")
        }
        session.pendingMigration = builder.pending
        defer { session.pendingMigration = nil }
        let appended = try appendLocalEvent(db)
        try meta.set(.migration(name), to: appended?.id)
        ran = true
        return .commit
      }
      return ran
    }
  }

  /// Names of the migrations applied to this database, oldest first.
  public func appliedMigrations() throws -> [String] {
    try read { db in
      try ChronicleMeta(db: db).migrationNames()
    }
  }
}
