import Foundation
import GRDB

/// How two databases' application tables differ, row by row and column by
/// column. Rows are matched by primary key; values differ when they or their
/// storage classes differ (`1` and `1.0` differ, as they do in digests).
public struct DatabaseDiff: Sendable, Hashable {
  /// One entry per table of either database (or per table asked for), by name.
  public var tables: [TableDiff]

  /// Whether any table differs.
  public var hasDifferences: Bool { tables.contains(where: \.hasDifferences) }

  /// Compares the application tables of the SQLite files at `first` and
  /// `second`, opened read-only. Chronicle's own tables are left out.
  ///
  /// - Parameters:
  ///   - tables: the tables to compare; by default every application table
  ///     of either file.
  ///   - rowLimit: at most this many rows are listed per table and kind
  ///     (added, removed, changed); the counts are always complete.
  public static func compare(_ first: String, _ second: String, tables: [String]? = nil, rowLimit: Int = 100) throws -> DatabaseDiff {
    for path in [first, second] where !FileManager.default.fileExists(atPath: path) { throw ChronicleError.noSuchFile(path) }
    var configuration = Configuration()
    configuration.readonly = true
    configuration.busyMode = .timeout(5)
    configuration.prepareDatabase { db in db.addChronicleFunctions() }
    let queue = try DatabaseQueue(path: first, configuration: configuration)
    return try queue.inDatabase { db in
      try db.execute(sql: "ATTACH DATABASE ? AS chronicle_second", arguments: [second])
      defer { try? db.execute(sql: "DETACH DATABASE chronicle_second") }
      let firstTables = try applicationTables(db, schema: "main")
      let secondTables = try applicationTables(db, schema: "chronicle_second")
      let names: [String]
      if let tables {
        for table in tables where !firstTables.keys.contains(table.lowercased()) && !secondTables.keys.contains(table.lowercased()) {
          throw ChronicleError.noSuchTable(table)
        }
        names = tables
      } else {
        names = Set(firstTables.values).union(secondTables.values).sorted()
      }
      return DatabaseDiff(tables: try names.map { name in
        switch (firstTables[name.lowercased()], secondTables[name.lowercased()]) {
        case (let a?, let b?):
          return try TableComparison(db, first: a, second: b, rowLimit: rowLimit).run()
        case (let a?, nil):
          return try TableComparison.oneSided(db, table: a, schema: "main", presence: .onlyInFirst, rowLimit: rowLimit)
        case (nil, let b?):
          return try TableComparison.oneSided(db, table: b, schema: "chronicle_second", presence: .onlyInSecond, rowLimit: rowLimit)
        case (nil, nil):
          throw ChronicleError.noSuchTable(name)
        }
      })
    }
  }

  /// Application tables of a schema, by lower-cased name.
  private static func applicationTables(_ db: Database, schema: String) throws -> [String: String] {
    let names = try String.fetchAll(db, sql: "SELECT name FROM \(schema).sqlite_schema WHERE type = 'table'")
      .filter { !InternalSchema.isReserved($0) }
    return Dictionary(names.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
  }
}

/// How one table differs between two databases.
public struct TableDiff: Sendable, Hashable {
  /// Which of the databases have the table.
  public enum Presence: String, Sendable, Hashable {
    case both, onlyInFirst, onlyInSecond
  }

  /// A row that differs, identified by its key.
  public struct ChangedRow: Sendable, Hashable {
    public var key: [NamedValue]
    public var changes: [ColumnChange]
  }

  public var table: String
  public var presence: Presence
  /// The columns rows are matched by: the primary key, or every common
  /// column when the two tables do not declare the same primary key.
  public var keyColumns: [String]
  public var columnsOnlyInFirst: [String]
  public var columnsOnlyInSecond: [String]
  /// Number of rows only the second database has.
  public var addedCount: Int
  /// Number of rows only the first database has.
  public var removedCount: Int
  /// Number of rows both have, with different values.
  public var changedCount: Int
  /// The first rows only the second database has (common columns).
  public var added: [[NamedValue]]
  /// The first rows only the first database has (common columns).
  public var removed: [[NamedValue]]
  /// The first changed rows.
  public var changed: [ChangedRow]

  /// Whether the table differs at all (rows, columns or presence).
  public var hasDifferences: Bool {
    presence != .both || addedCount + removedCount + changedCount > 0 || !columnsOnlyInFirst.isEmpty || !columnsOnlyInSecond.isEmpty
  }
}

/// The SQL of one table's comparison, on a connection where the first
/// database is `main` and the second is attached as `chronicle_second`.
private struct TableComparison {
  let db: Database
  let first: String
  let second: String
  let rowLimit: Int

  init(_ db: Database, first: String, second: String, rowLimit: Int) {
    self.db = db
    self.first = first
    self.second = second
    self.rowLimit = rowLimit
  }

  func run() throws -> TableDiff {
    let a = try Self.columns(db, table: first, schema: "main")
    let b = try Self.columns(db, table: second, schema: "chronicle_second")
    let secondNames = Set(b.names.map { $0.lowercased() })
    let firstNames = Set(a.names.map { $0.lowercased() })
    let common = a.names.filter { secondNames.contains($0.lowercased()) }
    let samePrimaryKey = !a.primaryKey.isEmpty && a.primaryKey.map { $0.lowercased() } == b.primaryKey.map { $0.lowercased() }
    let key = samePrimaryKey ? a.primaryKey : common
    let others = common.filter { column in !key.contains(column) }

    let firstTable = "main.\(quotedIdentifier(first))"
    let secondTable = "chronicle_second.\(quotedIdentifier(second))"
    // With a declared key, `=` uses the key's index; without one, `IS` matches NULLs too.
    func match(_ left: String, _ right: String) -> String {
      key.map { "\(left).\(quotedIdentifier($0)) \(samePrimaryKey ? "=" : "IS") \(right).\(quotedIdentifier($0))" }.joined(separator: " AND ")
    }
    let order: String = key.map { quotedIdentifier($0) }.joined(separator: ", ")
    let list: String = common.map { "x.\(quotedIdentifier($0))" }.joined(separator: ", ")

    func oneSide(_ table: String, _ other: String) throws -> (count: Int, rows: [[NamedValue]]) {
      let condition = "NOT EXISTS (SELECT 1 FROM \(other) AS o WHERE \(match("o", "x")))"
      let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) AS x WHERE \(condition)") ?? 0
      let rows = count == 0 || common.isEmpty ? [] : try db.fetchNamedRows(
        sql: "SELECT \(list) FROM \(table) AS x WHERE \(condition) ORDER BY \(order.isEmpty ? "1" : order) LIMIT ?",
        values: [.integer(Int64(rowLimit))])
      return (count, rows)
    }
    let removed = try common.isEmpty ? (0, []) : oneSide(firstTable, secondTable)
    let added = try common.isEmpty ? (0, []) : oneSide(secondTable, firstTable)

    var changedCount = 0
    var changed: [TableDiff.ChangedRow] = []
    if !others.isEmpty && !key.isEmpty {
      let differs = others.map { name -> String in
        let column = quotedIdentifier(name)
        return "(f.\(column) IS NOT s.\(column) OR typeof(f.\(column)) <> typeof(s.\(column)))"
      }.joined(separator: " OR ")
      let from: String = "FROM \(firstTable) AS f JOIN \(secondTable) AS s ON \(match("s", "f")) WHERE \(differs)"
      changedCount = try Int.fetchOne(db, sql: "SELECT count(*) \(from)") ?? 0
      if changedCount > 0 {
        let selected: String = (key.map { "f.\(quotedIdentifier($0))" } + others.flatMap { ["f.\(quotedIdentifier($0))", "s.\(quotedIdentifier($0))"] })
          .joined(separator: ", ")
        let orderF: String = key.map { "f.\(quotedIdentifier($0))" }.joined(separator: ", ")
        for row in try db.fetchRows(sql: "SELECT \(selected) \(from) ORDER BY \(orderF) LIMIT ?", values: [.integer(Int64(rowLimit))]) {
          let keyValues = key.enumerated().map { NamedValue(column: $1, value: row[$0]) }
          var changes: [ColumnChange] = []
          for (index, column) in others.enumerated() {
            let before = row[key.count + 2 * index]
            let after = row[key.count + 2 * index + 1]
            if before != after { changes.append(ColumnChange(column: column, before: before, after: after)) }
          }
          changed.append(TableDiff.ChangedRow(key: keyValues, changes: changes))
        }
      }
    }
    return TableDiff(
      table: first, presence: .both, keyColumns: key,
      columnsOnlyInFirst: a.names.filter { !secondNames.contains($0.lowercased()) },
      columnsOnlyInSecond: b.names.filter { !firstNames.contains($0.lowercased()) },
      addedCount: added.0, removedCount: removed.0, changedCount: changedCount,
      added: added.1, removed: removed.1, changed: changed)
  }

  static func oneSided(_ db: Database, table: String, schema: String, presence: TableDiff.Presence, rowLimit: Int) throws -> TableDiff {
    let shape = try columns(db, table: table, schema: schema)
    let qualified = "\(schema).\(quotedIdentifier(table))"
    let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(qualified)") ?? 0
    let rows = try db.fetchNamedRows(sql: "SELECT * FROM \(qualified) LIMIT ?", values: [.integer(Int64(rowLimit))])
    return TableDiff(
      table: table, presence: presence, keyColumns: shape.primaryKey,
      columnsOnlyInFirst: presence == .onlyInFirst ? shape.names : [], columnsOnlyInSecond: presence == .onlyInSecond ? shape.names : [],
      addedCount: presence == .onlyInSecond ? count : 0, removedCount: presence == .onlyInFirst ? count : 0, changedCount: 0,
      added: presence == .onlyInSecond ? rows : [], removed: presence == .onlyInFirst ? rows : [], changed: [])
  }

  /// Stored column names and the declared primary key, in key order.
  static func columns(_ db: Database, table: String, schema: String) throws -> (names: [String], primaryKey: [String]) {
    let rows = try Row.fetchAll(
      db, sql: "SELECT name, pk FROM pragma_table_xinfo(?, ?) WHERE hidden = 0 ORDER BY cid", arguments: [table, schema])
    let names = rows.map { $0["name"] as String }
    let key = rows.filter { ($0["pk"] as Int) > 0 }.sorted { ($0["pk"] as Int) < ($1["pk"] as Int) }.map { $0["name"] as String }
    return (names, key)
  }
}
