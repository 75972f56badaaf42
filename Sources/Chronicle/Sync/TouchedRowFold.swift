import Foundation
import GRDB

/// A fold of local history limited to the rows a merge receives: the own
/// events from the oldest received write's clock on that changed one of
/// those rows (found through ``EventRowTouches``, without decoding the
/// others; an entry that does not know its rows counts as one that
/// changed them), and of each, only its changes to those rows.
///
/// A merge compares a received write with the versions of the row it
/// writes, and reads nothing else of merge state but parked rows (which
/// are saved whole), so these are all the local versions it needs; local
/// writes to other rows stay unfolded, as writes older than the merge's
/// oldest do (see ``FoldMarks``), and a later fold joins them in. The fold
/// marks do not move: a later fold reads these events again, and folding
/// is a join, so that changes nothing.
struct TouchedRowFold {
  /// Own events to fold, as ranges of log positions to read this peer's
  /// events in (events of other peers may sit between).
  var positions: [ClosedRange<Int64>]
  /// The hashes of the received rows (``EventRowTouches/hash(table:key:)``).
  var rows: Set<UInt32>
  /// How many own events the fold reads, of how many it would read whole.
  var eventsToRead: Int
  var eventsInRange: Int
  /// What planning and running it costs, in events folded's worth: the
  /// events it reads, the index entries it read to find them
  /// (``scanEntriesPerEvent`` to one) and the received rows it hashed
  /// (``hashedRowsPerEvent`` to one).
  var cost: Int

  /// Folds by rows cost at most one event in this many of those in range,
  /// counting what earlier folds by rows cost since the last fold of whole
  /// events (``ChronicleMeta/Key/rowFoldCost``); past that, the caller
  /// folds them whole, and later merges need not fold them again. So many
  /// merges, each of a few rows (or a long pull of rows this peer never
  /// wrote, batch after batch), cost no more in all than about a quarter
  /// more than one fold of whole events.
  static let maximumShare = 4
  /// Index entries read for the cost of folding one event (about 0.13 µs
  /// against 5 µs, measured with `chronicle-bench --only olderwrite`).
  static let scanEntriesPerEvent = 40
  /// Received rows hashed for the cost of folding one event.
  static let hashedRowsPerEvent = 50
  /// Fewer own events in range than this are folded whole: reading them
  /// costs less than finding which to read, and the marks then move.
  static let minimumEvents = 256
  /// More row changes received per own event in range than this, and the
  /// events are folded whole: hashing the rows received would cost more.
  static let maximumReceivedChangesPerEvent = 32

  /// The fold by rows for merging `events`, whose oldest write is at
  /// `since`; nil when the index cannot tell (a change of shape among the
  /// own events in range or the events received, a key that is not the
  /// local one) or when folding the events whole costs about as much: so
  /// many own events touch those rows, or so many were in range or received
  /// (with what earlier folds by rows cost), the events are few, or the
  /// rows received many.
  static func plan(
    _ db: Database, events: [IncomingEvent], since: HLCTimestamp, applier: MergeApplier, minimumEvents: Int = minimumEvents
  ) throws -> TouchedRowFold? {
    guard let range = try ownEventsInRange(db, since: since, applier: applier) else { return nil }
    guard range.eventCount > 0 else { return TouchedRowFold(positions: [], rows: [], eventsToRead: 0, eventsInRange: 0, cost: 0) }
    let receivedChanges = events.reduce(0) { $0 + $1.event.rowChangeCount }
    guard range.eventCount >= minimumEvents, receivedChanges <= range.eventCount * maximumReceivedChangesPerEvent else { return nil }
    guard let rowsByTable = try receivedRows(of: events, applier: applier) else { return nil }
    var matched = Set<Int64>()
    for (table, rows) in rowsByTable {
      for positions in range.positions {
        try EventRowTouches.scan(db, table: table, positions: positions, local: applier.local, touching: rows) { position, touches in
          if touches { matched.insert(position) }
        }
      }
    }
    let cost = matched.count + range.eventCount / scanEntriesPerEvent + receivedChanges / hashedRowsPerEvent
    let costBefore = try ChronicleMeta(db: db).value(.rowFoldCost) ?? 0
    guard (Int(costBefore) + cost) * maximumShare <= range.eventCount else { return nil }
    // Runs of neighbouring positions are read together.
    var runs: [ClosedRange<Int64>] = []
    for position in matched.sorted() {
      if let last = runs.last, last.upperBound + 1 == position {
        runs[runs.count - 1] = last.lowerBound...position
      } else {
        runs.append(position...position)
      }
    }
    return TouchedRowFold(
      positions: runs, rows: rowsByTable.values.reduce(into: Set()) { $0.formUnion($1) }, eventsToRead: matched.count,
      eventsInRange: range.eventCount, cost: cost)
  }

  /// Whether own events from `since` on could be folded by rows (none
  /// changed the shape, and few have entries that do not know their
  /// rows): what a peer about to receive events asks before it prepares
  /// its merge state whole.
  static func mayApply(_ db: Database, since: HLCTimestamp, applier: MergeApplier, minimumEvents: Int = minimumEvents) throws -> Bool {
    guard let range = try ownEventsInRange(db, since: since, applier: applier), range.eventCount >= minimumEvents else { return false }
    // Own events at the current epoch changed tables tracked now.
    var unknown = 0
    for table in try TrackedTables.names(db) {
      for positions in range.positions {
        unknown += try EventRowTouches.countUnknown(db, table: table, positions: positions, local: applier.local)
      }
    }
    return unknown * maximumShare <= range.eventCount
  }

  /// This peer's unfolded events from `since` on, as the fold since a
  /// clock reads them; nil when one of them is at an older schema epoch
  /// than the peer's (names and keys may have changed since).
  private static func ownEventsInRange(
    _ db: Database, since: HLCTimestamp, applier: MergeApplier
  ) throws -> (positions: [ClosedRange<Int64>], eventCount: Int)? {
    let local = applier.local
    let marks = try FoldMarks.read(db)
    guard let unfolded = try marks.unfoldedOwnEvents(db, local: local),
          let from = try OriginEvents.first(db, origin: local, from: unfolded.first.sequence, where: { $0.timestamp >= since })
    else { return ([], 0) }
    let sequences = marks.unfolded(from.sequence...unfolded.sequences.last!.upperBound)
    // A peer's epoch only goes up: the first event in range tells for all.
    guard try EventLog.schemaEpoch(db, position: from.position) == applier.localEpoch else { return nil }
    let positions = try OriginEvents.positions(db, origin: local, sequences: sequences)
    guard positions.count == sequences.count else { return nil }  // compacted since
    return (positions, sequences.reduce(0) { $0 + Int($1.upperBound - $1.lowerBound + 1) })
  }

  /// The hashes of the rows `events` write, by local table name, in the
  /// local key order; nil when one of them was written in another shape.
  private static func receivedRows(of events: [IncomingEvent], applier: MergeApplier) throws -> [String: Set<UInt32>]? {
    var rows: [String: Set<UInt32>] = [:]
    for incoming in events {
      let event = incoming.event
      var tables = [(name: String, seed: UInt64, keyOrder: [Int])??](repeating: nil, count: event.tables.count)
      for operation in event.operations {
        guard let tableIndex = operation.tableIndex else { continue }
        guard event.schemaEpoch == applier.localEpoch else { return nil }
        let descriptor = event.tables[tableIndex]
        if tables[tableIndex] == nil {
          // A table not tracked here: the merge refuses the event.
          guard let shape = try applier.trackedShape(descriptor.name) else { return nil }
          guard let keyOrder = MergeApplier.keyOrder(of: descriptor, in: shape) else { return nil }
          tables[tableIndex] = .some((shape.name, EventRowTouches.seed(table: shape.name), keyOrder))
        }
        guard let (name, seed, keyOrder) = tables[tableIndex]! else { continue }
        let key: [SQLiteValue]
        switch operation {
        case .insert(_, let values): key = descriptor.primaryKey.map { values[$0] }
        case .update(_, let values, _), .delete(_, let values): key = values
        case .schema, .membership: continue
        }
        guard key.count == keyOrder.count else { return nil }
        rows[name, default: []].insert(EventRowTouches.hash(table: seed, key: keyOrder.map { key[$0] }))
      }
    }
    return rows
  }
}
