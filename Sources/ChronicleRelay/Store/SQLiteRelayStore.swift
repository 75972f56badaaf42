import Chronicle
import ChronicleNetwork
import Foundation
import Synchronization

/// A relay's store in one SQLite file (WAL mode): the default, with nothing
/// to set up. One relay process uses a file at a time; to run several relay
/// processes, share a PostgreSQL store instead.
package final class SQLiteRelayStore: RelayStore {
  private let pool: DatabasePool
  private let listeners = Mutex<[@Sendable (StoreChange) -> Void]>([])

  /// Opens (creating when needed) the store at `path`.
  package init(path: String) throws {
    var configuration = Configuration()
    configuration.busyMode = .timeout(10)
    pool = try DatabasePool(path: path, configuration: configuration)
    var migrator = DatabaseMigrator()
    migrator.registerMigration("001") { db in try db.execute(sql: RelaySchema.sqlite001) }
    migrator.registerMigration("002") { db in try db.execute(sql: RelaySchema.sqlite002) }
    migrator.registerMigration("003") { db in try db.execute(sql: RelaySchema.sqlite003) }
    try migrator.migrate(pool)
  }

  package func addCreationToken(hash: [UInt8], groups: Int) async throws {
    try await pool.write { db in
      try db.execute(
        sql: "INSERT INTO relay_creation_tokens (token_hash, groups_left, created_at) VALUES (?, ?, datetime('now'))",
        arguments: [Data(hash), groups])
    }
  }

  package func spendCreationToken(hash: [UInt8]) async throws -> Bool {
    try await pool.write { db in
      try db.execute(
        sql: "UPDATE relay_creation_tokens SET groups_left = groups_left - 1 WHERE token_hash = ? AND groups_left > 0", arguments: [Data(hash)])
      return db.changesCount == 1
    }
  }

  package func membershipEvents(of group: UUID) async throws -> [[UInt8]] {
    try await pool.read { db in
      try Data.fetchAll(db, sql: "SELECT event FROM relay_memberships WHERE group_id = ?", arguments: [Self.key(group)]).map { Array($0) }
    }
  }

  package func addMembershipEvents(_ events: [MembershipEvent], to group: UUID) async throws {
    guard !events.isEmpty else { return }
    let added = try await pool.write { db -> Int in
      let insert = try db.cachedStatement(
        sql: "INSERT INTO relay_memberships (group_id, origin, sequence, event) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")
      var added = 0
      for event in events {
        try insert.execute(arguments: [Self.key(group), Data(event.origin.bytes), Int64(event.sequence), Data(event.bytes)])
        added += db.changesCount
      }
      return added
    }
    if added > 0 {
      for listener in listeners.withLock({ $0 }) { listener(.membership(group)) }
    }
  }

  package func vector(of group: UUID) async throws -> VersionVector {
    try await pool.read { db in try Self.vector(db, group) }
  }

  package func append(_ events: [SealedEvent], origin: PeerID, to group: UUID, quota: GroupQuota) async throws -> AppendOutcome {
    let outcome = try await pool.write { db -> AppendOutcome in
      let groupKey = Self.key(group), originKey = Data(origin.bytes)
      let have = UInt64(
        try Int64.fetchOne(
          db, sql: "SELECT last_sequence FROM relay_origins WHERE group_id = ? AND origin = ?", arguments: [groupKey, originKey]) ?? 0)
      let row = try Row.fetchOne(db, sql: "SELECT events, bytes FROM relay_groups WHERE group_id = ?", arguments: [groupKey])
      let used = (events: row?["events"] ?? 0, bytes: row?["bytes"] ?? 0) as (events: Int, bytes: Int)
      let plan = try AppendPlan(events, origin: origin, have: have, used: used, quota: quota)
      let (fresh, adding) = (plan.fresh, plan.adding)
      guard let last = fresh.last else { return AppendOutcome(upTo: have, new: 0, newBytes: 0) }
      let insert = try db.cachedStatement(sql: "INSERT INTO relay_events (group_id, origin, sequence, sealed, route) VALUES (?, ?, ?, ?, ?)")
      for event in fresh {
        try insert.execute(arguments: [groupKey, originKey, Int64(event.sequence), Data(event.sealed), event.route.isEmpty ? nil : Data(event.route)])
      }
      try db.execute(
        sql: """
          INSERT INTO relay_origins (group_id, origin, last_sequence) VALUES (?, ?, ?)
          ON CONFLICT (group_id, origin) DO UPDATE SET last_sequence = excluded.last_sequence
          """,
        arguments: [groupKey, originKey, Int64(last.sequence)])
      try db.execute(
        sql: """
          INSERT INTO relay_groups (group_id, events, bytes) VALUES (?, ?, ?)
          ON CONFLICT (group_id) DO UPDATE SET events = events + excluded.events, bytes = bytes + excluded.bytes
          """,
        arguments: [groupKey, fresh.count, adding])
      return AppendOutcome(upTo: last.sequence, new: fresh.count, newBytes: adding)
    }
    if outcome.new > 0 {
      for listener in listeners.withLock({ $0 }) { listener(.appended(group)) }
    }
    return outcome
  }

  package func lastPosition(of group: UUID) async throws -> Int64 {
    try await pool.read { db in
      try Int64.fetchOne(db, sql: "SELECT MAX(position) FROM relay_events WHERE group_id = ?", arguments: [Self.key(group)]) ?? 0
    }
  }

  package func position(before vector: VersionVector, in group: UUID) async throws -> Int64? {
    try await pool.read { db in
      let groupKey = Self.key(group)
      let lookup = try db.cachedStatement(sql: "SELECT position FROM relay_events WHERE group_id = ? AND origin = ? AND sequence = ?")
      var first: Int64?
      for (origin, last) in try Self.vector(db, group).sequences where last > vector[origin] {
        guard let position = try Int64.fetchOne(lookup, arguments: [groupKey, Data(origin.bytes), Int64(vector[origin] + 1)]) else { continue }
        first = min(first ?? position, position)
      }
      return first.map { $0 - 1 }
    }
  }

  package func events(of group: UUID, after position: Int64, through last: Int64?, limit: Int, maxBytes: Int) async throws -> [PositionedEvent] {
    try await pool.read { db in
      var page: [PositionedEvent] = [], size = 0
      let rows = try Row.fetchCursor(
        db,
        sql: """
          SELECT position, origin, sequence, sealed, route FROM relay_events
          WHERE group_id = ? AND position > ? AND position <= ? ORDER BY position LIMIT ?
          """,
        arguments: [Self.key(group), position, last ?? .max, max(1, limit)])
      while let row = try rows.next() {
        guard let origin = PeerID(bytes: row[1] as Data) else { continue }
        let sealed: Data = row[3]
        let route = (row[4] as Data?).map { Array($0) } ?? []
        page.append(PositionedEvent(
          position: row[0], event: SealedEvent(origin: origin, sequence: UInt64(row[2] as Int64), sealed: Array(sealed), route: route)))
        size += sealed.count
        if size >= maxBytes { break }
      }
      return page
    }
  }

  package func routes(of origin: PeerID, from: UInt64, through: UInt64, in group: UUID, limit: Int) async throws -> [StoredEventRoute] {
    try await pool.read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT sequence, substr(sealed, 2, 32), route FROM relay_events
          WHERE group_id = ? AND origin = ? AND sequence BETWEEN ? AND ? AND route IS NOT NULL AND substr(sealed, 1, 1) = x'01'
          ORDER BY sequence LIMIT ?
          """,
        arguments: [Self.key(group), Data(origin.bytes), Int64(clamping: from), Int64(clamping: through), limit]
      ).compactMap { row in
        MembershipHash(bytes: row[1] as Data).map {
          StoredEventRoute(origin: origin, sequence: UInt64(row[0] as Int64), epoch: $0, signature: Array(row[2] as Data))
        }
      }
    }
  }

  package func usage(of group: UUID) async throws -> (events: Int, bytes: Int) {
    try await pool.read { db in
      let row = try Row.fetchOne(db, sql: "SELECT events, bytes FROM relay_groups WHERE group_id = ?", arguments: [Self.key(group)])
      return (row?[0] ?? 0, row?[1] ?? 0)
    }
  }

  package func observeChanges(_ onChange: @escaping @Sendable (StoreChange) -> Void) async throws {
    listeners.withLock { $0.append(onChange) }
  }

  package func close() async throws {
    listeners.withLock { $0 = [] }
    try pool.close()
  }

  private static func key(_ group: UUID) -> Data { Data(PeerID(group).bytes) }

  private static func vector(_ db: Database, _ group: UUID) throws -> VersionVector {
    var sequences: [PeerID: UInt64] = [:]
    for row in try Row.fetchAll(db, sql: "SELECT origin, last_sequence FROM relay_origins WHERE group_id = ?", arguments: [key(group)]) {
      if let origin = PeerID(bytes: row[0] as Data) { sequences[origin] = UInt64(row[1] as Int64) }
    }
    return VersionVector(sequences)
  }
}
