import Foundation
import GRDB

/// Reshapes the merge state (`chronicle_rows`) the way a migration reshaped
/// the tables, so that later merges compare versions of the same columns and
/// bring deleted rows back in the new shape.
enum MergeStateMigration {
  /// - Parameter keyOrigins: for each key migration, by lower-cased table,
  ///   the origin each old key's UUID derives from.
  static func apply(
    _ steps: [UpcastStep], keyOrigins: [String: [Int64: PeerID]], localPeer: PeerID, upcasters: Upcasters,
    skipsMissingCode: Bool = false, _ db: Database
  ) throws {
    let store = MergeStore(db: db)
    func same(_ a: String, _ b: String) -> Bool { a.isSameSQLName(as: b) }
    for step in steps {
      switch step {
      case .renameTable(let from, let to):
        try store.renameTable(from: from, to: to)
      case .renameColumn(let table, let from, let to):
        try forEachState(of: table, store, db) { _, state in
          if let version = state.clocks.removeValue(forKey: from) { state.clocks[to] = version }
          if let value = state.retained?.removeValue(forKey: from) { state.retained![to] = value }
          return nil
        }
      case .addColumn(let table, let column, let value):
        try forEachState(of: table, store, db) { _, state in
          if state.retained != nil, state.retained![column] == nil { state.retained![column] = value }
          return nil
        }
      case .dropColumn(let table, let column):
        try forEachState(of: table, store, db) { _, state in
          state.clocks[column] = nil
          state.retained?[column] = nil
          return nil
        }
      case .convertColumn(let table, let column, let converter):
        // A replay without the app's code leaves retained values unconverted.
        guard let conversion = upcasters.conversions[converter] else {
          if skipsMissingCode { continue }
          throw ChronicleError.missingUpcaster(converter)
        }
        try forEachState(of: table, store, db) { _, state in
          if let value = state.retained?[column] { state.retained![column] = try conversion(value) }
          return nil
        }
      case .custom:
        break  // the upcaster maps row operations, not merge states
      case .migrateKeys(let table, let column, let references):
        let origins = keyOrigins[table.lowercased()] ?? [:]
        func uuid(_ value: SQLiteValue) -> SQLiteValue {
          guard case .integer(let key) = value else { return value }
          return .text(KeyMigration.uuid(origin: origins[key] ?? localPeer, table: table, key: key))
        }
        try forEachState(of: table, store, db) { key, state in
          if let value = state.retained?[column] { state.retained![column] = uuid(value) }
          return key.map(uuid)
        }
        for reference in references {
          try forEachState(of: reference.table, store, db) { _, state in
            if let value = state.retained?[reference.column] { state.retained![reference.column] = uuid(value) }
            return nil
          }
        }
      }
    }
  }

  /// Loads, changes and saves every merge state of `table`; `body` may
  /// return a new key for the row.
  private static func forEachState(
    of table: String, _ store: MergeStore, _ db: Database,
    _ body: (_ key: [SQLiteValue], inout RowMergeState) throws -> [SQLiteValue]?
  ) throws {
    var states: [NamedMergeState] = []
    try store.forEachState(tables: table) { states.append($0) }
    for named in states {
      var state = named.state
      let values = try decodeKey(named.key, table: named.table)
      if let newKey = try body(values, &state) {
        try store.delete(table: named.table, key: named.key)
        try store.save(table: named.table, key: try MergeStore.encodeKey(newKey), state)
      } else {
        try store.save(table: named.table, key: named.key, state)
      }
    }
  }

  private static func decodeKey(_ data: Data, table: String) throws -> [SQLiteValue] {
    do {
      return try MergeStateKey.decode(data)
    } catch {
      throw ChronicleError.corruptMergeState(table: table, detail: "\(error)")
    }
  }
}
