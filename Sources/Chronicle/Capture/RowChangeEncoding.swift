import GRDBSQLite

extension EventBodyWriter {
  /// Writes the operation that takes a row from `before` to its current state
  /// (`row`, a statement positioned on it, or nil when the row does not exist).
  ///
  /// Absent then present is an insert, present then absent a delete, changed
  /// columns an update; nothing is written when nothing changed. A nil entry
  /// in `before` is an unknown value (a column added since), always treated as changed.
  mutating func appendRowChange(
    table: Int, key: RowKey, before: [SQLiteValue?]?, row: OpaquePointer?, columnCount: Int32
  ) throws(EventFormatError) {
    switch (before, row) {
    case (nil, nil):
      return
    case (nil, let row?):
      beginInsert(table: table)
      for column in 0..<columnCount { try operations.writeColumn(of: row, at: column) }
    case (_?, nil):
      beginDelete(table: table)
      try key.write(to: &operations)
    case (let before?, let row?):
      var changedCount = 0
      for column in 0..<columnCount where !matches(before[Int(column)], row, column) { changedCount += 1 }
      guard changedCount > 0 else { return }
      beginUpdate(table: table)
      try key.write(to: &operations)
      operations.writeVarint(changedCount)
      for column in 0..<columnCount where !matches(before[Int(column)], row, column) {
        operations.writeVarint(Int(column))
        try operations.writeColumn(of: row, at: column)
      }
    }
  }

  private func matches(_ value: SQLiteValue?, _ row: OpaquePointer, _ column: Int32) -> Bool {
    value?.matches(columnOf: row, at: column) ?? false
  }
}
