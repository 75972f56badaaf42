import Foundation
import GRDB

/// One event as a step of history: what it did to each row it touched.
public struct EventStep: Sendable {
  /// A row the event touched, before and after it.
  public struct RowStep: Sendable, Hashable {
    public var table: String
    public var key: [NamedValue]
    /// What the event's operations on this row were (usually one).
    public var operations: [RowOperationKind]
    /// The row before the event; nil when it was not in its table.
    public var before: [NamedValue]?
    /// The row after the event; nil when it is not in its table (deleted,
    /// or parked by a merge).
    public var after: [NamedValue]?
    /// The columns whose values the event changed. Empty for a received
    /// write that lost to newer versions.
    public var changes: [ColumnChange] { columnChanges(before: before, after: after) }
  }

  public var stored: StoredEvent
  /// Whether the event came from another peer (merged, not applied as is).
  public var isReceived: Bool
  /// The schema changes of the event, in order.
  public var schemaChanges: [SchemaChange]
  /// The rows the event touched, in the order of its operations.
  public var rows: [RowStep]
}

/// Walks a log one event at a time from a point in its history, applying
/// each to a private in-memory copy of the database and reporting every row
/// change with its values before and after.
///
/// ```swift
/// let stepper = try EventStepper(source: archive, from: 120)
/// while let step = try stepper.next() { print(step.stored.event.id, step.rows) }
/// ```
public final class EventStepper {
  private let source: any ChronicleLogSource
  private let target: DatabaseQueue
  private let replayer: LogReplayer
  /// Log position of the last event applied.
  public private(set) var position: Int64

  /// Replays the events before log position `from` into memory; ``next()``
  /// then returns the event at `from` (or the first after it).
  public init(source: some ChronicleLogSource, from: Int64) throws {
    self.source = source
    var configuration = Configuration()
    configuration.foreignKeysEnabled = false
    configuration.prepareDatabase { db in db.addChronicleFunctions() }
    target = try DatabaseQueue(configuration: configuration)
    let peer = source.peerID
    let hasReceived = try source.read { db in
      try EventLog.hasReceivedEvents(db, localPeer: peer)
    }
    replayer = LogReplayer(localPeer: peer, tables: nil, keepsMergeState: hasReceived)
    position = from - 1
    let replayer = self.replayer
    let (baseline, baselineRows) = try source.read { db in (try LogBaseline.read(db), try LogBaseline.mergeState(db)) }
    if let baseline, from <= baseline.throughPosition {
      throw ChronicleError.historyCompacted(point: "#\(from)", baseline: baseline.throughPosition)
    }
    try target.writeWithoutTransaction { db in
      try db.inTransaction {
        try LogReplayer.prepareTarget(db)
        if let baseline { try replayer.applyBaseline(baseline, mergeState: baselineRows, keepsLog: false, db) }
        try source.read { sourceDB in
          try EventLog.forEachEncoded(sourceDB, EventFilter(positions: Int64.min...(from - 1))) { stored, bytes in
            try replayer.apply(stored, bytes: bytes, db)
          }
        }
        try replayer.endReceivedRun()
        return .commit
      }
    }
  }

  /// Applies the next event and describes it; nil at the end of the log.
  public func next() throws -> EventStep? {
    let after = position
    var next: (StoredEvent, [UInt8])?
    try source.read { db in
      try EventLog.forEachEncoded(db, EventFilter(positions: (after + 1)...Int64.max, limit: 1)) { next = ($0, $1) }
    }
    guard let (stored, bytes) = next else { return nil }
    let replayer = self.replayer
    let step = try target.writeWithoutTransaction { db in
      var step: EventStep?
      try db.inTransaction {
        let touched = Self.touchedRows(stored.event)
        let before = try touched.map { try Self.currentRow($0, db) }
        try replayer.apply(stored, bytes: bytes, db)
        try replayer.endReceivedRun()
        let rows = try zip(touched, before).map { row, before in
          EventStep.RowStep(table: row.table, key: row.key, operations: row.operations, before: before, after: try Self.currentRow(row, db))
        }
        let schema = stored.event.operations.compactMap { operation -> SchemaChange? in
          if case .schema(let change) = operation { change } else { nil }
        }
        step = EventStep(stored: stored, isReceived: stored.event.origin != replayer.localPeer, schemaChanges: schema, rows: rows)
        return .commit
      }
      return step!
    }
    position = stored.id
    return step
  }

  private struct TouchedRow {
    var table: String
    var key: [NamedValue]
    var operations: [RowOperationKind]
  }

  /// The rows an event touches, once each, in the order of its operations.
  private static func touchedRows(_ event: ChangeEvent) -> [TouchedRow] {
    var rows: [TouchedRow] = []
    var indexes: [String: Int] = [:]
    for operation in event.operations {
      guard let tableIndex = operation.tableIndex else { continue }
      let descriptor = event.tables[tableIndex]
      let kind: RowOperationKind
      let keyValues: [SQLiteValue]
      switch operation {
      case .insert(_, let values): kind = .insert; keyValues = descriptor.primaryKey.map { values[$0] }
      case .update(_, let key, _): kind = .update; keyValues = key
      case .delete(_, let key): kind = .delete; keyValues = key
      case .schema, .membership: continue
      }
      let key = zip(descriptor.primaryKey, keyValues).map { NamedValue(column: descriptor.columns[$0], value: $1) }
      let identity = descriptor.name.lowercased() + "\u{0}" + key.map(\.description).joined(separator: "\u{0}")
      if let index = indexes[identity] {
        rows[index].operations.append(kind)
      } else {
        indexes[identity] = rows.count
        rows.append(TouchedRow(table: descriptor.name, key: key, operations: [kind]))
      }
    }
    return rows
  }

  /// The row as the copy holds it now; nil when absent (or its table is).
  private static func currentRow(_ row: TouchedRow, _ db: Database) throws -> [NamedValue]? {
    guard try db.tableExists(row.table) else { return nil }
    let condition: String = row.key.map { "\(quotedIdentifier($0.column)) = ?" }.joined(separator: " AND ")
    do {
      return try db.fetchFirstNamedRow(
        sql: "SELECT * FROM main.\(quotedIdentifier(row.table)) WHERE \(condition)", values: row.key.map(\.value))
    } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
      return nil  // the key column is not there (any more): the table was reshaped
    }
  }
}
