/// One write transaction, as recorded in the event log: every row it changed on
/// tracked tables and every schema change it made, in order.
///
/// An event is identified by its ``origin`` peer and its ``sequence`` number
/// within that peer's events; ``timestamp`` orders events from different peers.
public struct ChangeEvent: Hashable, Sendable {
  /// The peer on which the transaction ran.
  public var origin: PeerID
  /// 1, 2, 3, ... per origin, without gaps.
  public var sequence: UInt64
  /// The hybrid logical clock reading of the transaction.
  public var timestamp: HLCTimestamp
  /// The schema epoch in force after the transaction.
  public var schemaEpoch: UInt64
  /// The tables the operations refer to, by index.
  public var tables: [TableDescriptor]
  /// Schema changes and row changes, in the order replay applies them.
  public var operations: [EventOperation]

  public init(
    origin: PeerID, sequence: UInt64, timestamp: HLCTimestamp, schemaEpoch: UInt64,
    tables: [TableDescriptor], operations: [EventOperation]
  ) {
    self.origin = origin
    self.sequence = sequence
    self.timestamp = timestamp
    self.schemaEpoch = schemaEpoch
    self.tables = tables
    self.operations = operations
  }

  /// The global identity of the event: `origin:sequence`.
  public var id: EventID { EventID(origin: origin, sequence: sequence) }

  /// Number of row operations (inserts, updates and deletes).
  public var rowChangeCount: Int {
    operations.reduce(0) { count, operation in
      operation.tableIndex == nil ? count : count + 1
    }
  }

  /// Names of the tables whose rows this event changes.
  public var changedTableNames: Set<String> {
    // Marked by index first: an event's operations mostly change few
    // tables, and hashing a name per operation costs more than the marks.
    var changed = [Bool](repeating: false, count: tables.count)
    for operation in operations {
      if let table = operation.tableIndex { changed[table] = true }
    }
    return Set(tables.indices.lazy.filter { changed[$0] }.map { tables[$0].name })
  }
}

/// The global identity of an event: its origin peer and sequence number.
public struct EventID: Hashable, Sendable, CustomStringConvertible {
  public var origin: PeerID
  public var sequence: UInt64

  public init(origin: PeerID, sequence: UInt64) {
    self.origin = origin
    self.sequence = sequence
  }

  public var description: String { "\(origin.shortDescription):\(sequence)" }
}

/// A table as an event refers to it: names, not positions in a live schema, so
/// the event keeps its meaning after the schema changes.
public struct TableDescriptor: Hashable, Sendable {
  public var name: String
  /// Every stored column, in declaration order.
  public var columns: [String]
  /// Indexes into ``columns`` of the primary key, in key order.
  public var primaryKey: [Int]

  public init(name: String, columns: [String], primaryKey: [Int]) {
    self.name = name
    self.columns = columns
    self.primaryKey = primaryKey
  }
}

/// A column index and its new value, in an update.
public struct ColumnValue: Hashable, Sendable {
  public var column: Int
  public var value: SQLiteValue

  public init(column: Int, value: SQLiteValue) {
    self.column = column
    self.value = value
  }
}

/// One step of an event.
public enum EventOperation: Hashable, Sendable {
  /// A schema change, applied before the row changes that follow it.
  case schema(SchemaChange)
  /// A new row: a value for every column of the table, in column order.
  case insert(table: Int, values: [SQLiteValue])
  /// A changed row, found by its primary key: only the columns that changed.
  case update(table: Int, key: [SQLiteValue], changes: [ColumnValue])
  /// A deleted row, found by its primary key.
  case delete(table: Int, key: [SQLiteValue])
  /// A change of the group's member list; no table changes.
  case membership(MembershipChange)

  /// The table index of a row operation, nil for a schema or membership change.
  public var tableIndex: Int? {
    switch self {
    case .schema, .membership: nil
    case .insert(let table, _), .update(let table, _, _), .delete(let table, _): table
    }
  }

  /// Whether it is a change of the group's member list.
  public var isMembership: Bool { if case .membership = self { true } else { false } }
}

/// A change of the database schema, recorded so that replay recreates the
/// schema before the rows.
public enum SchemaChange: Hashable, Sendable {
  /// A DDL statement to execute as is (CREATE or DROP of a table, index,
  /// view or trigger; a table rename).
  case execute(sql: String)
  /// A table whose definition changed in place (ALTER TABLE ADD, DROP or
  /// RENAME COLUMN): replay recreates it from `createSQL`, copies the columns
  /// listed in `copiedColumns` (new name, old name), and recreates its indexes
  /// and triggers from `dependents`.
  case rebuildTable(name: String, createSQL: String, copiedColumns: [CopiedColumn], dependents: [String])
  /// A migration: how events written before it map to the schema after it.
  /// Its DDL is recorded beside it as the other schema changes; replay has
  /// nothing to do for it, rebuild and upcasting read it.
  case migration(SchemaMigration)
}

/// A column carried over by a table rebuild, possibly renamed.
public struct CopiedColumn: Hashable, Sendable {
  public var newName: String
  public var oldName: String

  public init(newName: String, oldName: String) {
    self.newName = newName
    self.oldName = oldName
  }
}
