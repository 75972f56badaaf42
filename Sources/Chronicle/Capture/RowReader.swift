import GRDB
import GRDBSQLite

/// Reads the current values of rows of a tracked table by primary key,
/// through persistent prepared statements: the read-back of capture.
///
/// Tables keyed by their rowid are also read by a walk: one statement
/// positioned in rowid order that steps forward to the next requested key
/// when it is close ahead, which is how the rows of a bulk insert come back.
/// Only keys far ahead or behind pay for a new lookup. Call ``finish()`` when
/// the reads are done, to release the walk's cursor.
final class RowReader {
  private var lookup: OpaquePointer?
  private var walk: OpaquePointer?
  let columnCount: Int32

  /// Where the walk stands.
  private enum WalkPosition {
    /// Not started, or finished.
    case idle
    /// On the row with this key; no row has a key between `floor` and it.
    case on(key: Int64, floor: Int64)
    /// Past the last row; no row has a key at or above `floor`.
    case exhausted(floor: Int64)
  }

  private var position = WalkPosition.idle
  /// A key this far ahead of the walk's row is looked up instead of stepped to.
  private static let maximumStep: UInt64 = 64

  init(connection: OpaquePointer, table: TrackedTable) throws {
    let columns = table.columns.map(quotedIdentifier).joined(separator: ", ")
    let source = "main.\(quotedIdentifier(table.name))"
    let condition = table.primaryKey.enumerated()
      .map { "\(quotedIdentifier(table.columns[$0.element])) = ?\($0.offset + 1)" }
      .joined(separator: " AND ")
    lookup = try Self.prepare("SELECT \(columns) FROM \(source) WHERE \(condition)", connection)
    if table.keyIsRowid {
      // Named by its column, not as `rowid`, which a column of that name would
      // hide. The key comes last, after the columns the caller reads.
      let key = quotedIdentifier(table.columns[table.primaryKey[0]])
      walk = try Self.prepare("SELECT \(columns), \(key) FROM \(source) WHERE \(key) >= ?1 ORDER BY \(key)", connection)
    }
    columnCount = Int32(table.columns.count)
  }

  deinit {
    sqlite3_finalize(lookup)
    sqlite3_finalize(walk)
  }

  private static func prepare(_ sql: String, _ connection: OpaquePointer) throws -> OpaquePointer? {
    var statement: OpaquePointer?
    let status = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
    guard status == SQLITE_OK, statement != nil else {
      throw DatabaseError(resultCode: ResultCode(rawValue: status), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
    }
    return statement
  }

  /// Looks the row up and calls `body` with a statement positioned on it
  /// (its first ``columnCount`` columns in table column order), or with nil
  /// when no row has that key.
  func withRow<T>(key: RowKey, _ body: (OpaquePointer?) throws -> T) throws -> T {
    if let walk, case .integer(let wanted) = key {
      return try body(try advanceWalk(walk, to: wanted) ? walk : nil)
    }
    guard let lookup else { return try body(nil) }
    defer { sqlite3_reset(lookup) }  // every parameter is bound again next time
    key.bind(to: lookup)
    return try body(try step(lookup) ? lookup : nil)
  }

  /// Releases the walk's cursor. The next read starts a new walk.
  func finish() {
    guard let walk else { return }
    sqlite3_reset(walk)
    position = .idle
  }

  /// Moves the walk onto the row keyed `wanted`; false when there is none.
  private func advanceWalk(_ walk: OpaquePointer, to wanted: Int64) throws -> Bool {
    switch position {
    case .on(let key, let floor) where wanted >= floor && wanted <= key:
      return wanted == key
    case .on(var key, _) where wanted > key && UInt64(bitPattern: wanted &- key) <= Self.maximumStep:
      while key < wanted {
        let floor = key + 1
        guard try step(walk) else {
          position = .exhausted(floor: floor)
          return false
        }
        key = sqlite3_column_int64(walk, columnCount)
        position = .on(key: key, floor: floor)
      }
      return key == wanted
    case .exhausted(let floor) where wanted >= floor:
      return false
    default:
      sqlite3_reset(walk)
      sqlite3_bind_int64(walk, 1, wanted)
      guard try step(walk) else {
        position = .exhausted(floor: wanted)
        return false
      }
      let key = sqlite3_column_int64(walk, columnCount)
      position = .on(key: key, floor: wanted)
      return key == wanted
    }
  }

  /// Steps `statement`: true on a row, false when done.
  private func step(_ statement: OpaquePointer) throws -> Bool {
    switch sqlite3_step(statement) {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    case let status:
      let message = String(cString: sqlite3_errmsg(sqlite3_db_handle(statement)))
      sqlite3_reset(statement)
      position = .idle
      throw DatabaseError(resultCode: ResultCode(rawValue: status), message: message)
    }
  }
}
