import Foundation

/// Encodes the last values of a deleted row, as `chronicle_rows.retained`
/// holds them (``RowMergeState/encodeValues(_:)``: the count, then each
/// column's name and value, sorted by name), from values in the table's
/// column order, without a dictionary: the order is worked out once per
/// table. Capture and replay retain every row they delete.
struct RetainedValuesEncoder {
  /// The table's columns, in the order the values come.
  let columns: [String]
  /// Indexes into `columns`, sorted by name.
  private let nameOrder: [Int]

  init(columns: [String]) {
    self.columns = columns
    nameOrder = columns.indices.sorted { columns[$0] < columns[$1] }
  }

  /// The encoded values; `value(i)` gives the value of `columns[i]`.
  func encode(_ value: (Int) throws -> SQLiteValue) throws -> [UInt8] {
    var writer = BinaryWriter(capacity: 64)
    writer.writeVarint(columns.count)
    for index in nameOrder {
      writer.writeString(columns[index])
      try EventCodec.writeValue(try value(index), to: &writer)
    }
    return writer.bytes
  }
}
