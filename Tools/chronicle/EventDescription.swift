import Chronicle
import Foundation

/// Readable and JSON forms of events, shared by `log` and `show`.
enum EventDescription {
  static func summary(_ stored: StoredEvent) -> String {
    let event = stored.event
    let tables = event.changedTableNames.sorted().joined(separator: ",")
    let schema = event.operations.count - event.rowChangeCount
    var line = "#\(stored.id)  \(event.id)  \(event.timestamp)  epoch \(event.schemaEpoch)  "
    line += "\(event.rowChangeCount) rows"
    if schema > 0 { line += " +\(schema) schema" }
    if !tables.isEmpty { line += "  [\(tables)]" }
    line += "  \(stored.rawSize)B raw / \(stored.storedSize)B stored"
    return line
  }

  static func operations(_ event: ChangeEvent) -> [String] {
    event.operations.map { operation in
      switch operation {
      case .schema(.execute(let sql)):
        return "schema  \(sql)"
      case .schema(.rebuildTable(let name, _, let copied, _)):
        return "schema  rebuild \(name) keeping \(copied.map(\.newName).joined(separator: ", "))"
      case .schema(.migration(let migration)):
        return "migration  \(migration.name): \(migration.steps.map(stepText).joined(separator: "; "))"
      case .insert(let table, let values):
        let descriptor = event.tables[table]
        let pairs = zip(descriptor.columns, values).map { "\($0)=\($1)" }.joined(separator: " ")
        return "insert  \(descriptor.name)  \(pairs)"
      case .update(let table, let key, let changes):
        let descriptor = event.tables[table]
        let pairs = changes.map { "\(descriptor.columns[$0.column])=\($0.value)" }.joined(separator: " ")
        return "update  \(descriptor.name) \(keyText(descriptor, key))  \(pairs)"
      case .delete(let table, let key):
        let descriptor = event.tables[table]
        return "delete  \(descriptor.name) \(keyText(descriptor, key))"
      case .membership(let change):
        return "members  \(change)"
      }
    }
  }

  static func stepText(_ step: UpcastStep) -> String {
    switch step {
    case .renameTable(let from, let to): "rename table \(from) to \(to)"
    case .renameColumn(let table, let from, let to): "rename \(table).\(from) to \(to)"
    case .addColumn(let table, let column, let value): "add \(table).\(column) default \(value)"
    case .dropColumn(let table, let column): "drop \(table).\(column)"
    case .convertColumn(let table, let column, let converter): "convert \(table).\(column) with \(converter)"
    case .custom(let upcaster, let tables): "upcast \(tables.joined(separator: ", ")) with \(upcaster)"
    case .migrateKeys(let table, let column, let references):
      "keys of \(table).\(column) to UUIDs" + (references.isEmpty ? "" : ", with \(references.map { "\($0.table).\($0.column)" }.joined(separator: ", "))")
    }
  }

  private static func keyText(_ descriptor: TableDescriptor, _ key: [SQLiteValue]) -> String {
    "[" + zip(descriptor.primaryKey, key).map { "\(descriptor.columns[$0])=\($1)" }.joined(separator: " ") + "]"
  }

  static func json(_ stored: StoredEvent, withOperations: Bool) -> [String: Any] {
    let event = stored.event
    var object: [String: Any] = [
      "position": stored.id, "origin": event.origin.description, "sequence": event.sequence,
      "hlc": event.timestamp.rawValue, "time": event.timestamp.description, "schemaEpoch": event.schemaEpoch,
      "rowChanges": event.rowChangeCount, "tables": event.changedTableNames.sorted(),
      "rawSize": stored.rawSize, "storedSize": stored.storedSize, "checksum": String(format: "%08x", stored.checksum),
    ]
    if withOperations {
      object["operations"] = event.operations.map { jsonOperation($0, event) }
    }
    return object
  }

  private static func jsonOperation(_ operation: EventOperation, _ event: ChangeEvent) -> [String: Any] {
    switch operation {
    case .schema(.execute(let sql)):
      return ["op": "schema", "sql": sql]
    case .schema(.rebuildTable(let name, let createSQL, let copied, let dependents)):
      return ["op": "rebuild", "table": name, "sql": createSQL, "copied": copied.map { [$0.newName, $0.oldName] }, "dependents": dependents]
    case .schema(.migration(let migration)):
      return ["op": "migration", "name": migration.name, "steps": migration.steps.map(stepText)]
    case .insert(let table, let values):
      let descriptor = event.tables[table]
      return ["op": "insert", "table": descriptor.name, "values": Dictionary(uniqueKeysWithValues: zip(descriptor.columns, values.map(jsonValue)))]
    case .update(let table, let key, let changes):
      let descriptor = event.tables[table]
      return ["op": "update", "table": descriptor.name, "key": keyObject(descriptor, key),
              "changes": Dictionary(uniqueKeysWithValues: changes.map { (descriptor.columns[$0.column], jsonValue($0.value)) })]
    case .delete(let table, let key):
      let descriptor = event.tables[table]
      return ["op": "delete", "table": descriptor.name, "key": keyObject(descriptor, key)]
    case .membership(let change):
      return ["op": "membership", "change": change.description]
    }
  }

  private static func keyObject(_ descriptor: TableDescriptor, _ key: [SQLiteValue]) -> [String: Any] {
    Dictionary(uniqueKeysWithValues: zip(descriptor.primaryKey.map { descriptor.columns[$0] }, key.map(jsonValue)))
  }

  /// NULL as JSON null, INTEGER and REAL as numbers (non-finite REAL as a
  /// string), TEXT as a string, BLOB as {"blob": base64}.
  static func jsonValue(_ value: SQLiteValue) -> Any {
    switch value {
    case .null: return NSNull()
    case .integer(let integer): return integer
    case .real(let real): return real.isFinite ? real : "\(real)"
    case .text(let text): return text
    case .blob(let blob): return ["blob": blob.base64EncodedString()]
    }
  }

  static func printJSON(_ object: Any) throws {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
  }
}
