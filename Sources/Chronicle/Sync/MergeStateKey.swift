import Foundation
import GRDB

/// The primary key of a row as `chronicle_rows` stores it (`row_key`): its
/// values in key order, each a tag byte and bytes that compare, byte by
/// byte, as SQLite orders values of that type (integers big-endian with the
/// sign bit flipped, reals likewise). Consecutive keys of a table therefore
/// sit on neighbouring pages of `chronicle_rows`, as its rows do in the
/// table: a merge that walks a table in key order walks its merge state in
/// the same order.
///
/// Until internal schema version 4, keys were stored in the event value
/// encoding (tags 0 to 4, integers as zigzag varints), which scattered
/// consecutive integers over the whole index. ``decode(_:)`` reads both, so
/// a file opened read-only before it was upgraded still shows its keys; the
/// two encodings never share a first byte, so no key of one equals a key of
/// the other.
enum MergeStateKey {
  private enum Tag: UInt8 {
    case null = 0x10, integer = 0x20, real = 0x30, text = 0x40, blob = 0x50
  }

  static func encode(_ values: [SQLiteValue]) throws(EventFormatError) -> Data {
    var writer = BinaryWriter(capacity: 16)
    for value in values {
      switch value {
      case .null:
        writer.writeByte(Tag.null.rawValue)
      case .integer(let integer):
        writer.writeByte(Tag.integer.rawValue)
        writer.writeUInt64BigEndian(UInt64(bitPattern: integer) ^ (1 << 63))
      case .real(let real):
        guard !real.isNaN else { throw EventFormatError(problem: .nanNotEncodable, region: .body, offset: writer.bytes.count) }
        writer.writeByte(Tag.real.rawValue)
        // Negative reals sort in reverse bit order: flip every bit of those.
        let bits = real.bitPattern
        writer.writeUInt64BigEndian(bits >> 63 == 1 ? ~bits : bits ^ (1 << 63))
      case .text(let text):
        writer.writeByte(Tag.text.rawValue)
        writer.writeString(text)
      case .blob(let blob):
        writer.writeByte(Tag.blob.rawValue)
        writer.writeVarint(blob.count)
        writer.writeBytes(blob)
      }
    }
    return Data(writer.bytes)
  }

  /// The key values of a stored key, in either encoding.
  static func decode(_ data: Data) throws(EventFormatError) -> [SQLiteValue] {
    var reader = BinaryReader(Array(data), context: .body)
    var values: [SQLiteValue] = []
    // A key stored before internal schema version 4 is event values throughout.
    if let first = data.first, first < Tag.null.rawValue {
      while !reader.isAtEnd { values.append(try EventCodec.readValue(&reader)) }
      return values
    }
    while !reader.isAtEnd {
      let tagOffset = reader.offset
      let rawTag = try reader.readByte()
      switch Tag(rawValue: rawTag) {
      case .null:
        values.append(.null)
      case .integer:
        values.append(.integer(Int64(bitPattern: try reader.readUInt64BigEndian() ^ (1 << 63))))
      case .real:
        let stored = try reader.readUInt64BigEndian()
        values.append(.real(Double(bitPattern: stored >> 63 == 1 ? stored ^ (1 << 63) : ~stored)))
      case .text:
        values.append(.text(try reader.readString()))
      case .blob:
        let count = try reader.readLength()
        values.append(.blob(Data(try reader.readBytes(count))))
      case nil:
        throw EventFormatError(problem: .unknownValueTag(rawTag), region: .body, offset: tagOffset)
      }
    }
    return values
  }

  /// Re-encodes every key stored in the event value encoding (internal
  /// schema version 4). The first bytes of the two encodings differ, so
  /// keys change in place without colliding.
  static func upgradeStoredKeys(_ db: Database) throws {
    for table in ["chronicle_rows", "chronicle_baseline_rows"] where try db.tableExists(table) {
      let update = try db.makeStatement(sql: "UPDATE \(table) SET row_key = ? WHERE table_name = ? AND row_key = ?")
      let rows = try Row.fetchAll(db, sql: "SELECT table_name, row_key FROM \(table) WHERE substr(row_key, 1, 1) < X'10'")
      for row in rows {
        let name: String = row[0]
        let key: Data = row[1]
        do {
          try update.run([.blob(try encode(try decode(key))), .text(name), .blob(key)])
        } catch let error as EventFormatError {
          throw ChronicleError.corruptMergeState(table: name, detail: "\(error)")
        }
      }
    }
  }
}
