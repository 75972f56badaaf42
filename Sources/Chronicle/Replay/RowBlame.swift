import Foundation
import GRDB

/// Who set each value of one row, and the row's history.
public struct RowBlame: Sendable {
  /// One write, delete or insert of the row, as the log records it.
  public struct Entry: Sendable, Hashable {
    /// Log position.
    public var position: Int64
    public var event: EventID
    public var timestamp: HLCTimestamp
    public var kind: RowOperationKind
    /// The values written (every column for an insert, the changed ones for
    /// an update, none for a delete).
    public var values: [NamedValue]
    /// Whether the event came from another peer.
    public var isReceived: Bool
  }

  /// The write that set one column's current value.
  public struct Column: Sendable, Hashable {
    public var column: String
    /// The value in the table now; nil when the row is not there.
    public var value: SQLiteValue?
    /// The winning write (latest clock reading, then peer id, as sync
    /// decides); nil when no event wrote the column (a default filled in
    /// when the column was added).
    public var setBy: Entry?
    /// False when the table holds another value than the winning write:
    /// the table and the log disagree (`chronicle verify` tells more).
    public var matchesLog: Bool
  }

  public var table: String
  public var key: [NamedValue]
  /// The row in its table now; nil when it is not there (deleted or parked).
  public var current: [NamedValue]?
  /// Each current column (or the one asked for).
  public var columns: [Column]
  /// Every operation on the row, oldest first (log order).
  public var history: [Entry]
  /// Whether the row's earlier history may lie where ``history`` does not
  /// reach: a compaction baseline, a rename of the table, a migration of
  /// its keys.
  public var historyMayBePartial = false

  /// False when the row is in its table but the log never inserted it: a
  /// write made around Chronicle (`chronicle verify` lists them, `chronicle
  /// adopt` records them). (A row the log deleted may be back by a newer
  /// write merged after: that the values column by column tell.)
  public var isExplainedByLog: Bool {
    guard current != nil, !historyMayBePartial else { return true }
    return history.contains { $0.kind == .insert }
  }
}

extension ChronicleLogSource {
  /// Which event set each current value of a row, and its whole history.
  ///
  /// - Parameters:
  ///   - table: the table.
  ///   - key: the primary key, as text: one value per key column in key
  ///     order (`42`), or `column=value` pairs (`a=1`, `b=x`). Values are
  ///     read by the column's declared type; a BLOB is written `x'0a1b'`.
  ///   - column: only this column's blame; all columns by default.
  ///
  /// Column renames are followed back through history; a table rename is not
  /// (the history starts at the rename).
  public func blame(table: String, key: [String], column: String? = nil) throws -> RowBlame {
    let (tableName, keyValues, liveColumns) = try read { db in
      guard let shape = try TableShape.read(db, table: table) else { throw ChronicleError.noSuchTable(table) }
      return (shape.name, try PrimaryKeyText.parse(key, table: shape.name, db), shape.columns)
    }
    if let column, !liveColumns.contains(where: { $0.lowercased() == column.lowercased() }) {
      throw ChronicleError.invalidKey(table: tableName, detail: "it has no column \"\(column)\"; its columns are \(liveColumns.joined(separator: ", "))")
    }
    let peer = peerID
    let wantedKey = Dictionary(uniqueKeysWithValues: keyValues.map { ($0.column.lowercased(), $0.value) })

    // Walk the events that touch the table, and the local ones that change
    // the schema (column renames), in log order.
    var history: [RowBlame.Entry] = []
    /// Per entry, the names its columns have now.
    var renames: [(position: Int64, newName: String, oldName: String)] = []
    var partial = try read { db in try LogBaseline.Header.read(db) != nil }
    try read { db in
      let positions = Set(try EventLog.positions(db, touchingTable: tableName) + EventLog.schemaEpochChanges(db, origin: peer)).sorted()
      for position in positions {
        guard let stored = try EventLog.events(db, EventFilter(positions: position...position)).first else { continue }
        let event = stored.event
        for operation in event.operations {
          switch operation {
          case .schema(.execute(let sql)) where Self.renamesTable(sql, to: tableName):
            partial = true
          case .schema(.migration(let migration)):
            for case .migrateKeys(let table, _, _) in migration.steps where table.lowercased() == tableName.lowercased() { partial = true }
          default: break
          }
          if case .schema(.rebuildTable(let name, _, let copied, _)) = operation, name.lowercased() == tableName.lowercased() {
            for pair in copied where pair.newName != pair.oldName { renames.append((stored.id, pair.newName, pair.oldName)) }
            continue
          }
          guard let tableIndex = operation.tableIndex, event.tables[tableIndex].name.lowercased() == tableName.lowercased() else { continue }
          let descriptor = event.tables[tableIndex]
          let kind: RowOperationKind
          let keyValues: [SQLiteValue]
          var written: [NamedValue] = []
          switch operation {
          case .insert(_, let values):
            kind = .insert
            keyValues = descriptor.primaryKey.map { values[$0] }
            written = zip(descriptor.columns, values).map { NamedValue(column: $0, value: $1) }
          case .update(_, let key, let changes):
            kind = .update
            keyValues = key
            written = changes.map { NamedValue(column: descriptor.columns[$0.column], value: $0.value) }
          case .delete(_, let key):
            kind = .delete
            keyValues = key
          case .schema, .membership:
            continue
          }
          let names = descriptor.primaryKey.map { descriptor.columns[$0].lowercased() }
          guard names.count == wantedKey.count, zip(names, keyValues).allSatisfy({ wantedKey[$0] == $1 }) else { continue }
          history.append(RowBlame.Entry(
            position: stored.id, event: event.id, timestamp: event.timestamp, kind: kind, values: written,
            isReceived: event.origin != peer))
        }
      }
    }

    // Give each written column the name it has now, following renames made after it.
    func currentName(_ column: String, writtenAt position: Int64) -> String {
      var name = column
      for rename in renames where rename.position > position && rename.oldName.lowercased() == name.lowercased() {
        name = rename.newName
      }
      return name
    }
    var winners: [String: RowBlame.Entry] = [:]
    var winningValues: [String: SQLiteValue] = [:]
    for entry in history {
      for value in entry.values {
        let name = currentName(value.column, writtenAt: entry.position).lowercased()
        let version = WriteVersion(timestamp: entry.timestamp, origin: entry.event.origin)
        if let best = winners[name], WriteVersion(timestamp: best.timestamp, origin: best.event.origin) >= version { continue }
        winners[name] = entry
        winningValues[name] = value.value
      }
    }

    let current = try read { db in
      let condition: String = keyValues.map { "\(quotedIdentifier($0.column)) = ?" }.joined(separator: " AND ")
      return try db.fetchFirstNamedRow(
        sql: "SELECT * FROM main.\(quotedIdentifier(tableName)) WHERE \(condition)", values: keyValues.map(\.value))
    }
    let shown = liveColumns.filter { column == nil || $0.lowercased() == column!.lowercased() }
    let columns = shown.map { name -> RowBlame.Column in
      let value = current?.first { $0.column == name }?.value
      let winner = winners[name.lowercased()]
      let matches = current == nil || winner == nil || winningValues[name.lowercased()] == value
      return RowBlame.Column(column: name, value: value, setBy: winner, matchesLog: matches)
    }
    return RowBlame(table: tableName, key: keyValues, current: current, columns: columns, history: history, historyMayBePartial: partial)
  }
}

/// Reads a primary key typed on a command line.
enum PrimaryKeyText {
  static func parse(_ parts: [String], table: String, _ db: Database) throws -> [NamedValue] {
    let rows = try Row.fetchAll(
      db, sql: "SELECT name, type, pk FROM pragma_table_info(?, 'main') WHERE pk > 0 ORDER BY pk", arguments: [table])
    let columns = rows.map { (name: $0["name"] as String, type: ($0["type"] as String).uppercased()) }
    let keyList = columns.map(\.name).joined(separator: ", ")
    var texts: [String: String] = [:]
    let named = !parts.isEmpty && parts.allSatisfy { part in
      columns.contains { part.lowercased().hasPrefix($0.name.lowercased() + "=") }
    }
    if named {
      for part in parts {
        let equals = part.firstIndex(of: "=")!
        texts[part[..<equals].lowercased()] = String(part[part.index(after: equals)...])
      }
    } else {
      guard parts.count == columns.count else {
        throw ChronicleError.invalidKey(
          table: table, detail: "the key is (\(keyList)): give \(columns.count) value(s) in that order, or column=value pairs; got \(parts.count)")
      }
      for (column, text) in zip(columns, parts) { texts[column.name.lowercased()] = text }
    }
    return try columns.map { column in
      guard let text = texts[column.name.lowercased()] else {
        throw ChronicleError.invalidKey(table: table, detail: "no value for key column \(column.name); the key is (\(keyList))")
      }
      return NamedValue(column: column.name, value: try value(text, type: column.type, column: column.name, table: table))
    }
  }

  /// The value of `text` in a column of declared `type` (STRICT types).
  static func value(_ text: String, type: String, column: String, table: String) throws -> SQLiteValue {
    func bad(_ expected: String) -> ChronicleError {
      .invalidKey(table: table, detail: "\(column) is \(type), and \"\(text)\" is not \(expected)")
    }
    switch type {
    case "INTEGER", "INT":
      guard let integer = Int64(text) else { throw bad("an integer") }
      return .integer(integer)
    case "REAL":
      guard let real = Double(text) else { throw bad("a number") }
      return .real(real)
    case "BLOB":
      guard let blob = hexBlob(text) else { throw bad("a blob written x'0a1b'") }
      return .blob(blob)
    case "TEXT":
      return .text(text)
    default:  // ANY
      if let integer = Int64(text) { return .integer(integer) }
      if let real = Double(text) { return .real(real) }
      if let blob = hexBlob(text) { return .blob(blob) }
      return .text(text)
    }
  }

  private static func hexBlob(_ text: String) -> Data? {
    guard text.count >= 3, text.lowercased().hasPrefix("x'"), text.hasSuffix("'") else { return nil }
    let hex = Array(text.dropFirst(2).dropLast().utf8)
    guard hex.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    for index in stride(from: 0, to: hex.count, by: 2) {
      guard let byte = UInt8(String(decoding: hex[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
      bytes.append(byte)
    }
    return Data(bytes)
  }
}

extension ChronicleLogSource {
  /// Whether `sql` is an `ALTER TABLE … RENAME TO table`.
  fileprivate static func renamesTable(_ sql: String, to table: String) -> Bool {
    let words = sql.split(whereSeparator: \.isWhitespace).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"`[];")) }
    guard words.count >= 6, words[0].uppercased() == "ALTER", words[1].uppercased() == "TABLE" else { return false }
    return words[words.count - 3].uppercased() == "RENAME" && words[words.count - 2].uppercased() == "TO"
      && words[words.count - 1].lowercased() == table.lowercased()
  }
}
