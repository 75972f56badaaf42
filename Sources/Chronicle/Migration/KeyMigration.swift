import Crypto
import Foundation
import GRDB

/// Integer primary keys that become UUIDs, the same on every peer and in
/// every replay: a name-based (version 5) UUID of the row's origin peer, the
/// table and the old key.
public enum KeyMigration {
  /// Chronicle's namespace for key UUIDs.
  static let namespace: [UInt8] = PeerID(UUID(uuidString: "8c0f3e52-5d1e-4c57-9a8e-43b1f0c2a7d9")!).bytes

  /// The UUID (lower-case text) that `key` of `table` becomes, for a row
  /// first inserted by `origin`.
  public static func uuid(origin: PeerID, table: String, key: Int64) -> String {
    var name = namespace + origin.bytes
    name += Array(table.lowercased().utf8) + [0] + Array(String(key).utf8)
    var bytes = Array(Insecure.SHA1.hash(data: name).prefix(16))
    bytes[6] = bytes[6] & 0x0F | 0x50  // version 5
    bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 4122 variant
    return PeerID(bytes: bytes)!.description
  }

  /// For each key of `table` inserted by the log's events at or before
  /// `through`, the origin of its earliest insert (by clock, then peer): the
  /// peer the row's UUID derives from.
  static func rowOrigins(_ db: Database, table: String, column: String, through: Int64) throws -> [Int64: PeerID] {
    var earliest: [Int64: WriteVersion] = [:]
    try EventLog.forEach(db, EventFilter(positions: Int64.min...through, table: table)) { stored in
      let event = stored.event
      let version = WriteVersion(timestamp: event.timestamp, origin: event.origin)
      for case .insert(let index, let values) in event.operations {
        let descriptor = event.tables[index]
        guard descriptor.name.lowercased() == table.lowercased(),
              let position = descriptor.columns.firstIndex(where: { $0.lowercased() == column.lowercased() }),
              case .integer(let key) = values[position]
        else { continue }
        if earliest[key].map({ version < $0 }) ?? true { earliest[key] = version }
      }
    }
    return earliest.mapValues(\.origin)
  }
}

extension MigrationBuilder {
  /// Turns the integer primary key of `table` into UUIDs (as TEXT): each
  /// row's key becomes ``KeyMigration/uuid(origin:table:key:)`` of the peer
  /// that first inserted it, and every column of another table with a
  /// foreign key to it is rewritten the same way. Older events, and events
  /// of peers that have not migrated yet, are upcast through the same mapping.
  public mutating func migrateKeysToUUID(in table: String) throws {
    guard let shape = try TableShape.read(db, table: table) else { throw ChronicleError.noSuchTable(table) }
    guard shape.primaryKey.count == 1 else {
      throw ChronicleError.migrationFailed(migration: name, reason: "\(table) has a composite primary key; only a single INTEGER key can become a UUID")
    }
    let column = shape.columns[shape.primaryKey[0]]
    let declared = try String.fetchOne(
      db, sql: "SELECT upper(type) FROM pragma_table_info(?, 'main') WHERE name = ?", arguments: [shape.name, column]) ?? ""
    guard declared == "INTEGER" || declared == "INT" else {
      throw ChronicleError.migrationFailed(migration: name, reason: "\(table).\(column) is \(declared), not INTEGER")
    }
    // Columns of other tables that refer to this key.
    var references: [ColumnReference] = []
    let tables = try String.fetchAll(db, sql: "SELECT name FROM main.sqlite_schema WHERE type = 'table' ORDER BY name")
      .filter { !InternalSchema.isReserved($0) }
    for (other, mapping) in try ForeignKeyGraph(db: db).foreignKeys(referringTo: shape.name, from: tables) {
      for pair in mapping where pair.destination.lowercased() == column.lowercased() {
        guard mapping.count == 1 else {
          throw ChronicleError.migrationFailed(migration: name, reason: "\(other) refers to \(table) with a composite foreign key")
        }
        references.append(ColumnReference(table: other, column: pair.origin))
      }
    }

    let through = try EventLog.lastPosition(db)
    let origins = try KeyMigration.rowOrigins(db, table: shape.name, column: column, through: through)
    let fallback = localPeer
    let tableName = shape.name
    let function = DatabaseFunction("chronicle_migrated_key", argumentCount: 1, pure: true) { values in
      guard let key = Int64.fromDatabaseValue(values[0]) else { return values[0] }  // NULL, or already text
      return KeyMigration.uuid(origin: origins[key] ?? fallback, table: tableName, key: key)
    }
    db.add(function: function)
    defer { db.remove(function: function) }

    var retyped: [String: Set<String>] = [shape.name.lowercased(): [column.lowercased()]]
    for reference in references { retyped[reference.table.lowercased(), default: []].insert(reference.column.lowercased()) }
    try db.execute(sql: "PRAGMA legacy_alter_table = ON")
    defer { try? db.execute(sql: "PRAGMA legacy_alter_table = OFF") }
    for (lowered, columns) in retyped.sorted(by: { $0.key < $1.key }) {
      guard let object = try Row.fetchOne(
        db, sql: "SELECT name, sql FROM main.sqlite_schema WHERE type = 'table' AND lower(name) = ?", arguments: [lowered])
      else { continue }
      let current: String = object[0]
      let temporary = "chronicle_migrating_\(current)"
      let dependents = try String.fetchAll(
        db, sql: "SELECT sql FROM main.sqlite_schema WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL",
        arguments: [current])
      let names = try String.fetchAll(
        db, sql: "SELECT name FROM pragma_table_xinfo(?, 'main') WHERE hidden = 0 ORDER BY cid", arguments: [current])
      let isKeyTable = lowered == shape.name.lowercased()
      try db.execute(sql: try CreateTableRewriter.rewrite(
        object[1], newName: temporary, retype: Dictionary(uniqueKeysWithValues: columns.map { ($0, "TEXT") }),
        notNull: isKeyTable ? [column.lowercased()] : []))
      // Only integers go through the function: anything else stays as it is,
      // byte for byte (a function's TEXT result would be cut at a NUL by GRDB).
      let selected = names.map { name -> String in
        let column = quotedIdentifier(name)
        guard columns.contains(name.lowercased()) else { return column }
        return "CASE WHEN typeof(\(column)) = 'integer' THEN chronicle_migrated_key(\(column)) ELSE \(column) END"
      }
      try db.execute(sql: """
        INSERT INTO \(quotedIdentifier(temporary)) (\(names.map(quotedIdentifier).joined(separator: ", ")))
        SELECT \(selected.joined(separator: ", ")) FROM main.\(quotedIdentifier(current))
        """)
      try db.execute(sql: "DROP TABLE main.\(quotedIdentifier(current))")
      try db.execute(sql: "ALTER TABLE \(quotedIdentifier(temporary)) RENAME TO \(quotedIdentifier(current))")
      for sql in dependents { try db.execute(sql: sql) }
    }
    keyOrigins[shape.name.lowercased()] = origins
    steps.append(.migrateKeys(table: shape.name, column: column, references: references))
  }
}

/// Rewrites a CREATE TABLE statement: another name, other declared types for
/// some columns, NOT NULL added to others. Quotes and nesting are respected.
enum CreateTableRewriter {
  static func rewrite(_ sql: String, newName: String, retype: [String: String], notNull: Set<String>) throws -> String {
    let characters = Array(sql)
    guard let open = characters.firstIndex(of: "(") else { throw ChronicleError.rebuildFailed("no column list in \(sql)") }
    // Split the column list at top-level commas.
    var segments: [String] = []
    var current = ""
    var depth = 0
    var quote: Character?
    var index = open + 1
    var close: Int?
    while index < characters.count {
      let character = characters[index]
      if let open = quote {
        current.append(character)
        let closing: Character = open == "[" ? "]" : open
        if character == closing { quote = nil }
      } else if character == "'" || character == "\"" || character == "`" || character == "[" {
        quote = character
        current.append(character)
      } else if character == "(" {
        depth += 1
        current.append(character)
      } else if character == ")" {
        if depth == 0 { close = index; break }
        depth -= 1
        current.append(character)
      } else if character == "," && depth == 0 {
        segments.append(current)
        current = ""
      } else {
        current.append(character)
      }
      index += 1
    }
    guard let close else { throw ChronicleError.rebuildFailed("unbalanced column list in \(sql)") }
    segments.append(current)
    let constraintWords: Set<String> = ["CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE", "CHECK", "DEFAULT", "COLLATE", "REFERENCES", "GENERATED", "AS"]
    let tableConstraintWords: Set<String> = ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"]
    let rewritten = segments.map { segment -> String in
      let trimmed = segment.trimmingCharacters(in: .whitespacesAndNewlines)
      let (name, rest) = splitFirstToken(trimmed)
      let unquoted = unquote(name).lowercased()
      guard !tableConstraintWords.contains(name.uppercased()) else { return trimmed }
      var definition = trimmed
      if let type = retype[unquoted] {
        let (second, afterSecond) = splitFirstToken(rest)
        if !second.isEmpty, second.first!.isLetter, !constraintWords.contains(second.uppercased()) {
          definition = "\(name) \(type)\(afterSecond.isEmpty ? "" : " " + afterSecond)"
        } else {
          definition = "\(name) \(type)\(rest.isEmpty ? "" : " " + rest)"
        }
      }
      if notNull.contains(unquoted), !definition.uppercased().contains("NOT NULL") { definition += " NOT NULL" }
      return definition
    }
    let tail = String(characters[(close + 1)...])
    return "CREATE TABLE \(quotedIdentifier(newName)) (\(rewritten.joined(separator: ", ")))\(tail)"
  }

  /// The first token (a quoted identifier or a word) and the rest, trimmed.
  private static func splitFirstToken(_ text: String) -> (String, String) {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard let first = trimmed.first else { return ("", "") }
    var end = trimmed.startIndex
    if first == "\"" || first == "`" || first == "[" {
      let closing: Character = first == "[" ? "]" : first
      end = trimmed.index(after: end)
      while end < trimmed.endIndex && trimmed[end] != closing { end = trimmed.index(after: end) }
      if end < trimmed.endIndex { end = trimmed.index(after: end) }
    } else {
      while end < trimmed.endIndex && !trimmed[end].isWhitespace && trimmed[end] != "(" { end = trimmed.index(after: end) }
    }
    return (String(trimmed[..<end]), trimmed[end...].trimmingCharacters(in: .whitespacesAndNewlines))
  }

  private static func unquote(_ name: String) -> String {
    guard let first = name.first, first == "\"" || first == "`" || first == "[" else { return name }
    return String(name.dropFirst().dropLast())
  }
}
