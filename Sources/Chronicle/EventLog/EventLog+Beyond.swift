import Foundation
import GRDB

/// The events a peer lacks, found through the `(origin, sequence)` index:
/// what a sync reads costs what the other side lacks, not the log's length.
extension EventLog {
  /// What the log holds of one origin beyond a sequence.
  struct OriginSummary {
    var count = 0
    var bytes = 0
    /// The oldest clock among them, as stored.
    var oldestTimestamp: UInt64?
    /// Their first and last log positions.
    var positions: ClosedRange<Int64>?
  }

  /// The origins of the log's events, as stored: one index probe per origin
  /// (a loose index scan, which SQLite does not do by itself without
  /// statistics).
  static func originBytes(_ db: Database) throws -> [Data] {
    try Data.fetchAll(
      db.cachedStatement(sql: """
        WITH RECURSIVE origins(origin) AS (
          SELECT MIN(origin) FROM main.chronicle_events
          UNION ALL
          SELECT (SELECT MIN(origin) FROM main.chronicle_events WHERE origin > origins.origin)
          FROM origins WHERE origins.origin IS NOT NULL
        )
        SELECT origin FROM origins WHERE origin IS NOT NULL
        """))
  }

  /// The events of the origin stored as `originBytes` whose sequences are
  /// above `after`, at positions below `before`.
  static func summary(_ db: Database, originBytes: Data, sequencesAfter after: UInt64, positionsBefore before: Int64) throws -> OriginSummary {
    guard let row = try Row.fetchOne(
      db.cachedStatement(sql: """
        SELECT COUNT(*), TOTAL(stored_size), MIN(hlc), MIN(id), MAX(id) FROM main.chronicle_events
        WHERE origin = ? AND sequence > ? AND id < ?
        """),
      arguments: [originBytes, Int64(clamping: after), before])
    else { return OriginSummary() }
    var summary = OriginSummary(count: row[0], bytes: Int(row[1] as Double))
    summary.oldestTimestamp = (row[2] as Int64?).map { UInt64(bitPattern: $0) }
    if let first = row[3] as Int64?, let last = row[4] as Int64? { summary.positions = first...last }
    return summary
  }

  /// What the log holds beyond `vector` (of `origin` only, when given), at
  /// positions below `before`, over every origin: each origin's summary,
  /// added up.
  static func summary(_ db: Database, beyond vector: VersionVector, origin: PeerID? = nil, positionsBefore before: Int64 = .max) throws -> OriginSummary {
    var total = OriginSummary()
    for originBytes in try origin.map({ [Data($0.bytes)] }) ?? originBytes(db) {
      guard let peer = PeerID(bytes: originBytes) else { continue }
      let summary = try summary(db, originBytes: originBytes, sequencesAfter: vector[peer], positionsBefore: before)
      guard let positions = summary.positions else { continue }
      total.count += summary.count
      total.bytes += summary.bytes
      if let timestamp = summary.oldestTimestamp { total.oldestTimestamp = min(total.oldestTimestamp ?? timestamp, timestamp) }
      total.positions = total.positions.map { min($0.lowerBound, positions.lowerBound)...max($0.upperBound, positions.upperBound) } ?? positions
    }
    return total
  }

  /// The payloads of `origin`'s events whose sequences are above `after`,
  /// in sequence order.
  static func payloads(_ db: Database, origin: PeerID, sequencesAfter after: UInt64) throws -> [Data] {
    try Data.fetchAll(
      db.cachedStatement(sql: "SELECT payload FROM main.chronicle_events WHERE origin = ? AND sequence > ? ORDER BY sequence"),
      arguments: [Data(origin.bytes), Int64(clamping: after)])
  }
}
