import Foundation
import GRDB

extension ChronicleDatabase {
  /// Records how the live tracked tables differ from the rebuilt ones (the
  /// log's projection, in `shadow`) as one event: rows written, changed or
  /// deleted outside Chronicle become changes that every peer gets. The live
  /// rows end as they were.
  ///
  /// In one transaction: each differing row is first set to its projection
  /// without capture, then back to its live value with capture on, so the
  /// event holds exactly the difference, with the projection as its before.
  func adoptLiveRows(against shadow: ShadowDatabase, tables: [String]) throws -> StoredEvent? {
    let session = self.session
    return try writer.writeWithoutTransaction { db in
      // No cascades: the live rows are taken as they are, orphans included.
      try db.execute(sql: "PRAGMA foreign_keys = OFF")
      defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
      try db.execute(sql: "ATTACH DATABASE ? AS chronicle_rebuild", arguments: [shadow.path])
      defer { try? db.execute(sql: "DETACH DATABASE chronicle_rebuild") }
      var event: StoredEvent?
      try db.inTransaction(.immediate) {
        let latest = try EventLog.lastPosition(db)
        guard latest == shadow.through else { throw ShadowBehind() }
        let shapes = try tables.map { table in try AdoptedTable(table, db) }
        try session.uncaptured(db) { _ in
          for shape in shapes { try shape.setProjection(db) }
        }
        for shape in shapes { try shape.restoreLiveRows(db) }
        event = try session.appendEvent(db)?.stored()
        try UntrackedWrites.clearSuspicion(db)
        return .commit
      }
      return event
    }
  }
}

/// One tracked table during an adoption: its columns, its key, and a copy of
/// its live rows.
private struct AdoptedTable {
  let main: String
  let projection: String
  let live: String
  let columns: String
  /// The key columns as a row value, `("a", "b")`, and as a list, `"a", "b"`.
  let key: String
  let keyColumns: String
  private let keyNames: [String]

  init(_ table: String, _ db: Database) throws {
    main = "main.\(quotedIdentifier(table))"
    projection = "chronicle_rebuild.\(quotedIdentifier(table))"
    live = "temp.\(quotedIdentifier("chronicle_adopt_\(table)"))"
    columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_xinfo(?, 'main') WHERE hidden = 0 ORDER BY cid", arguments: [table])
      .map(quotedIdentifier).joined(separator: ", ")
    keyNames = try db.primaryKey(table).columns.map(quotedIdentifier)
    keyColumns = keyNames.joined(separator: ", ")
    key = "(\(keyColumns))"
    try db.execute(sql: "DROP TABLE IF EXISTS \(live)")
    try db.execute(sql: "CREATE TEMP TABLE \(quotedIdentifier("chronicle_adopt_\(table)")) AS SELECT \(columns) FROM \(main)")
  }

  /// Uncaptured: the rows that differ become the projection's.
  func setProjection(_ db: Database) throws {
    try db.execute(sql: """
      DELETE FROM \(main) WHERE \(key) IN (
        SELECT \(keyColumns) FROM (SELECT \(columns) FROM \(main) EXCEPT SELECT \(columns) FROM \(projection)))
      """)
    try db.execute(sql: """
      INSERT INTO \(main) (\(columns)) SELECT \(columns) FROM \(projection) WHERE \(key) NOT IN (SELECT \(keyColumns) FROM \(main))
      """)
  }

  /// Captured: back to the live rows (deletes, changes, then inserts).
  func restoreLiveRows(_ db: Database) throws {
    try db.execute(sql: "DELETE FROM \(main) WHERE \(key) NOT IN (SELECT \(keyColumns) FROM \(live))")
    try db.execute(sql: """
      UPDATE \(main) SET (\(columns)) = (SELECT \(columns) FROM \(live) AS l WHERE (\(keyColumns(of: "l"))) = (\(keyColumns(of: main))))
      WHERE \(key) IN (SELECT \(keyColumns) FROM (SELECT \(columns) FROM \(live) EXCEPT SELECT \(columns) FROM \(main)))
      """)
    try db.execute(sql: "INSERT INTO \(main) (\(columns)) SELECT \(columns) FROM \(live) WHERE \(key) NOT IN (SELECT \(keyColumns) FROM \(main))")
    try db.execute(sql: "DROP TABLE \(live)")
  }

  private func keyColumns(of alias: String) -> String {
    keyNames.map { "\(alias).\($0)" }.joined(separator: ", ")
  }
}
