import Foundation
import GRDBSQLite

/// Reading the current row of a stepped statement straight into an event body,
/// without going through ``SQLiteValue`` (no String or Data per value).
extension BinaryWriter {
  /// Writes column `index` of `statement`'s current row as an event value.
  mutating func writeColumn(of statement: OpaquePointer, at index: Int32) throws(EventFormatError) {
    switch sqlite3_column_type(statement, index) {
    case SQLITE_INTEGER:
      writeByte(EventCodec.ValueTag.integer.rawValue)
      writeSignedVarint(sqlite3_column_int64(statement, index))
    case SQLITE_FLOAT:
      let real = sqlite3_column_double(statement, index)
      guard !real.isNaN else { throw EventFormatError(problem: .nanNotEncodable, region: .body, offset: bytes.count) }
      writeByte(EventCodec.ValueTag.real.rawValue)
      writeUInt64BigEndian(real.bitPattern)
    case SQLITE_TEXT:
      // sqlite3_column_text before sqlite3_column_bytes, as SQLite documents.
      let text = sqlite3_column_text(statement, index)
      let count = Int(sqlite3_column_bytes(statement, index))
      if let text, count > 0 {
        let bytes = UnsafeBufferPointer(start: text, count: count)
        // Events carry UTF-8 text; TEXT made of other bytes (CAST(X'FF' AS TEXT))
        // would give an event no peer can decode.
        guard isValidUTF8(bytes) else { throw EventFormatError(problem: .invalidUTF8, region: .body, offset: self.bytes.count) }
        writeByte(EventCodec.ValueTag.text.rawValue)
        writeVarint(count)
        writeBytes(bytes)
      } else {
        writeByte(EventCodec.ValueTag.text.rawValue)
        writeVarint(0)
      }
    case SQLITE_BLOB:
      let blob = sqlite3_column_blob(statement, index)
      let count = Int(sqlite3_column_bytes(statement, index))
      writeByte(EventCodec.ValueTag.blob.rawValue)
      writeVarint(count)
      if let blob, count > 0 { writeBytes(UnsafeRawBufferPointer(start: blob, count: count)) }
    default:
      writeByte(EventCodec.ValueTag.null.rawValue)
    }
  }
}

extension SQLiteValue {
  /// Whether column `index` of `statement`'s current row holds this value
  /// (same storage class, same bits).
  func matches(columnOf statement: OpaquePointer, at index: Int32) -> Bool {
    let type = sqlite3_column_type(statement, index)
    switch self {
    case .null:
      return type == SQLITE_NULL
    case .integer(let value):
      return type == SQLITE_INTEGER && sqlite3_column_int64(statement, index) == value
    case .real(let value):
      return type == SQLITE_FLOAT && sqlite3_column_double(statement, index).bitPattern == value.bitPattern
    case .text(var value):
      guard type == SQLITE_TEXT else { return false }
      let text = sqlite3_column_text(statement, index)
      let count = Int(sqlite3_column_bytes(statement, index))
      return value.withUTF8 { utf8 in
        utf8.count == count && (count == 0 || memcmp(utf8.baseAddress!, text!, count) == 0)
      }
    case .blob(let value):
      guard type == SQLITE_BLOB else { return false }
      let blob = sqlite3_column_blob(statement, index)
      let count = Int(sqlite3_column_bytes(statement, index))
      return value.count == count && (count == 0 || value.withUnsafeBytes { memcmp($0.baseAddress!, blob!, count) == 0 })
    }
  }
}

/// Whether `bytes` are valid UTF-8; ASCII runs are checked eight bytes at a time.
func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
  let raw = UnsafeRawBufferPointer(bytes)
  var index = 0
  while index + 8 <= raw.count {
    if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
    index += 8
  }
  while index < raw.count, raw[index] < 0x80 { index += 1 }
  return index == raw.count || String(validating: bytes[index...], as: UTF8.self) != nil
}

/// The first column of `statement`'s current row that holds TEXT which is not
/// valid UTF-8, or nil.
func firstColumnWithInvalidUTF8(_ statement: OpaquePointer, columnCount: Int32) -> Int32? {
  (0..<columnCount).first { column in
    guard sqlite3_column_type(statement, column) == SQLITE_TEXT, let text = sqlite3_column_text(statement, column) else { return false }
    return !isValidUTF8(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, column))))
  }
}
