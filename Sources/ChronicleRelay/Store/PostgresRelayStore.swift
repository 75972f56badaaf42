import Chronicle
import ChronicleNetwork
import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// A relay's store in PostgreSQL, shared by any number of relay processes:
/// they are interchangeable behind a load balancer. An append in one process
/// reaches devices connected to the others through `LISTEN`/`NOTIFY`.
package final class PostgresRelayStore: RelayStore {
  private let client: PostgresClient
  private let running: Task<Void, Never>
  private let logger: Logger
  private let listening = Mutex<Task<Void, Never>?>(nil)
  private static let channel = "chronicle_relay_appends"

  /// Connects to the server at `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`,
  /// or `postgres://USER@/DATABASE?host=/socket/directory` for a Unix socket)
  /// and creates the relay's tables when missing.
  package init(url: String, logger: Logger) async throws {
    let address = try PostgresAddress(url)
    // One connection first: what is wrong (unreachable, refused, TLS) is
    // said at once, where the pool would retry for a minute and then say
    // only that it gave up.
    do {
      let probe = try await PostgresConnection.connect(configuration: try address.connectionConfiguration(), id: 0, logger: logger)
      try await probe.close()
    } catch {
      throw RelayStoreError.unusable(server: address.serverName, reason: Self.explain(error))
    }
    client = PostgresClient(configuration: address.clientConfiguration, backgroundLogger: logger)
    running = Task { [client] in await client.run() }
    self.logger = logger
    do {
      try await migrate()
    } catch {
      running.cancel()
      throw RelayStoreError.unusable(server: address.serverName, reason: Self.explain(error))
    }
  }

  /// What went wrong, without what PostgresNIO leaves out of its errors' descriptions on purpose.
  static func explain(_ error: any Error) -> String {
    guard let error = error as? PSQLError else { return "\(error)" }
    if error.code == .sslUnsupported {
      return "it does not speak TLS, and the address asks for it (sslmode): enable ssl on the server, or lower sslmode"
    }
    if let server = error.serverInfo?[.message] { return server }
    if let underlying = error.underlying {
      let text = "\(underlying)"
      let tls = text.contains("SSL") || text.contains("certificate") || text.contains("handshake")
      return tls ? "the TLS handshake failed (\(text)): check sslrootcert and that the server's certificate names the host" : text
    }
    return "\(error.code)"
  }

  private func migrate() async throws {
    try await client.withTransaction(logger: logger) { connection in
      // One relay creates the tables; others starting at the same time wait for it.
      try await connection.query("SELECT pg_advisory_xact_lock(7440)", logger: logger)
      try await connection.query("CREATE TABLE IF NOT EXISTS relay_schema (version INTEGER PRIMARY KEY)", logger: logger)
      let rows = try await connection.query("SELECT coalesce(max(version), 0) FROM relay_schema", logger: logger)
      var version = 0
      for try await (current) in rows.decode(Int.self) { version = current }
      for (number, schema) in [(1, RelaySchema.postgres001), (2, RelaySchema.postgres002), (3, RelaySchema.postgres003)] where number > version {
        for statement in schema.components(separatedBy: ";\n") {
          let sql = statement.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("--") }.joined(separator: "\n")
          guard !sql.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { continue }
          try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        }
        try await connection.query("INSERT INTO relay_schema (version) VALUES (\(number))", logger: logger)
      }
    }
  }

  package func addCreationToken(hash: [UInt8], groups: Int) async throws {
    try await client.query(
      "INSERT INTO relay_creation_tokens (token_hash, groups_left) VALUES (\(ByteBuffer(bytes: hash)), \(Int32(clamping: groups)))", logger: logger)
  }

  package func spendCreationToken(hash: [UInt8]) async throws -> Bool {
    let rows = try await client.query(
      "UPDATE relay_creation_tokens SET groups_left = groups_left - 1 WHERE token_hash = \(ByteBuffer(bytes: hash)) AND groups_left > 0 RETURNING 1",
      logger: logger)
    var spent = false
    for try await _ in rows.decode(Int32.self) { spent = true }
    return spent
  }

  package func membershipEvents(of group: UUID) async throws -> [[UInt8]] {
    let rows = try await client.query("SELECT event FROM relay_memberships WHERE group_id = \(group)", logger: logger)
    var events: [[UInt8]] = []
    for try await (event) in rows.decode(ByteBuffer.self) { events.append(Array(event.readableBytesView)) }
    return events
  }

  package func addMembershipEvents(_ events: [MembershipEvent], to group: UUID) async throws {
    guard !events.isEmpty else { return }
    let origins = events.map(\.origin.uuid), sequences = events.map { Int64($0.sequence) }
    let bodies = events.map { ByteBuffer(bytes: $0.bytes) }
    let logger = self.logger
    try await client.withTransaction(logger: logger) { connection in
      var added = 0
      for try await (count) in try await connection.query(
        """
        WITH added AS (
          INSERT INTO relay_memberships (group_id, origin, sequence, event)
          SELECT \(group), * FROM unnest(\(origins)::uuid[], \(sequences)::bigint[], \(bodies)::bytea[])
          ON CONFLICT DO NOTHING RETURNING 1
        ) SELECT count(*) FROM added
        """, logger: logger
      ).decode(Int64.self) {
        added = Int(count)
      }
      // Every relay process re-checks the devices of the group it serves.
      if added > 0 { try await connection.query("SELECT pg_notify(\(Self.channel), \("m:" + group.uuidString))", logger: logger) }
    }
  }

  package func vector(of group: UUID) async throws -> VersionVector {
    let rows = try await client.query("SELECT origin, last_sequence FROM relay_origins WHERE group_id = \(group)", logger: logger)
    var sequences: [PeerID: UInt64] = [:]
    for try await (origin, last) in rows.decode((UUID, Int64).self) { sequences[PeerID(origin)] = UInt64(last) }
    return VersionVector(sequences)
  }

  package func append(_ events: [SealedEvent], origin: PeerID, to group: UUID, quota: GroupQuota) async throws -> AppendOutcome {
    let logger = self.logger
    return try await client.withTransaction(logger: logger) { connection -> AppendOutcome in
      try await connection.query("INSERT INTO relay_groups (group_id) VALUES (\(group)) ON CONFLICT DO NOTHING", logger: logger)
      // The group's row lock orders its appends: positions commit in order.
      var used: (events: Int, bytes: Int) = (0, 0), lastPosition: Int64 = 0
      for try await (events, bytes, position) in try await connection.query(
        "SELECT events, bytes, last_position FROM relay_groups WHERE group_id = \(group) FOR UPDATE", logger: logger
      ).decode((Int64, Int64, Int64).self) {
        (used, lastPosition) = ((Int(events), Int(bytes)), position)
      }
      var have: UInt64 = 0
      for try await (last) in try await connection.query(
        "SELECT last_sequence FROM relay_origins WHERE group_id = \(group) AND origin = \(origin.uuid)", logger: logger
      ).decode(Int64.self) {
        have = UInt64(last)
      }
      let plan = try AppendPlan(events, origin: origin, have: have, used: used, quota: quota)
      let (fresh, adding) = (plan.fresh, plan.adding)
      guard let last = fresh.last else { return AppendOutcome(upTo: have, new: 0, newBytes: 0) }
      let positions = (1...Int64(fresh.count)).map { lastPosition + $0 }
      let sequences = fresh.map { Int64($0.sequence) }
      let bodies = fresh.map { ByteBuffer(bytes: $0.sealed) }
      let routes = fresh.map { ByteBuffer(bytes: $0.route) }
      try await connection.query(
        """
        INSERT INTO relay_events (group_id, position, origin, sequence, sealed, route)
        SELECT \(group), p, \(origin.uuid), s, b, nullif(r, ''::bytea)
        FROM unnest(\(positions)::bigint[], \(sequences)::bigint[], \(bodies)::bytea[], \(routes)::bytea[]) AS t(p, s, b, r)
        """, logger: logger)
      try await connection.query(
        """
        UPDATE relay_groups SET events = events + \(Int64(fresh.count)), bytes = bytes + \(Int64(adding)),
          last_position = \(positions.last!) WHERE group_id = \(group)
        """, logger: logger)
      try await connection.query(
        """
        INSERT INTO relay_origins (group_id, origin, last_sequence) VALUES (\(group), \(origin.uuid), \(Int64(last.sequence)))
        ON CONFLICT (group_id, origin) DO UPDATE SET last_sequence = excluded.last_sequence
        """, logger: logger)
      // Delivered at commit, to every relay process listening (this one too).
      try await connection.query("SELECT pg_notify(\(Self.channel), \(group.uuidString))", logger: logger)
      return AppendOutcome(upTo: last.sequence, new: fresh.count, newBytes: adding)
    }
  }

  package func lastPosition(of group: UUID) async throws -> Int64 {
    var last: Int64 = 0
    for try await (position) in try await client.query(
      "SELECT last_position FROM relay_groups WHERE group_id = \(group)", logger: logger
    ).decode(Int64.self) {
      last = position
    }
    return last
  }

  package func position(before vector: VersionVector, in group: UUID) async throws -> Int64? {
    let held = try await self.vector(of: group)
    let lacking = held.sequences.filter { $0.value > vector[$0.key] }
    guard !lacking.isEmpty else { return nil }
    let origins = lacking.keys.map(\.uuid), firsts = lacking.keys.map { Int64(vector[$0] + 1) }
    var first: Int64?
    for try await (position) in try await client.query(
      """
      SELECT min(e.position) FROM unnest(\(origins)::uuid[], \(firsts)::bigint[]) AS w(origin, sequence)
      JOIN relay_events e ON e.group_id = \(group) AND e.origin = w.origin AND e.sequence = w.sequence
      """, logger: logger
    ).decode(Int64?.self) {
      first = position
    }
    return first.map { $0 - 1 }
  }

  package func routes(of origin: PeerID, from: UInt64, through: UInt64, in group: UUID, limit: Int) async throws -> [StoredEventRoute] {
    let rows = try await client.query(
      """
      SELECT sequence, substring(sealed from 2 for 32), route FROM relay_events
      WHERE group_id = \(group) AND origin = \(origin.uuid) AND sequence BETWEEN \(Int64(clamping: from)) AND \(Int64(clamping: through))
        AND route IS NOT NULL AND get_byte(sealed, 0) = 1
      ORDER BY sequence LIMIT \(Int64(limit))
      """, logger: logger)
    var routes: [StoredEventRoute] = []
    for try await (sequence, epoch, route) in rows.decode((Int64, ByteBuffer, ByteBuffer).self) {
      guard let epoch = MembershipHash(bytes: Array(epoch.readableBytesView)) else { continue }
      routes.append(StoredEventRoute(origin: origin, sequence: UInt64(sequence), epoch: epoch, signature: Array(route.readableBytesView)))
    }
    return routes
  }

  package func events(of group: UUID, after position: Int64, through last: Int64?, limit: Int, maxBytes: Int) async throws -> [PositionedEvent] {
    let rows = try await client.query(
      """
      SELECT position, origin, sequence, sealed, route FROM relay_events
      WHERE group_id = \(group) AND position > \(position) AND position <= \(last ?? .max)
      ORDER BY position LIMIT \(Int64(max(1, limit)))
      """, logger: logger)
    var page: [PositionedEvent] = [], size = 0
    for try await (position, origin, sequence, sealed, route) in rows.decode((Int64, UUID, Int64, ByteBuffer, ByteBuffer?).self) {
      guard size < maxBytes else { continue }  // the rest of the result is drained, not used
      page.append(PositionedEvent(
        position: position,
        event: SealedEvent(
          origin: PeerID(origin), sequence: UInt64(sequence), sealed: Array(sealed.readableBytesView),
          route: route.map { Array($0.readableBytesView) } ?? [])))
      size += sealed.readableBytes
    }
    return page
  }

  package func usage(of group: UUID) async throws -> (events: Int, bytes: Int) {
    var usage = (events: 0, bytes: 0)
    for try await (events, bytes) in try await client.query(
      "SELECT events, bytes FROM relay_groups WHERE group_id = \(group)", logger: logger
    ).decode((Int64, Int64).self) {
      usage = (Int(events), Int(bytes))
    }
    return usage
  }

  /// Listens on one connection for the appends and member-list changes of
  /// every relay process; after an interruption (PostgreSQL restarting),
  /// listens again and reports that anything may have changed meanwhile.
  package func observeChanges(_ onChange: @escaping @Sendable (StoreChange) -> Void) async throws {
    let client = self.client, logger = self.logger
    let task = Task {
      var delay: Duration = .milliseconds(100)
      var first = true
      while !Task.isCancelled {
        do {
          try await client.withConnection { connection in
            try await connection.listen(on: Self.channel) { notifications in
              if !first { onChange(.unknown) }
              first = false
              delay = .milliseconds(100)
              for try await notification in notifications {
                let payload = notification.payload
                if payload.hasPrefix("m:") {
                  onChange(UUID(uuidString: String(payload.dropFirst(2))).map(StoreChange.membership) ?? .unknown)
                } else {
                  onChange(UUID(uuidString: payload).map(StoreChange.appended) ?? .unknown)
                }
              }
            }
          }
        } catch {
          guard !Task.isCancelled else { return }
          logger.warning("listening for appends failed; retrying", metadata: ["error": "\(String(reflecting: error))"])
        }
        first = false
        try? await Task.sleep(for: delay)
        delay = min(delay * 2, .seconds(5))
      }
    }
    listening.withLock { $0 = task }
  }

  package func close() async throws {
    listening.withLock { $0?.cancel() }
    running.cancel()
  }
}

/// A store that cannot be opened as configured.
package enum RelayStoreError: Error, CustomStringConvertible {
  case invalidURL(String, reason: String)
  /// The server could not be used: unreachable, refusing the relay, or its
  /// TLS certificate not trusted.
  case unusable(server: String, reason: String)

  package var description: String {
    switch self {
    case .invalidURL(let url, let reason): "\(url) is not a PostgreSQL address: \(reason)"
    case .unusable(let server, let reason): "the relay cannot use PostgreSQL at \(server): \(reason)"
    }
  }
}
