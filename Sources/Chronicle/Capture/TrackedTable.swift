import GRDB

/// The shape of a tracked table as capture and read-back need it.
///
/// One instance per table for the life of the connection: a rename changes
/// ``name``, an ALTER changes ``columns`` and bumps ``generation``, so rows
/// captured earlier in a transaction can still be matched.
final class TrackedTable {
  var name: String
  /// Stored (non-generated) columns, in declaration order.
  private(set) var columns: [String]
  /// For each of ``columns``, its index in the table (`table_xinfo` cid), as
  /// the preupdate hook counts columns.
  private(set) var columnIndexes: [Int32]
  /// Indexes into ``columns`` of the primary key, in key order.
  private(set) var primaryKey: [Int]
  /// Whether the key is the table's rowid (a single `INTEGER PRIMARY KEY`
  /// column in a rowid table): the preupdate hook then hands it over without
  /// unpacking the record, and read-back can walk the table in rowid order.
  private(set) var keyIsRowid: Bool
  /// Bumped every time ``columns`` changes.
  private(set) var generation = 0

  init(shape: TableShape) {
    name = shape.name
    columns = shape.columns
    columnIndexes = shape.columnIndexes
    primaryKey = shape.primaryKey
    keyIsRowid = shape.keyIsRowid
  }

  func update(to shape: TableShape) {
    name = shape.name
    if shape.columns != columns || shape.primaryKey != primaryKey || shape.keyIsRowid != keyIsRowid {
      columns = shape.columns
      columnIndexes = shape.columnIndexes
      primaryKey = shape.primaryKey
      keyIsRowid = shape.keyIsRowid
      generation += 1
    }
  }

  var descriptor: TableDescriptor {
    TableDescriptor(name: name, columns: columns, primaryKey: primaryKey)
  }
}

/// What SQLite says about a table: whether Chronicle can track it, and its
/// columns and key.
struct TableShape: Equatable {
  var name: String
  var isStrict: Bool
  var columns: [String]
  var columnIndexes: [Int32]
  var primaryKey: [Int]
  /// Whether the primary key is an alias of the rowid.
  var keyIsRowid: Bool

  /// Reads the shape of `table` in the main schema; nil when there is none.
  static func read(_ db: Database, table: String) throws -> TableShape? {
    guard let listing = try Row.fetchOne(db, sql: "SELECT type, strict, wr FROM pragma_table_list(?) WHERE schema = 'main'", arguments: [table]),
          listing["type"] as String == "table"
    else { return nil }
    var columns: [String] = []
    var indexes: [Int32] = []
    var keyed: [(position: Int, column: Int)] = []
    for row in try Row.fetchAll(db, sql: "SELECT cid, name, pk, hidden FROM pragma_table_xinfo(?, 'main') ORDER BY cid", arguments: [table]) {
      let hidden: Int = row["hidden"]
      guard hidden == 0 else { continue }  // generated columns are derived, not captured
      let pk: Int = row["pk"]
      if pk > 0 { keyed.append((pk, columns.count)) }
      columns.append(row["name"])
      indexes.append(Int32(row["cid"] as Int))
    }
    // A one-column INTEGER key of a rowid table is the rowid itself, unless
    // SQLite had to give it an index of its own (the `INTEGER PRIMARY KEY DESC`
    // quirk): asking SQLite for that index avoids parsing declarations.
    let keyIsRowid = try keyed.count == 1 && (listing["wr"] as Int) == 0
      && Bool.fetchOne(db, sql: """
        SELECT NOT EXISTS (SELECT 1 FROM pragma_index_list(?1, 'main') WHERE origin = 'pk')
          AND (SELECT upper(type) FROM pragma_table_xinfo(?1, 'main') WHERE pk = 1) = 'INTEGER'
        """, arguments: [table]) == true
    return TableShape(
      name: table, isStrict: (listing["strict"] as Int) == 1, columns: columns, columnIndexes: indexes,
      primaryKey: keyed.sorted { $0.position < $1.position }.map(\.column), keyIsRowid: keyIsRowid)
  }

  /// Throws the error that tells why the table cannot be tracked, if it cannot.
  func validateTrackable() throws {
    guard !InternalSchema.isReserved(name) else { throw ChronicleError.reservedTableName(name) }
    guard isStrict else { throw ChronicleError.tableNotStrict(name) }
    guard !primaryKey.isEmpty else { throw ChronicleError.tableWithoutPrimaryKey(name) }
  }

  var isTrackable: Bool { (try? validateTrackable()) != nil }
}
