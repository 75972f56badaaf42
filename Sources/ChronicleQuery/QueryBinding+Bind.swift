import GRDBSQLite

/// SQLITE_TRANSIENT: SQLite copies the bound bytes.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension QueryBinding {
  /// Binds the value to parameter `index` (1-based) of `statement`.
  func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
    switch self {
    case .null:
      return sqlite3_bind_null(statement, index)
    case .integer(let value):
      return sqlite3_bind_int64(statement, index, value)
    case .double(let value):
      return sqlite3_bind_double(statement, index, value)
    case .text(var value):
      return value.withUTF8 { bytes in
        guard let base = bytes.baseAddress else { return sqlite3_bind_text(statement, index, "", 0, sqliteTransient) }
        return UnsafeRawPointer(base).withMemoryRebound(to: CChar.self, capacity: bytes.count) {
          sqlite3_bind_text(statement, index, $0, Int32(bytes.count), sqliteTransient)
        }
      }
    case .blob(let value):
      return value.withUnsafeBytes { bytes in
        sqlite3_bind_blob(statement, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), sqliteTransient)
      }
    case .invalid:
      return SQLITE_MISUSE
    }
  }
}
