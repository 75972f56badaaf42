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
    let refusals = try withinKeptLimit(refusals)
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

  /// The ids of the events settled refusals kept, by origin and sequence.
  func keptIDs() throws -> [EventID] {
    guard try !isEmpty() else { return [] }
    return try Row.fetchAll(db, sql: "SELECT origin, sequence FROM chronicle_refused_events WHERE event IS NOT NULL ORDER BY origin, sequence")
      .compactMap { row in PeerID(bytes: row[0] as Data).map { EventID(origin: $0, sequence: UInt64(row[1] as Int64)) } }
  }

  /// The signed form a settled refusal kept of `id`.
  func keptEvent(_ id: EventID) throws -> [UInt8]? {
    try Data.fetchOne(
      db.cachedStatement(sql: "SELECT event FROM chronicle_refused_events WHERE origin = ? AND sequence = ? AND event IS NOT NULL"),
      arguments: [Data(id.origin.bytes), Int64(id.sequence)]
    ).map { Array($0) }
  }

  /// The devices whose refused events are kept.
  func keptOrigins() throws -> [PeerID] {
    guard try !isEmpty() else { return [] }
    return try Data.fetchAll(db, sql: "SELECT DISTINCT origin FROM chronicle_refused_events WHERE event IS NOT NULL ORDER BY origin")
      .compactMap { PeerID(bytes: $0) }
  }

  /// The sequences of `origin`'s kept events, ascending.
  func keptSequences(of origin: PeerID) throws -> [UInt64] {
    try Int64.fetchAll(
      db, sql: "SELECT sequence FROM chronicle_refused_events WHERE origin = ? AND event IS NOT NULL ORDER BY sequence",
      arguments: [Data(origin.bytes)]
    ).map { UInt64($0) }
  }

  /// The kept events of `origin` up to `sequence`, by sequence.
  func keptEvents(of origin: PeerID, through sequence: UInt64) throws -> [UInt64: [UInt8]] {
    guard try !isEmpty() else { return [:] }
    var events: [UInt64: [UInt8]] = [:]
    let rows = try Row.fetchCursor(
      db, sql: "SELECT sequence, event FROM chronicle_refused_events WHERE origin = ? AND sequence <= ? AND event IS NOT NULL",
      arguments: [Data(origin.bytes), Int64(clamping: sequence)])
    while let row = try rows.next() { events[UInt64(row[0] as Int64)] = Array(row[1] as Data) }
    return events
  }

  /// The kept events that `include` picks, read one at a time.
  func keptEvents(where include: (EventID) -> Bool) throws -> [(id: EventID, bytes: [UInt8])] {
    try keptIDs().filter(include).compactMap { id in try keptEvent(id).map { (id, $0) } }
  }

  /// The kept events to pass on to a peer whose vector is `vector`: those
  /// it lacks that this database counts as held (within its own vector,
  /// so that a peer settling them moves its vector on, and a kept event
  /// past a gap is not sent at every sync).
  static func passedOn(beyond vector: VersionVector, _ db: Database) throws -> [(id: EventID, bytes: [UInt8])] {
    let refused = RefusedEvents(db: db)
    guard try !refused.isEmpty() else { return [] }
    let own = try VersionVector.read(db)
    return try refused.keptEvents { id in
      !vector.contains(origin: id.origin, sequence: id.sequence) && own.contains(origin: id.origin, sequence: id.sequence)
    }
  }

  /// Makes a settled refusal open again (its kept form dropped): the event
  /// may now be admitted but could not be taken here yet, so peers send it
  /// again. The version vector's checkpoint is lowered below it.
  func reopen(_ id: EventID) throws {
    try db.execute(
      sql: "UPDATE chronicle_refused_events SET settled = 0, event = NULL WHERE origin = ? AND sequence = ?",
      arguments: [Data(id.origin.bytes), Int64(id.sequence)])
    try VersionVector.lowerCheckpoint(db, origin: id.origin, below: id.sequence)
  }

  /// Kept forms at most per device, in count and bytes: beyond, a settled
  /// refusal is recorded open (nothing kept, nothing counted as held), so a
  /// member flooding refused writes costs re-sending, not storage.
  static let keptLimit = (events: 10_000, bytes: 64 << 20)

  /// `refusals` with the settled ones over ``keptLimit`` made open.
  private func withinKeptLimit(_ refusals: [EventRefusal]) throws -> [EventRefusal] {
    var totals: [PeerID: (events: Int, bytes: Int)] = [:]
    return try refusals.map { refusal in
      guard refusal.settled, let kept = refusal.kept else { return refusal }
      let origin = refusal.id.origin
      if totals[origin] == nil {
        let row = try Row.fetchOne(
          db, sql: "SELECT count(*), coalesce(sum(length(event)), 0) FROM chronicle_refused_events WHERE origin = ? AND event IS NOT NULL",
          arguments: [Data(origin.bytes)])
        totals[origin] = (row?[0] ?? 0, row?[1] ?? 0)
      }
      let total = totals[origin]!
      guard total.events < Self.keptLimit.events, total.bytes + kept.count <= Self.keptLimit.bytes else {
        var open = refusal
        open.settled = false
        open.kept = nil
        open.reason += " (kept open: more refused events of this device than this database keeps)"
        return open
      }
      totals[origin] = (total.events + 1, total.bytes + kept.count)
      return refusal
    }
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
