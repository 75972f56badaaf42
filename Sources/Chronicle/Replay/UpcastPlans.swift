import Foundation

/// Upcasting by plan, for rebuilds: when the migrations after an event only
/// rename, add and drop (``EventUpcaster/onlyReshapes(_:)``), every row of
/// one table, kind and set of columns comes out of the upcaster (and out of
/// fitting to the shadow tables) the same way. That way is worked out once,
/// on a probe row whose values are markers, and kept as a plan: where each
/// value of the result comes from (a position in the row, or a constant an
/// added column gives). Applying it moves values by position, with no names
/// compared, looked up or built per row.
struct UpcastPlans {
  /// Where a value of the reshaped row comes from.
  enum Source {
    /// The row's value at this position: for an insert, among its values;
    /// for an update, among its key values then its changed values; for a
    /// delete, among its key values.
    case input(Int)
    case constant(SQLiteValue)
  }

  /// How the rows of one shape come out.
  struct Plan {
    /// The reshaped table, as the reshaped event describes it.
    var descriptor: TableDescriptor
    /// Its name lower-cased (to find when it was last emptied).
    var lowercasedTable: String
    var operation: PlannedOperation
  }

  enum PlannedOperation {
    case insert(values: [Source])
    case update(key: [Source], changes: [(column: Int, value: Source)])
    case delete(key: [Source])
  }

  /// A shape of row: the migrations that apply, its table as recorded, its
  /// kind, and (for an update) the columns it changes.
  private struct Shape: Hashable {
    var migrations: [Int]
    var table: TableDescriptor
    var kind: RowOperationKind
    var changed: [Int]
  }

  /// Per shape, its plan; nil when the reshaped row is dropped; absent when
  /// not worked out yet. Shapes that do not come out as one row (none do
  /// with these steps) have no plan and go the long way.
  private var plans: [Shape: Plan?] = [:]
  private var unplannable = Set<Shape>()

  /// The event's row operations reshaped, or nil when a step that applies
  /// to it looks at values (it goes through ``EventUpcaster/rows(of:)``).
  /// - Parameters:
  ///   - fit: fits a reshaped row to the shadow tables (nil: dropped).
  ///   - keeps: whether a reshaped row of a table (lower-cased name) is kept.
  mutating func reshape(
    _ stored: StoredEvent, upcaster: EventUpcaster, fit: (UpcastRow) throws -> UpcastRow?, keeps: (String) -> Bool
  ) throws -> (event: ChangeEvent, rows: Int)? {
    let event = stored.event
    let migrations = upcaster.applicableMigrations(to: stored)
    guard upcaster.onlyReshapes(migrations) else { return nil }
    var tables: [TableDescriptor] = []
    var tableIndexes: [TableDescriptor: Int] = [:]
    var operations: [EventOperation] = []
    // Within the event, plans by its table, kind and changed columns (nil:
    // dropped), with the reshaped table's index once a row of it is kept.
    var local: [LocalShape: (plan: Plan, table: Int?)?] = [:]
    for operation in event.operations {
      let localShape: LocalShape
      let inputs: [SQLiteValue]
      switch operation {
      case .insert(let table, let values):
        localShape = LocalShape(table: table, kind: .insert, changed: [])
        inputs = values
      case .update(let table, let key, let changes):
        localShape = LocalShape(table: table, kind: .update, changed: changes.map(\.column))
        inputs = key + changes.map(\.value)
      case .delete(let table, let key):
        localShape = LocalShape(table: table, kind: .delete, changed: [])
        inputs = key
      case .schema, .membership:
        continue
      }
      if local[localShape] == nil {
        let shape = Shape(migrations: migrations, table: event.tables[localShape.table], kind: localShape.kind, changed: localShape.changed)
        guard let plan = try plan(for: shape, of: stored, upcaster: upcaster, fit: fit) else { return nil }
        local[localShape] = .some(plan.map { ($0, nil) })
      }
      guard let (plan, knownTable) = local[localShape]!, keeps(plan.lowercasedTable) else { continue }
      let table: Int
      if let knownTable {
        table = knownTable
      } else {
        // Tables in the order their first kept rows come, as the long way orders them.
        if let index = tableIndexes[plan.descriptor] {
          table = index
        } else {
          tables.append(plan.descriptor)
          table = tables.count - 1
          tableIndexes[plan.descriptor] = table
        }
        local[localShape] = .some((plan, table))
      }
      func value(_ source: Source) -> SQLiteValue {
        switch source {
        case .input(let position): inputs[position]
        case .constant(let value): value
        }
      }
      switch plan.operation {
      case .insert(let values):
        operations.append(.insert(table: table, values: values.map(value)))
      case .update(let key, let changes):
        operations.append(.update(table: table, key: key.map(value), changes: changes.map { ColumnValue(column: $0.column, value: value($0.value)) }))
      case .delete(let key):
        operations.append(.delete(table: table, key: key.map(value)))
      }
    }
    let reshaped = ChangeEvent(
      origin: event.origin, sequence: event.sequence, timestamp: event.timestamp, schemaEpoch: event.schemaEpoch,
      tables: tables, operations: operations)
    return (reshaped, operations.count)
  }

  private struct LocalShape: Hashable {
    var table: Int
    var kind: RowOperationKind
    var changed: [Int]
  }

  /// The plan of a shape: `.some(nil)` when its rows are dropped, nil when
  /// it has none (the event goes the long way).
  private mutating func plan(
    for shape: Shape, of stored: StoredEvent, upcaster: EventUpcaster, fit: (UpcastRow) throws -> UpcastRow?
  ) throws -> Plan?? {
    if let known = plans[shape] { return .some(known) }
    if unplannable.contains(shape) { return nil }
    // The probe: a row of this shape whose values are markers of their positions.
    let descriptor = shape.table
    func named(_ columns: some Sequence<(column: Int, position: Int)>) -> [NamedValue] {
      columns.map { NamedValue(column: descriptor.columns[$0.column], value: Self.marker($0.position)) }
    }
    let probe: UpcastRow
    switch shape.kind {
    case .insert:
      probe = UpcastRow(
        table: descriptor.name, kind: .insert, key: named(descriptor.primaryKey.map { ($0, $0) }),
        values: named(descriptor.columns.indices.map { ($0, $0) }))
    case .update:
      let keyCount = descriptor.primaryKey.count
      probe = UpcastRow(
        table: descriptor.name, kind: .update, key: named(descriptor.primaryKey.enumerated().map { ($1, $0) }),
        values: named(shape.changed.enumerated().map { ($1, keyCount + $0) }))
    case .delete:
      probe = UpcastRow(table: descriptor.name, kind: .delete, key: named(descriptor.primaryKey.enumerated().map { ($1, $0) }), values: [])
    }
    let reshaped = try upcaster.upcast(probe, of: stored).compactMap(fit)
    guard reshaped.count <= 1 else {
      unplannable.insert(shape)
      return nil
    }
    guard let row = reshaped.first else {
      plans[shape] = .some(nil)
      return .some(nil)
    }
    let built = EventUpcaster.event([row], like: stored.event)
    guard built.tables.count == 1, let operation = built.operations.first else {
      unplannable.insert(shape)
      return nil
    }
    let planned: PlannedOperation
    switch operation {
    case .insert(_, let values): planned = .insert(values: values.map(Self.source))
    case .update(_, let key, let changes): planned = .update(key: key.map(Self.source), changes: changes.map { ($0.column, Self.source($0.value)) })
    case .delete(_, let key): planned = .delete(key: key.map(Self.source))
    case .schema, .membership:
      unplannable.insert(shape)
      return nil
    }
    let plan = Plan(descriptor: built.tables[0], lowercasedTable: built.tables[0].name.lowercased(), operation: planned)
    plans[shape] = .some(plan)
    return .some(plan)
  }

  /// 16 random bytes that begin every marker: no value an added column
  /// gives is a marker, so a constant is never taken for a position.
  private static let markerPrefix: [UInt8] = (0..<16).map { _ in UInt8.random(in: 0...255) }

  private static func marker(_ position: Int) -> SQLiteValue {
    .blob(Data(markerPrefix + withUnsafeBytes(of: UInt32(position).bigEndian, Array.init)))
  }

  private static func source(_ value: SQLiteValue) -> Source {
    guard case .blob(let data) = value, data.count == markerPrefix.count + 4, data.starts(with: markerPrefix) else {
      return .constant(value)
    }
    return .input(Int(data.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }))
  }
}
