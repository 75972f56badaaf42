import Crypto
import Foundation
import GRDB

/// An order-independent fingerprint of a table's rows: two tables with the same
/// columns and the same set of rows (same values, same storage classes) have
/// the same digest, whatever order the rows were written in.
///
/// Each row is hashed (SHA-256 of its values in the event encoding); the row
/// hashes are added as four 64-bit lanes, so the sum does not depend on order;
/// the digest is SHA-256 of the table's columns, its row count and the sum.
public struct TableDigest: Hashable, Sendable, CustomStringConvertible {
  public var table: String
  public var rowCount: Int
  /// Hex SHA-256.
  public var hash: String

  public var description: String { "\(table): \(rowCount) rows, \(hash.prefix(16))" }

  /// The digest of `table` as `db` sees it.
  public static func compute(_ db: Database, table: String) throws -> TableDigest {
    let columns = try String.fetchAll(
      db, sql: "SELECT name FROM pragma_table_xinfo(?, 'main') WHERE hidden = 0 ORDER BY cid", arguments: [table])
    guard !columns.isEmpty else { throw ChronicleError.noSuchTable(table) }
    var lanes = [UInt64](repeating: 0, count: 4)
    var rowCount = 0
    let sql = "SELECT \(columns.map(quotedIdentifier).joined(separator: ", ")) FROM main.\(quotedIdentifier(table))"
    let statement = try db.makeStatement(sql: sql)
    var writer = BinaryWriter()
    try statement.forEachRow([]) { row in
      writer.removeAll()
      // Straight from SQLite, byte for byte (GRDB would cut TEXT at a NUL).
      for index in 0..<Int32(columns.count) {
        try writer.writeColumn(of: row, at: index)
      }
      let hash = SHA256.hash(data: writer.bytes)
      hash.withUnsafeBytes { bytes in
        for lane in 0..<4 {
          var value: UInt64 = 0
          for byte in bytes[(lane * 8)..<(lane * 8 + 8)] { value = value << 8 | UInt64(byte) }
          lanes[lane] &+= value
        }
      }
      rowCount += 1
    }
    var summary = BinaryWriter()
    summary.writeString(table)
    for column in columns { summary.writeString(column) }
    summary.writeVarint(rowCount)
    for lane in lanes { summary.writeUInt64BigEndian(lane) }
    let digest = SHA256.hash(data: summary.bytes).map { String(format: "%02x", $0) }.joined()
    return TableDigest(table: table, rowCount: rowCount, hash: digest)
  }

  /// Digests of `tables` (by default every application table: not Chronicle's
  /// or SQLite's own), sorted by table name.
  public static func compute(_ db: Database, tables: [String]? = nil) throws -> [TableDigest] {
    let names = try tables ?? String.fetchAll(
      db, sql: "SELECT name FROM main.sqlite_schema WHERE type = 'table' ORDER BY name"
    ).filter { !InternalSchema.isReserved($0) }
    return try names.sorted().map { try compute(db, table: $0) }
  }
}

extension SQLiteValue {
  /// Converts a GRDB value without changing its storage class.
  public init(_ value: DatabaseValue) {
    switch value.storage {
    case .null: self = .null
    case .int64(let integer): self = .integer(integer)
    case .double(let real): self = .real(real)
    case .string(let text): self = .text(text)
    case .blob(let blob): self = .blob(blob)
    }
  }

  /// The GRDB value with the same storage class.
  public var databaseValue: DatabaseValue {
    switch self {
    case .null: .null
    case .integer(let integer): integer.databaseValue
    case .real(let real): real.databaseValue
    case .text(let text): text.databaseValue
    case .blob(let blob): blob.databaseValue
    }
  }
}
