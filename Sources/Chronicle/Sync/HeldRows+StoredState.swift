import Foundation

/// A held row's merge state read from and written to `chronicle_rows`:
/// the stored form of ``RowMergeState`` (see
/// ``RowMergeState/encodeClocks(to:_:)``, which this writes byte for byte),
/// straight from and into the held rows' slots.
extension HeldRows {
  /// The numbers of a table (by its position) and of its columns.
  mutating func storedForm(_ table: Int, _ dictionary: MergeDictionary) throws -> StoredTableForm {
    if let form = tables[table].form { return form }
    let shape = tables[table].shape
    let tableNumber = try dictionary.number(ofName: shape.name)
    let numbers = try shape.columns.map { try dictionary.number(ofName: $0) }
    var form = StoredTableForm(
      table: tableNumber, columnNumbers: numbers, columnsInNumberOrder: numbers.indices.sorted { numbers[$0] < numbers[$1] }, columnOfNumber: [])
    for (column, number) in numbers.enumerated() { form.setColumn(column, ofNumber: number) }
    tables[table].form = form
    return form
  }

  // MARK: - Loading

  /// Reads a stored state's clocks, completeness, delete and parking into a new row.
  mutating func load(_ stored: StoredMergeState, into row: inout Row, _ dictionary: MergeDictionary) throws {
    do {
      try decodeClocks(stored.clocks, into: &row, dictionary)
    } catch let error as ChronicleError {
      throw error
    } catch {
      throw ChronicleError.corruptMergeState(table: tables[row.table].shape.name, detail: "\(error)")
    }
    row.parkedReason = stored.parkedReason.flatMap(RowMergeState.ParkedReason.init(rawValue:))
  }

  /// Puts the values a stored state retained in the row's slots (or with
  /// its other columns, for names its table does not have).
  mutating func loadRetainedValues(_ bytes: [UInt8], into row: inout Row) throws {
    let retained: [String: SQLiteValue]
    do {
      retained = try RowMergeState.decodeValues(bytes)
    } catch {
      throw ChronicleError.corruptMergeState(table: tables[row.table].shape.name, detail: "\(error)")
    }
    let columnIndex = tables[row.table].columnIndex
    for (column, value) in retained {
      if let index = columnIndex[column] {
        values[row.slotStart + index] = value
      } else {
        if row.otherColumns == nil { row.otherColumns = OtherColumns() }
        row.otherColumns!.values[column] = value
      }
    }
  }

  private mutating func decodeClocks(_ bytes: [UInt8], into row: inout Row, _ dictionary: MergeDictionary) throws {
    guard !bytes.isEmpty else { return }
    var reader = BinaryReader(bytes, context: .body)
    let flags = try reader.readByte()
    row.isComplete = flags & 1 != 0
    if flags & 2 != 0 {
      let timestamp = try reader.readUInt64BigEndian()
      row.deleted = try versions.number(timestamp: timestamp, origin: Int64(try reader.readVarint()), dictionary)
    }
    let versionCount = try reader.readLength()
    try withUnsafeTemporaryAllocation(of: Int32.self, capacity: max(versionCount, 1)) { numbers in
      var timestamp: UInt64 = 0
      for index in 0..<versionCount {
        timestamp = index == 0 ? try reader.readUInt64BigEndian() : timestamp &+ (try reader.readVarint())
        numbers[index] = try versions.number(timestamp: timestamp, origin: Int64(try reader.readVarint()), dictionary)
      }
      var form = try storedForm(row.table, dictionary)
      var number: Int64 = 0
      for _ in 0..<(try reader.readLength()) {
        let packed = try reader.readVarint()
        number += Int64(packed >> 4)
        var index = Int(packed & 15)
        if index == 15 { index += try reader.readLength() }
        guard index < versionCount else { throw reader.error(.columnIndexOutOfRange(index)) }
        let column = try columnIndex(ofNumber: number, in: &form, table: row.table, dictionary)
        if column >= 0 {
          clocks[row.slotStart + column] = numbers[index]
        } else {
          if row.otherColumns == nil { row.otherColumns = OtherColumns() }
          row.otherColumns!.clocks.append((try dictionary.name(number), numbers[index]))
        }
      }
    }
  }

  /// The column of a table named by `number`, -1 when the table has no such column.
  private mutating func columnIndex(ofNumber number: Int64, in form: inout StoredTableForm, table: Int, _ dictionary: MergeDictionary) throws -> Int {
    if let column = form.column(ofNumber: number) { return column }
    let column = tables[table].columnIndex[try dictionary.name(number)] ?? -1
    form.setColumn(column, ofNumber: number)
    tables[table].form = form
    return column
  }

  // MARK: - Saving

  /// Saves the merge state of the rows at `positions`, in that order.
  mutating func saveStates(in positions: [Int], _ store: MergeStore) throws {
    let dictionary = store.dictionary
    try store.save(count: positions.count) { index, clocks, retained in
      let position = positions[index]
      let form = try storedForm(rows[position].table, dictionary)
      try encodeClocks(of: position, form: form, to: &clocks, dictionary)
      if rows[position].retainsValues { try RowMergeState.encodeValues(retainedValues(of: position, form: form), to: &retained) }
      return MergeStore.EncodedState(
        table: form.table, key: rows[position].key, parkedReason: rows[position].parkedReason, hasRetained: rows[position].retainsValues)
    }
  }

  /// Every value a row not in its table keeps, by column name.
  private func retainedValues(of position: Int, form: StoredTableForm) -> [String: SQLiteValue] {
    let row = rows[position]
    var retained = row.otherColumns?.values ?? [:]
    let columns = tables[row.table].shape.columns
    for column in columns.indices { if let value = values[row.slotStart + column] { retained[columns[column]] = value } }
    return retained
  }

  private mutating func encodeClocks(of position: Int, form: StoredTableForm, to writer: inout BinaryWriter, _ dictionary: MergeDictionary) throws {
    let row = rows[position]
    writer.writeByte((row.isComplete ? 1 : 0) | (row.deleted != BatchVersions.none ? 2 : 0))
    if row.deleted != BatchVersions.none {
      writer.writeUInt64BigEndian(versions[row.deleted].timestamp.rawValue)
      writer.writeVarint(UInt64(try versions.originNumber(of: row.deleted, dictionary)))
    }
    let columnCount = form.columnNumbers.count
    let others = row.otherColumns?.clocks ?? []
    let count = columnCount + others.count
    // The distinct versions, oldest first, then each column by name
    // number with its version's place among them.
    try withUnsafeTemporaryAllocation(of: Int32.self, capacity: max(count, 1)) { distinct in
      var distinctCount = 0
      func note(_ number: Int32) {
        guard number != BatchVersions.none, !distinct[..<distinctCount].contains(number) else { return }
        var slot = distinctCount
        while slot > 0, versions.isNewer(distinct[slot - 1], than: number) {
          distinct[slot] = distinct[slot - 1]
          slot -= 1
        }
        distinct[slot] = number
        distinctCount += 1
      }
      for column in 0..<columnCount { note(clocks[row.slotStart + column]) }
      for (_, version) in others { note(version) }
      try RowMergeState.writeVersions(count: distinctCount, to: &writer) { index in
        (versions[distinct[index]].timestamp.rawValue, try versions.originNumber(of: distinct[index], dictionary))
      }
      try withUnsafeTemporaryAllocation(of: (number: Int64, version: Int).self, capacity: max(count, 1)) { columns in
        var filled = 0
        func add(number: Int64, version: Int32) {
          RowMergeState.insertInNumberOrder(
            (number: number, version: distinct[..<distinctCount].firstIndex(of: version)!), into: columns, filled: &filled)
        }
        // The table's columns come in number order already: only other
        // columns' entries move.
        for column in form.columnsInNumberOrder where clocks[row.slotStart + column] != BatchVersions.none {
          add(number: form.columnNumbers[column], version: clocks[row.slotStart + column])
        }
        for (name, version) in others { add(number: try dictionary.number(ofName: name), version: version) }
        RowMergeState.writeColumns(columns[..<filled], to: &writer)
      }
    }
  }
}
