import Foundation
import GRDB

/// Reads older events in the current shape: each row operation passes
/// through the steps of the migrations recorded after it.
///
/// Renames, added and dropped columns are applied when the row still has the
/// old shape, so a received event written in the new shape by a peer that
/// migrated first passes through unchanged. Conversions and custom upcasters
/// apply to events older (in this log) than their migration.
struct EventUpcaster {
  /// Migrations in log order, at their log positions.
  let migrations: [(position: Int64, migration: SchemaMigration)]
  let upcasters: Upcasters
  let localPeer: PeerID
  /// For each key migration (by its log position and lower-cased table), the
  /// origin of each key's earliest insert before it.
  let keyOrigins: [KeyMigrationID: [Int64: PeerID]]
  /// Whether steps whose code is not registered leave rows as they are
  /// (merging, which needs names and keys, not converted values) instead of failing.
  var skipsMissingCode = false

  struct KeyMigrationID: Hashable {
    var position: Int64
    var table: String
  }

  init(migrations: [(position: Int64, migration: SchemaMigration)], upcasters: Upcasters, localPeer: PeerID, keyOrigins: [KeyMigrationID: [Int64: PeerID]] = [:]) {
    self.migrations = migrations
    self.upcasters = upcasters
    self.localPeer = localPeer
    self.keyOrigins = keyOrigins
  }

  /// The upcaster of the migrations in `db`'s log, with what key migrations need.
  ///
  /// - Parameter forMerging: for sync and folds, which run often: only
  ///   migrations run through `migrate` count (checked in `chronicle_meta`
  ///   first, so a database without any pays one lookup); a rebuild also
  ///   follows tables renamed outside a migration.
  static func load(
    _ db: Database, localPeer: PeerID, upcasters: Upcasters, skipsMissingCode: Bool = false, forMerging: Bool = false
  ) throws -> EventUpcaster {
    if forMerging {
      if try !ChronicleMeta(db: db).hasMigrations() { return EventUpcaster(migrations: [], upcasters: upcasters, localPeer: localPeer) }
    }
    var found = try migrations(db, localPeer: localPeer)
    if forMerging { found.removeAll { isImplicit($0.migration) } }
    var origins: [KeyMigrationID: [Int64: PeerID]] = [:]
    for (position, migration) in found {
      for case .migrateKeys(let table, let column, _) in migration.steps {
        origins[KeyMigrationID(position: position, table: table.lowercased())] =
          try KeyMigration.rowOrigins(db, table: table, column: column, through: position - 1)
      }
    }
    var upcaster = EventUpcaster(migrations: found, upcasters: upcasters, localPeer: localPeer, keyOrigins: origins)
    upcaster.skipsMissingCode = skipsMissingCode
    return upcaster
  }

  /// The migrations recorded in this peer's own events.
  static func migrations(_ db: Database, localPeer: PeerID) throws -> [(position: Int64, migration: SchemaMigration)] {
    // Migrations advance the epoch: only events where it changed can hold one.
    let positions = try EventLog.schemaEpochChanges(db, origin: localPeer)
    var found: [(Int64, SchemaMigration)] = []
    // Migrations of compacted events are kept in the baseline. Its event
    // holds every row: it is decoded only when a migration was recorded
    // through it, not on every merge.
    if let header = try LogBaseline.Header.read(db), try ChronicleMeta(db: db).hasMigrations(through: header.throughPosition),
       let baseline = try LogBaseline.read(db) {
      for case .schema(.migration(let migration)) in baseline.event.operations { found.append((baseline.throughPosition, migration)) }
    }
    for position in positions {
      guard let stored = try EventLog.events(db, EventFilter(positions: position...position)).first else { continue }
      let recorded = stored.event.operations.contains { if case .schema(.migration) = $0 { true } else { false } }
      for operation in stored.event.operations {
        switch operation {
        case .schema(.migration(let migration)):
          found.append((position, migration))
        case .schema(.execute(let sql)) where !recorded:
          // A table renamed outside a migration is a migration all the same.
          if let (from, to) = tableRename(sql) {
            found.append((position, SchemaMigration(name: implicitPrefix + from, steps: [.renameTable(from: from, to: to)])))
          }
        default:
          break
        }
      }
    }
    return found
  }

  /// Name prefix of the migrations that stand for tables renamed outside `migrate`.
  static let implicitPrefix = "\u{0}rename "

  static func isImplicit(_ migration: SchemaMigration) -> Bool { migration.name.hasPrefix(implicitPrefix) }

  /// The names in `ALTER TABLE "a" RENAME TO "b"`, as capture records a table rename.
  static func tableRename(_ sql: String) -> (from: String, to: String)? {
    var tokens: [String] = []
    var index = sql.startIndex
    while index < sql.endIndex {
      let character = sql[index]
      if character.isWhitespace {
        index = sql.index(after: index)
      } else if character == "\"" {
        var name = ""
        index = sql.index(after: index)
        while index < sql.endIndex {
          if sql[index] == "\"" {
            let next = sql.index(after: index)
            if next < sql.endIndex && sql[next] == "\"" { name.append("\""); index = sql.index(after: next); continue }
            index = next
            break
          }
          name.append(sql[index])
          index = sql.index(after: index)
        }
        tokens.append("\"" + name)
      } else {
        let start = index
        while index < sql.endIndex && !sql[index].isWhitespace { index = sql.index(after: index) }
        tokens.append(String(sql[start..<index]).uppercased())
      }
    }
    guard tokens.count == 6, tokens[0] == "ALTER", tokens[1] == "TABLE", tokens[3] == "RENAME", tokens[4] == "TO",
          tokens[2].hasPrefix("\""), tokens[5].hasPrefix("\"")
    else { return nil }
    return (String(tokens[2].dropFirst()), String(tokens[5].dropFirst()))
  }

  /// The name a table written at `position` has now.
  func currentName(ofTable table: String, writtenAt position: Int64) -> String {
    var name = table
    for (migrationPosition, migration) in migrations where migrationPosition > position {
      for case .renameTable(let from, let to) in migration.steps where from.lowercased() == name.lowercased() { name = to }
    }
    return name
  }

  /// Checks that every conversion and upcaster the migrations name is registered.
  func checkRegistered() throws {
    for (_, migration) in migrations {
      for step in migration.steps {
        switch step {
        case .convertColumn(_, _, let converter): _ = try upcasters.conversion(converter)
        case .custom(let upcaster, _): _ = try upcasters.upcaster(upcaster)
        default: break
        }
      }
    }
  }

  /// The row operations of `stored`, by name, in the current shape.
  func rows(of stored: StoredEvent) throws -> [UpcastRow] {
    try Self.namedRows(stored.event).flatMap { try upcast($0, of: stored) }
  }

  /// One row operation of `stored`, by name, in the current shape: each step
  /// works on one row at a time (and may drop it, or make several).
  func upcast(_ row: UpcastRow, of stored: StoredEvent) throws -> [UpcastRow] {
    var rows = [row]
    let isReceived = stored.event.origin != localPeer
    for (position, migration) in migrations where position > stored.id || isReceived {
      let isOlder = position > stored.id
      for step in migration.steps {
        rows = try rows.flatMap { try apply(step, to: $0, isOlder: isOlder, origin: stored.event.origin, at: position) }
      }
    }
    return rows
  }

  /// The positions (in ``migrations``) of the migrations whose steps apply
  /// to `stored`: those recorded after it, or all for another peer's event.
  func applicableMigrations(to stored: StoredEvent) -> [Int] {
    let isReceived = stored.event.origin != localPeer
    return migrations.indices.filter { isReceived || migrations[$0].position > stored.id }
  }

  /// Whether the steps of these migrations only rename, add and drop: what
  /// they do to a row depends on which columns it has, not on its values.
  func onlyReshapes(_ applicable: [Int]) -> Bool {
    applicable.allSatisfy { index in
      migrations[index].migration.steps.allSatisfy { step in
        switch step {
        case .renameTable, .renameColumn, .addColumn, .dropColumn: true
        case .convertColumn, .custom, .migrateKeys: false
        }
      }
    }
  }

  /// An event's row operations by column names.
  static func namedRows(_ event: ChangeEvent) -> [UpcastRow] {
    event.operations.compactMap { operation in
      guard let index = operation.tableIndex else { return nil }
      let descriptor = event.tables[index]
      func named(_ pairs: some Sequence<(Int, SQLiteValue)>) -> [NamedValue] {
        pairs.map { NamedValue(column: descriptor.columns[$0], value: $1) }
      }
      switch operation {
      case .insert(_, let values):
        return UpcastRow(
          table: descriptor.name, kind: .insert, key: named(descriptor.primaryKey.map { ($0, values[$0]) }),
          values: named(values.enumerated().map { ($0, $1) }))
      case .update(_, let key, let changes):
        return UpcastRow(
          table: descriptor.name, kind: .update, key: named(zip(descriptor.primaryKey, key)),
          values: named(changes.map { ($0.column, $0.value) }))
      case .delete(_, let key):
        return UpcastRow(table: descriptor.name, kind: .delete, key: named(zip(descriptor.primaryKey, key)), values: [])
      case .schema, .membership:
        return nil
      }
    }
  }

  private func apply(_ step: UpcastStep, to row: UpcastRow, isOlder: Bool, origin: PeerID, at position: Int64) throws -> [UpcastRow] {
    func same(_ a: String, _ b: String) -> Bool { a.isSameSQLName(as: b) }
    var row = row
    switch step {
    case .renameTable(let from, let to):
      if same(row.table, from) { row.table = to }
    case .renameColumn(let table, let from, let to):
      guard same(row.table, table) else { break }
      let columns = row.key.map(\.column) + row.values.map(\.column)
      guard columns.contains(where: { same($0, from) }), !columns.contains(where: { same($0, to) }) else { break }
      for index in row.key.indices where same(row.key[index].column, from) { row.key[index].column = to }
      for index in row.values.indices where same(row.values[index].column, from) { row.values[index].column = to }
    case .addColumn(let table, let column, let value):
      if same(row.table, table), row.kind == .insert, !row.values.contains(where: { same($0.column, column) }) {
        row.values.append(NamedValue(column: column, value: value))
      }
    case .dropColumn(let table, let column):
      guard same(row.table, table) else { break }
      row.values.removeAll { same($0.column, column) }
      if row.kind == .update && row.values.isEmpty { return [] }
    case .convertColumn(let table, let column, let converter):
      guard isOlder, same(row.table, table) else { break }
      guard let conversion = upcasters.conversions[converter] else {
        if skipsMissingCode { break }
        throw ChronicleError.missingUpcaster(converter)
      }
      for index in row.values.indices where same(row.values[index].column, column) {
        row.values[index].value = try conversion(row.values[index].value)
      }
    case .custom(let upcaster, let tables):
      guard isOlder, tables.contains(where: { same($0, row.table) }) else { break }
      guard let custom = upcasters.upcasters[upcaster] else {
        if skipsMissingCode { break }
        throw ChronicleError.missingUpcaster(upcaster)
      }
      return try custom(row)
    case .migrateKeys(let table, let column, let references):
      // Integer values only: a row already written with UUIDs passes through.
      let origins = keyOrigins[KeyMigrationID(position: position, table: table.lowercased())] ?? [:]
      func migrated(_ value: NamedValue) -> NamedValue {
        guard case .integer(let key) = value.value else { return value }
        return NamedValue(column: value.column, value: .text(KeyMigration.uuid(origin: origins[key] ?? origin, table: table, key: key)))
      }
      var columns: [String] = []
      if same(row.table, table) { columns.append(column) }
      for reference in references where same(row.table, reference.table) { columns.append(reference.column) }
      for target in columns {
        for index in row.key.indices where same(row.key[index].column, target) { row.key[index] = migrated(row.key[index]) }
        for index in row.values.indices where same(row.values[index].column, target) { row.values[index] = migrated(row.values[index]) }
      }
    }
    return [row]
  }

  /// An event holding `rows`, with one table descriptor per distinct shape.
  static func event(_ rows: [UpcastRow], like original: ChangeEvent) -> ChangeEvent {
    var tables: [TableDescriptor] = []
    var indexes: [TableDescriptor: Int] = [:]
    var operations: [EventOperation] = []
    for row in rows {
      let keyNames = row.key.map(\.column)
      let columns: [String]
      switch row.kind {
      case .insert: columns = row.values.map(\.column)
      case .update: columns = keyNames + row.values.map(\.column).filter { !keyNames.contains($0) }
      case .delete: columns = keyNames
      }
      let primaryKey = keyNames.compactMap { name in columns.firstIndex(of: name) }
      let descriptor = TableDescriptor(name: row.table, columns: columns, primaryKey: primaryKey)
      let index: Int
      if let known = indexes[descriptor] {
        index = known
      } else {
        index = tables.count
        tables.append(descriptor)
        indexes[descriptor] = index
      }
      switch row.kind {
      case .insert:
        operations.append(.insert(table: index, values: row.values.map(\.value)))
      case .update:
        let changes = row.values.compactMap { value in columns.firstIndex(of: value.column).map { ColumnValue(column: $0, value: value.value) } }
        operations.append(.update(table: index, key: row.key.map(\.value), changes: changes))
      case .delete:
        operations.append(.delete(table: index, key: row.key.map(\.value)))
      }
    }
    return ChangeEvent(
      origin: original.origin, sequence: original.sequence, timestamp: original.timestamp, schemaEpoch: original.schemaEpoch,
      tables: tables, operations: operations)
  }
}
