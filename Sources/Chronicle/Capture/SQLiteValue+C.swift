import Foundation
import GRDBSQLite

extension SQLiteValue {
  /// Reads an `sqlite3_value` without converting its storage class.
  init(sqliteValue value: OpaquePointer) {
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
    case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
    case SQLITE_TEXT:
      let count = Int(sqlite3_value_bytes(value))
      if let text = sqlite3_value_text(value) {
        self = .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
      } else {
        self = .text("")
      }
    case SQLITE_BLOB:
      let count = Int(sqlite3_value_bytes(value))
      if let blob = sqlite3_value_blob(value), count > 0 {
        self = .blob(Data(bytes: blob, count: count))
      } else {
        self = .blob(Data())
      }
    default: self = .null
    }
  }

  /// Reads column `index` of the current row of a stepped statement.
  init(statement: OpaquePointer, column index: Int32) {
    switch sqlite3_column_type(statement, index) {
    case SQLITE_INTEGER: self = .integer(sqlite3_column_int64(statement, index))
    case SQLITE_FLOAT: self = .real(sqlite3_column_double(statement, index))
    case SQLITE_TEXT:
      let count = Int(sqlite3_column_bytes(statement, index))
      if let text = sqlite3_column_text(statement, index) {
        self = .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
      } else {
        self = .text("")
      }
    case SQLITE_BLOB:
      let count = Int(sqlite3_column_bytes(statement, index))
      if let blob = sqlite3_column_blob(statement, index), count > 0 {
        self = .blob(Data(bytes: blob, count: count))
      } else {
        self = .blob(Data())
      }
    default: self = .null
    }
  }

  /// Binds the value to parameter `index` (1-based) of a statement.
  func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
    switch self {
    case .null: return sqlite3_bind_null(statement, index)
    case .integer(let value): return sqlite3_bind_int64(statement, index, value)
    case .real(let value): return sqlite3_bind_double(statement, index, value)
    case .text(var value):
      // A native string's UTF-8 in place (no copy into a C string first).
      return value.withUTF8 { buffer in
        buffer.withMemoryRebound(to: CChar.self) { text in
          // Empty text is still TEXT: a NULL pointer would bind NULL.
          guard let start = text.baseAddress, !text.isEmpty else { return sqlite3_bind_text(statement, index, "", 0, sqliteTransient) }
          return sqlite3_bind_text(statement, index, start, Int32(text.count), sqliteTransient)
        }
      }
    case .blob(let value):
      return value.withUnsafeBytes { buffer in
        sqlite3_bind_blob(statement, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), sqliteTransient)
      }
    }
  }
}

/// SQLITE_TRANSIENT: SQLite copies the bound bytes.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
/// `SQLITE_STATIC`: SQLite uses the bytes where they are, without copying them.
let sqliteStatic: sqlite3_destructor_type? = nil
