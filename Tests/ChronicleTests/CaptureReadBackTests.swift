import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

/// Capture reads touched rows back at commit. Tables keyed by their rowid
/// take fast paths (the key from the hook, an ascending-run index, a walk in
/// rowid order); these tests hold them to the result of the general path.
@Suite("Capture: reading touched rows back")
struct CaptureReadBackTests {
  @Test func rowidKeysAreRecognised() throws {
    let directory = try TemporaryDirectory()
    let database = try Chronicle.open(path: directory.path("shapes.sqlite"))
    let shapes: [(sql: String, isRowid: Bool)] = [
      ("CREATE TABLE a (id INTEGER PRIMARY KEY, v TEXT) STRICT", true),
      ("CREATE TABLE b (id INTEGER, v TEXT, PRIMARY KEY (id)) STRICT", true),
      ("CREATE TABLE c (id INTEGER PRIMARY KEY DESC, v TEXT) STRICT", false),  // SQLite's quirk: not an alias
      ("CREATE TABLE d (id INTEGER PRIMARY KEY, v TEXT) STRICT, WITHOUT ROWID", false),
      ("CREATE TABLE e (id INT PRIMARY KEY, v TEXT) STRICT", false),
      ("CREATE TABLE f (id TEXT PRIMARY KEY, v TEXT) STRICT", false),
      ("CREATE TABLE g (x INTEGER, y INTEGER, PRIMARY KEY (x, y)) STRICT", false),
    ]
    try database.write { db in
      for shape in shapes { try db.execute(sql: shape.sql) }
    }
    try database.read { db in
      for (name, shape) in zip(["a", "b", "c", "d", "e", "f", "g"], shapes) {
        let read = try #require(try TableShape.read(db, table: name))
        #expect(read.keyIsRowid == shape.isRowid, "\(shape.sql)")
      }
    }
  }

  /// A column named `rowid` hides the real one; the walk must still go by the key.
  @Test func aColumnNamedRowidDoesNotMisleadTheWalk() throws {
    let directory = try TemporaryDirectory()
    let database = try Chronicle.open(path: directory.path("rowid.sqlite"))
    try database.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, rowid INTEGER NOT NULL) STRICT") }
    let (_, stored) = try database.writeReturningEvent { db in
      for id in 1...100 { try db.execute(sql: "INSERT INTO t (id, rowid) VALUES (?, ?)", arguments: [id, 1000 - id]) }
    }
    let operations = try #require(stored?.event.operations)
    let inserts = operations.compactMap { operation -> [SQLiteValue]? in
      if case .insert(_, let values) = operation { values } else { nil }
    }
    let expected: [[SQLiteValue]] = (Int64(1)...100).map { id in [SQLiteValue.integer(id), SQLiteValue.integer(1000 - id)] }
    #expect(inserts == expected)
    #expect(try database.replay(into: directory.path("replayed.sqlite")).digests == database.digests())
  }

  /// Random transactions applied alike to a table keyed by its rowid and to
  /// one whose INTEGER key has its own index (`PRIMARY KEY DESC`, read back
  /// by lookups only): every event must carry the same operations for both,
  /// and a replay must give the live digests. Keys ascend, descend, jump
  /// further than the walk steps, move, and reach Int64.min and Int64.max.
  @Test(arguments: [UInt64(7), 42, 20261121])
  func rowidWalkMatchesKeyLookups(seed: UInt64) async throws {
    try await offThePool { try Self.rowidWalkMatchesKeyLookups(seed: seed) }
  }

  static func rowidWalkMatchesKeyLookups(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    let database = try Chronicle.open(path: directory.path("walk.sqlite"))
    var random = SeededGenerator(seed: seed)
    try database.write { db in
      try db.execute(sql: """
        CREATE TABLE byRowid (id INTEGER PRIMARY KEY, v ANY, w INTEGER NOT NULL DEFAULT 0) STRICT;
        CREATE TABLE byIndex (id INTEGER PRIMARY KEY DESC, v ANY, w INTEGER NOT NULL DEFAULT 0) STRICT;
        """)
    }
    func both(_ db: Database, _ sql: String, _ arguments: StatementArguments = []) throws {
      for table in ["byRowid", "byIndex"] {
        try db.execute(sql: sql.replacingOccurrences(of: "$t", with: table), arguments: arguments)
      }
    }
    for transaction in 0..<150 {
      let (_, stored) = try database.writeReturningEvent { db in
        for _ in 0..<Int.random(in: 1...6, using: &random) {
          let start = Int64.random(in: -3000...3000, using: &random)
          switch Int.random(in: 0..<10, using: &random) {
          case 0:  // a bulk insert, ascending, with gaps sometimes wider than a walk step
            let stride = Int64.random(in: 1...100, using: &random)
            for index in 0..<Int64.random(in: 1...200, using: &random) {
              try both(db, "INSERT OR IGNORE INTO $t (id, v) VALUES (?, ?)", [start + index * stride, "r\(index)"])
            }
          case 1:  // descending
            for index in 0..<Int64.random(in: 1...50, using: &random) {
              try both(db, "INSERT OR REPLACE INTO $t (id, v, w) VALUES (?, ?, ?)", [start - index * 3, index, transaction])
            }
          case 2:
            try both(db, "UPDATE $t SET v = ?, w = w + 1 WHERE id BETWEEN ? AND ?", [Double(start) / 8, start, start + 400])
          case 3:
            try both(db, "DELETE FROM $t WHERE id BETWEEN ? AND ?", [start, start + Int64.random(in: 0...300, using: &random)])
          case 4:  // keys move, one row at a time so both tables take the same moves
            for _ in 0..<Int.random(in: 1...20, using: &random) {
              let from = start + Int64.random(in: 0...150, using: &random)
              try both(db, "UPDATE OR IGNORE $t SET id = ? WHERE id = ?", [from + Int64.random(in: -70...70, using: &random), from])
            }
          case 5:
            try both(db, "INSERT OR REPLACE INTO $t (id, v) VALUES (?, 'min'), (?, 'max'), (0, 'zero')", [Int64.min, Int64.max])
          case 6:
            try db.inSavepoint {
              try both(db, "INSERT OR IGNORE INTO $t (id, v) VALUES (?, 'gone'), (?, 'gone')", [start, start + 1])
              try both(db, "DELETE FROM $t WHERE id < ?", [start])
              return .rollback
            }
          case 7:  // fails on its second row: the statement is undone
            for table in ["byRowid", "byIndex"] {
              #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO \(table) (id, v) VALUES (?, 'dup'), (?, 'dup')", arguments: [start + 7001, start + 7001])
              }
            }
          case 8:  // the walk runs off the end of the table, then must come back for rows below
            try both(db, "DELETE FROM $t WHERE id > ?", [start + 2000])
            try both(db, "UPDATE $t SET w = w + 1 WHERE id BETWEEN ? AND ?", [start - 300, start])
          default:
            try both(db, "UPDATE $t SET w = w + 1 WHERE id % 3 = ?", [Int.random(in: 0...2, using: &random)])
          }
        }
      }
      // The same row operations, in the order each table's own statements
      // visited its rows (rowid order for one, index order for the other).
      guard let event = stored?.event else { continue }
      let operations = { (name: String) -> [RowOperation] in
        guard let index = event.tables.firstIndex(where: { $0.name == name }) else { return [] }
        return event.operations.compactMap { $0.rowOperation(onTable: index) }
      }
      let (byRowid, byIndex) = (operations("byRowid"), operations("byIndex"))
      #expect(byRowid.count == byIndex.count && Set(byRowid) == Set(byIndex),
              "seed \(seed), transaction \(transaction): the events differ")
    }
    let live = try database.digests()
    #expect(live.first { $0.table == "byRowid" }?.rowCount ?? 0 > 0, "seed \(seed): no rows left")
    let (byRowid, byIndex) = try database.read { db in
      try (Row.fetchAll(db, sql: "SELECT id, v, w FROM byRowid ORDER BY id"), Row.fetchAll(db, sql: "SELECT id, v, w FROM byIndex ORDER BY id"))
    }
    let same = byRowid == byIndex  // not in the expectation: it would print every row
    #expect(same, "seed \(seed): the two tables differ")
    let report = try database.replay(into: directory.path("replayed.sqlite"))
    #expect(report.digests == live, "seed \(seed): replayed digests differ from the live tables")
  }

  /// The shape of a row operation without its table index, to compare tables.
  enum RowOperation: Hashable {
    case insert([SQLiteValue])
    case update(key: [SQLiteValue], changes: [ColumnValue])
    case delete(key: [SQLiteValue])
  }
}

extension EventOperation {
  fileprivate func rowOperation(onTable index: Int) -> CaptureReadBackTests.RowOperation? {
    switch self {
    case .insert(index, let values): .insert(values)
    case .update(index, let key, let changes): .update(key: key, changes: changes)
    case .delete(index, let key): .delete(key: key)
    default: nil
    }
  }
}
