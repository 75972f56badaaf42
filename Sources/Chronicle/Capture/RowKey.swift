import GRDBSQLite

/// The primary key of a captured row.
///
/// Most tables have a single INTEGER key: ``integer(_:)`` keeps it in a word,
/// so noting a touched row costs no allocation.
enum RowKey: Hashable {
  /// A one-column key holding an INTEGER.
  case integer(Int64)
  /// Any other key, column by column in key order.
  case values([SQLiteValue])

  /// Builds a key from its column values.
  init(_ values: [SQLiteValue]) {
    if values.count == 1, case .integer(let value) = values[0] { self = .integer(value) } else { self = .values(values) }
  }

  /// The key's column values, in key order.
  var values: [SQLiteValue] {
    switch self {
    case .integer(let value): [.integer(value)]
    case .values(let values): values
    }
  }

  /// Binds the key to parameters 1, 2, ... of `statement`.
  func bind(to statement: OpaquePointer) {
    switch self {
    case .integer(let value):
      sqlite3_bind_int64(statement, 1, value)
    case .values(let values):
      for (index, value) in values.enumerated() { _ = value.bind(to: statement, at: Int32(index + 1)) }
    }
  }

  /// Writes the key's values into an event body.
  func write(to writer: inout BinaryWriter) throws(EventFormatError) {
    switch self {
    case .integer(let value):
      writer.writeByte(EventCodec.ValueTag.integer.rawValue)
      writer.writeSignedVarint(value)
    case .values(let values):
      for value in values { try EventCodec.writeValue(value, to: &writer) }
    }
  }
}
