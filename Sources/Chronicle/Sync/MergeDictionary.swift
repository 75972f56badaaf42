import Foundation
import GRDB
import GRDBSQLite

/// The numbers that merge state stores in place of names and peer ids:
/// `chronicle_merge_names` (table and column names) and
/// `chronicle_merge_origins` (the peers whose writes won a column). A row's
/// merge state then spends a byte or two where it would spend a name or 16
/// bytes of peer id, on every row.
///
/// Numbers are given on first use and never change or go away (a renamed
/// column is a new name), so a number read in any transaction names the same
/// thing later. The cache belongs to one transaction's merge: a rolled-back
/// transaction takes its new numbers with it, and the cache with them.
final class MergeDictionary {
  private let db: Database
  /// `main`, or the schema of an attached database.
  private let schema: String
  /// The first names numbered, searched before the dictionaries: a merge
  /// asks for the same few column names for every row, and comparing short
  /// names beats hashing them.
  private var frequentNames: [(name: String, number: Int64)] = []
  private var frequentOrigins: [(origin: PeerID, number: Int64)] = []
  private static let frequentLimit = 32
  private var numbersByName: [String: Int64] = [:]
  private var namesByNumber: [Int64: String] = [:]
  private var numbersByOrigin: [PeerID: Int64] = [:]
  private var originsByNumber: [Int64: PeerID] = [:]

  init(_ db: Database, schema: String = "main") {
    self.db = db
    self.schema = schema
  }

  /// The number of a table or column name, given now if it has none.
  func number(ofName name: String) throws -> Int64 {
    for entry in frequentNames where entry.name == name { return entry.number }
    if let number = numbersByName[name] { return number }
    let number = try number(of: .text(name), in: "chronicle_merge_names", column: "name")
    if frequentNames.count < Self.frequentLimit { frequentNames.append((name, number)) }
    numbersByName[name] = number
    namesByNumber[number] = name
    return number
  }

  /// The name numbered `number`.
  func name(_ number: Int64) throws -> String {
    if let name = namesByNumber[number] { return name }
    guard case .text(let name) = try value(numbered: number, in: "chronicle_merge_names", column: "name") else {
      throw ChronicleError.corruptMergeState(table: "?", detail: "no name numbered \(number) in chronicle_merge_names")
    }
    numbersByName[name] = number
    namesByNumber[number] = name
    return name
  }

  /// The number of a peer, given now if it has none.
  func number(ofOrigin origin: PeerID) throws -> Int64 {
    for entry in frequentOrigins where entry.origin == origin { return entry.number }
    if let number = numbersByOrigin[origin] { return number }
    let number = try number(of: .blob(Data(origin.bytes)), in: "chronicle_merge_origins", column: "peer_id")
    if frequentOrigins.count < Self.frequentLimit { frequentOrigins.append((origin, number)) }
    numbersByOrigin[origin] = number
    originsByNumber[number] = origin
    return number
  }

  /// The peer numbered `number`.
  func origin(_ number: Int64) throws -> PeerID {
    if let origin = originsByNumber[number] { return origin }
    guard case .blob(let bytes) = try value(numbered: number, in: "chronicle_merge_origins", column: "peer_id"),
      let origin = PeerID(bytes: Array(bytes))
    else {
      throw ChronicleError.corruptMergeState(table: "?", detail: "no peer numbered \(number) in chronicle_merge_origins")
    }
    numbersByOrigin[origin] = number
    originsByNumber[number] = origin
    return origin
  }

  /// The numbers of every name equal to `name` but for case (SQLite's table
  /// names are case-insensitive).
  func numbers(ofNameIgnoringCase name: String) throws -> [Int64] {
    try Int64.fetchAll(db, sql: "SELECT number FROM \(schema).chronicle_merge_names WHERE name = ? COLLATE NOCASE", arguments: [name])
  }

  /// Every number of a file, to start another file with the same ones.
  static func entries(_ db: Database) throws -> (names: [Row], origins: [Row]) {
    (try Row.fetchAll(db, sql: "SELECT number, name FROM chronicle_merge_names"),
     try Row.fetchAll(db, sql: "SELECT number, peer_id FROM chronicle_merge_origins"))
  }

  static func insert(_ entries: (names: [Row], origins: [Row]), _ db: Database) throws {
    for row in entries.names { try db.execute(sql: "INSERT INTO chronicle_merge_names (number, name) VALUES (?, ?)", arguments: StatementArguments(row.databaseValues)) }
    for row in entries.origins { try db.execute(sql: "INSERT INTO chronicle_merge_origins (number, peer_id) VALUES (?, ?)", arguments: StatementArguments(row.databaseValues)) }
  }

  /// Whether the numbers of the attached database `schema` mean in `main`
  /// what they mean there (each number of one names nothing else in the
  /// other, and each name or peer has one number in both); then merge
  /// state moves between the two as it is stored, once `main` has the
  /// other's numbers too (``adoptNumbers(from:_:)``).
  static func agrees(with schema: String, _ db: Database) throws -> Bool {
    let conflicts = try Bool.fetchOne(db, sql: """
      SELECT EXISTS (
        SELECT 1 FROM \(schema).chronicle_merge_names AS s JOIN main.chronicle_merge_names AS m ON m.number = s.number OR m.name = s.name
        WHERE m.number != s.number OR m.name != s.name)
      OR EXISTS (
        SELECT 1 FROM \(schema).chronicle_merge_origins AS s JOIN main.chronicle_merge_origins AS m ON m.number = s.number OR m.peer_id = s.peer_id
        WHERE m.number != s.number OR m.peer_id != s.peer_id)
      """) ?? true
    return !conflicts
  }

  /// Gives `main` the numbers of `schema` it lacks (they agree: see ``agrees(with:_:)``).
  static func adoptNumbers(from schema: String, _ db: Database) throws {
    try db.execute(sql: """
      INSERT OR IGNORE INTO main.chronicle_merge_names (number, name) SELECT number, name FROM \(schema).chronicle_merge_names;
      INSERT OR IGNORE INTO main.chronicle_merge_origins (number, peer_id) SELECT number, peer_id FROM \(schema).chronicle_merge_origins;
      """)
  }

  private func number(of value: SQLiteValue, in table: String, column: String) throws -> Int64 {
    let select = try db.cachedStatement(sql: "SELECT number FROM \(schema).\(table) WHERE \(column) = ?")
    if let found = try select.firstRow([value], { sqlite3_column_int64($0, 0) }) { return found }
    try db.cachedStatement(sql: "INSERT INTO \(schema).\(table) (\(column)) VALUES (?)").run([value])
    return db.lastInsertedRowID
  }

  private func value(numbered number: Int64, in table: String, column: String) throws -> SQLiteValue? {
    let select = try db.cachedStatement(sql: "SELECT \(column) FROM \(schema).\(table) WHERE number = ?")
    return try select.firstRow([.integer(number)]) { SQLiteValue(statement: $0, column: 0) }
  }
}
