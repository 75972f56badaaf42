import Foundation
import GRDB

/// The received events this database refused (`chronicle_refused_events`):
/// what each was, who sent it, why, and, for a settled refusal, its signed
/// form. The one place that reads or writes that table.
struct RefusedEvents {
  let db: Database

  /// Unsettled refusals kept at most; the ones refused longest ago go first.
  /// (Settled ones are bounded by what members wrote: each is an event a
  /// member of the group signed, refused by the group's rules.)
  static let unsettledLimit = 10_000

  /// Records `refusals` of events `source` sent, at `now`: a first refusal
  /// adds a row, a repeated one counts it. A settled refusal keeps its
  /// record (an open one replaces an open one). With `unlessHeld`, an id
  /// the log holds is not recorded (a sealed copy that does not open, of an
  /// event held: noise a relay could make).
  func record(_ refusals: [EventRefusal], source: String, now: Date, unlessHeld: Bool = false) throws {
    guard !refusals.isEmpty else { return }
    let statement = try db.cachedStatement(sql: """
      INSERT INTO chronicle_refused_events
        (origin, sequence, reason, source, settled, bytes, checksum, event, first_refused, last_refused, times)
        SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, 1
        WHERE NOT (?10 AND EXISTS (SELECT 1 FROM main.chronicle_events WHERE origin = ?1 AND sequence = ?2))
      ON CONFLICT (origin, sequence) DO UPDATE SET
        reason = iif(settled, reason, excluded.reason), source = iif(settled, source, excluded.source),
        bytes = iif(settled, bytes, excluded.bytes), checksum = iif(settled, checksum, excluded.checksum),
        event = iif(settled, event, excluded.event), settled = max(settled, excluded.settled),
        last_refused = excluded.last_refused, times = times + 1
      """)
    let millis = Int64((now.timeIntervalSince1970 * 1000).rounded())
    for refusal in refusals {
      try statement.execute(arguments: [
        Data(refusal.id.origin.bytes), Int64(refusal.id.sequence), refusal.reason, source, refusal.settled, refusal.bytes,
        refusal.checksum.map { Int64($0) }, refusal.kept.map { Data($0) }, millis, unlessHeld,
      ])
    }
    try db.execute(
      sql: """
        DELETE FROM chronicle_refused_events WHERE settled = 0 AND rowid IN (
          SELECT rowid FROM chronicle_refused_events WHERE settled = 0 ORDER BY last_refused DESC LIMIT -1 OFFSET ?)
        """, arguments: [Self.unsettledLimit])
  }

  /// Whether no refusal is recorded (or the table is not there: a file at
  /// an older schema, read as it is).
  func isEmpty() throws -> Bool {
    guard try db.tableExists("chronicle_refused_events") else { return true }
    return try !(Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM chronicle_refused_events)") ?? false)
  }

  /// Drops the records of events the log now holds (a good copy came).
  func forget(_ ids: some Sequence<EventID>) throws {
    let statement = try db.cachedStatement(sql: "DELETE FROM chronicle_refused_events WHERE origin = ? AND sequence = ?")
    for id in ids { try statement.execute(arguments: [Data(id.origin.bytes), Int64(id.sequence)]) }
  }

  /// The sequences of each origin whose refusal is settled: the version
  /// vector counts them as held.
  func settledSequences() throws -> [PeerID: Set<UInt64>] {
    guard try !isEmpty() else { return [:] }
    var sequences: [PeerID: Set<UInt64>] = [:]
    for row in try Row.fetchAll(db, sql: "SELECT origin, sequence FROM chronicle_refused_events WHERE settled = 1") {
      guard let origin = PeerID(bytes: row[0] as Data) else { continue }
      sequences[origin, default: []].insert(UInt64(row[1] as Int64))
    }
    return sequences
  }

  /// The events whose refusal is settled, with the refused copy's
  /// checksum: the same copy coming again is held already (nothing new to
  /// refuse or report); another copy is checked as any event is.
  func settledChecksums() throws -> [EventID: UInt32] {
    guard try !isEmpty() else { return [:] }
    var checksums: [EventID: UInt32] = [:]
    for row in try Row.fetchAll(db, sql: "SELECT origin, sequence, checksum FROM chronicle_refused_events WHERE settled = 1 AND checksum IS NOT NULL") {
      guard let origin = PeerID(bytes: row[0] as Data) else { continue }
      checksums[EventID(origin: origin, sequence: UInt64(row[1] as Int64))] = UInt32(truncatingIfNeeded: row[2] as Int64)
    }
    return checksums
  }

  /// The signed forms that settled refusals kept, by origin and sequence.
  func keptEvents() throws -> [[UInt8]] {
    guard try !isEmpty() else { return [] }
    return try Data.fetchAll(db, sql: "SELECT event FROM chronicle_refused_events WHERE event IS NOT NULL ORDER BY origin, sequence")
      .map { Array($0) }
  }

  /// Every refusal recorded, most recent first.
  func all() throws -> [RefusedEvent] {
    guard try !isEmpty() else { return [] }
    return try Row.fetchAll(
      db,
      sql: """
        SELECT origin, sequence, reason, source, settled, bytes, times, first_refused, last_refused
        FROM chronicle_refused_events ORDER BY last_refused DESC, origin, sequence
        """
    ).compactMap { row in
      guard let origin = PeerID(bytes: row[0] as Data) else { return nil }
      return RefusedEvent(
        origin: origin, sequence: UInt64(row[1] as Int64), reason: row[2], source: row[3], settled: row[4], bytes: row[5],
        times: row[6], firstRefused: Self.date(row[7]), lastRefused: Self.date(row[8]))
    }
  }

  private static func date(_ millis: Int64) -> Date { Date(timeIntervalSince1970: Double(millis) / 1000) }
}
