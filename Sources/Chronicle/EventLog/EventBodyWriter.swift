/// Writes an event body incrementally, in the format of `Schemas/EVENT-FORMAT.md`.
///
/// Operations are written as they are produced (capture streams rows straight
/// from SQLite into it, without building an operation list), and the table
/// section that precedes them is put in front by ``finish()``. The bytes are
/// exactly those of ``EventCodec/encodeBody(tables:operations:)`` for the same
/// tables and operations: that function is written on top of this type.
struct EventBodyWriter {
  private(set) var tables: [TableDescriptor] = []
  private(set) var operationCount = 0
  /// Number of insert, update and delete operations written.
  private(set) var rowChangeCount = 0
  /// Per table index: whether a row operation refers to it.
  private var changedTables: [Bool] = []
  /// Operation bytes, without the leading table section and count.
  var operations = BinaryWriter(capacity: 4096)

  init() {}

  /// Adds a table to the table section; operations refer to it by the returned index.
  mutating func addTable(_ table: TableDescriptor) -> Int {
    tables.append(table)
    changedTables.append(false)
    return tables.count - 1
  }

  /// Names of the tables that row operations changed, sorted.
  var changedTableNames: [String] {
    Set(tables.indices.filter { changedTables[$0] }.map { tables[$0].name }).sorted()
  }

  /// Writes any operation.
  mutating func append(_ operation: EventOperation) throws(EventFormatError) {
    if let table = operation.tableIndex, table >= tables.count {
      throw EventFormatError(problem: .tableIndexOutOfRange(table), region: .body, offset: operations.bytes.count)
    }
    switch operation {
    case .insert(let table, let values):
      beginInsert(table: table)
      for value in values { try EventCodec.writeValue(value, to: &operations) }
    case .update(let table, let key, let changes):
      beginUpdate(table: table)
      for value in key { try EventCodec.writeValue(value, to: &operations) }
      operations.writeVarint(changes.count)
      for change in changes {
        operations.writeVarint(change.column)
        try EventCodec.writeValue(change.value, to: &operations)
      }
    case .delete(let table, let key):
      beginDelete(table: table)
      for value in key { try EventCodec.writeValue(value, to: &operations) }
    case .schema(let change):
      try appendSchema(change)
    case .membership(let change):
      appendMembership(change)
    }
  }

  /// Writes the opcode and table of an insert; the caller writes every column value next.
  mutating func beginInsert(table: Int) { beginRowOperation(.insert, table: table) }

  /// Writes the opcode and table of an update; the caller writes the key values,
  /// the count of changed columns, then each column index and value.
  mutating func beginUpdate(table: Int) { beginRowOperation(.update, table: table) }

  /// Writes the opcode and table of a delete; the caller writes the key values next.
  mutating func beginDelete(table: Int) { beginRowOperation(.delete, table: table) }

  private mutating func beginRowOperation(_ kind: EventCodec.OperationKind, table: Int) {
    operationCount += 1
    rowChangeCount += 1
    changedTables[table] = true
    operations.writeByte(kind.rawValue)
    operations.writeVarint(table)
  }

  /// Writes a change of the group's member list.
  mutating func appendMembership(_ change: MembershipChange) {
    operationCount += 1
    operations.writeByte(EventCodec.OperationKind.membership.rawValue)
    EventCodec.writeMembership(change, to: &operations)
  }

  /// Writes a schema change.
  mutating func appendSchema(_ change: SchemaChange) throws(EventFormatError) {
    operationCount += 1
    operations.writeByte(EventCodec.OperationKind.schema.rawValue)
    switch change {
    case .execute(let sql):
      operations.writeByte(EventCodec.SchemaKind.execute.rawValue)
      operations.writeString(sql)
    case .rebuildTable(let name, let createSQL, let copied, let dependents):
      operations.writeByte(EventCodec.SchemaKind.rebuildTable.rawValue)
      operations.writeString(name)
      operations.writeString(createSQL)
      operations.writeVarint(copied.count)
      for column in copied {
        operations.writeString(column.newName)
        operations.writeString(column.oldName)
      }
      operations.writeVarint(dependents.count)
      for sql in dependents { operations.writeString(sql) }
    case .migration(let migration):
      operations.writeByte(EventCodec.SchemaKind.migration.rawValue)
      operations.writeString(migration.name)
      operations.writeVarint(migration.steps.count)
      for step in migration.steps { try EventCodec.writeStep(step, to: &operations) }
    }
  }

  /// The body: table section, operation count, operations.
  func finish() -> [UInt8] {
    var body = prefix()
    body.append(contentsOf: operations.bytes)
    return body
  }

  /// What goes before the operations: the table section and the operation count.
  func prefix() -> [UInt8] {
    var header = BinaryWriter(capacity: 64 + tables.count * 64)
    header.writeVarint(tables.count)
    for table in tables {
      header.writeString(table.name)
      header.writeVarint(table.columns.count)
      for column in table.columns { header.writeString(column) }
      header.writeVarint(table.primaryKey.count)
      for index in table.primaryKey { header.writeVarint(index) }
    }
    header.writeVarint(operationCount)
    return header.bytes
  }
}
