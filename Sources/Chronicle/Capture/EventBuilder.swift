/// Accumulates the tables and operations of one event.
struct EventBuilder {
  private(set) var tables: [TableDescriptor] = []
  private var tableIndexes: [ObjectIdentifier: Int] = [:]
  var operations: [EventOperation] = []

  mutating func index(of table: TrackedTable) -> Int {
    if let index = tableIndexes[ObjectIdentifier(table)] { return index }
    tables.append(table.descriptor)
    tableIndexes[ObjectIdentifier(table)] = tables.count - 1
    return tables.count - 1
  }

  /// Adds the operation that takes a row from `before` to `after` (each nil
  /// when the row does not exist; a nil entry in `before` is an unknown value,
  /// always treated as changed).
  mutating func addRowChange(table: TrackedTable, key: [SQLiteValue], before: [SQLiteValue?]?, after: [SQLiteValue]?) {
    switch (before, after) {
    case (nil, nil):
      return
    case (nil, let after?):
      operations.append(.insert(table: index(of: table), values: after))
    case (_?, nil):
      operations.append(.delete(table: index(of: table), key: key))
    case (let before?, let after?):
      var changes: [ColumnValue] = []
      for (column, value) in after.enumerated() where before[column] != value {
        changes.append(ColumnValue(column: column, value: value))
      }
      guard !changes.isEmpty else { return }
      operations.append(.update(table: index(of: table), key: key, changes: changes))
    }
  }
}
