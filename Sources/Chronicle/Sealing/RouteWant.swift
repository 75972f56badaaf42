import Foundation
import GRDB

/// A range of an origin's events this database holds without their routes
/// and would forward to a relay: asked of peers (with a TCP vector) and
/// relays (with a pull), which answer with the routes they hold or, for
/// their own events, make.
package struct RouteWant: Sendable, Equatable {
  package var origin: PeerID
  package var from: UInt64
  package var through: UInt64

  package init(origin: PeerID, from: UInt64, through: UInt64) {
    self.origin = origin
    self.from = from
    self.through = through
  }

  /// Bytes of ``encoded``: origin, first and last sequence (8 bytes each, big-endian).
  package static let encodedSize = 16 + 8 + 8
  /// The most wants a message carries.
  package static let maxPerMessage = 256
  /// The most routes answered for one message of wants.
  package static let maxAnswered = 4_096

  package var encoded: [UInt8] {
    var bytes = origin.bytes
    withUnsafeBytes(of: from.bigEndian) { bytes += $0 }
    withUnsafeBytes(of: through.bigEndian) { bytes += $0 }
    return bytes
  }

  package init?(encoded bytes: some Collection<UInt8>) {
    let bytes = Array(bytes)
    guard bytes.count == Self.encodedSize, let origin = PeerID(bytes: bytes[0..<16]) else { return nil }
    let from = bytes[16..<24].reduce(0) { $0 << 8 | UInt64($1) }, through = bytes[24..<32].reduce(0) { $0 << 8 | UInt64($1) }
    guard from >= 1, from <= through, through <= UInt64(Int64.max) else { return nil }
    self.init(origin: origin, from: from, through: through)
  }
}

extension ChronicleDatabase {
  /// Records that forwarding `origin`'s events stopped at `from` for want of
  /// a route, and this database holds them through `through`.
  package func wantRoutes(_ want: RouteWant) throws {
    try writer.write { db in
      try db.execute(
        sql: """
          INSERT INTO chronicle_route_wants (origin, from_sequence, through_sequence) VALUES (?, ?, ?)
          ON CONFLICT (origin) DO UPDATE SET
            from_sequence = min(from_sequence, excluded.from_sequence), through_sequence = max(through_sequence, excluded.through_sequence)
          WHERE excluded.from_sequence < from_sequence OR excluded.through_sequence > through_sequence
          """,
        arguments: [Data(want.origin.bytes), Int64(want.from), Int64(want.through)])
    }
  }

  /// The ranges of events to ask routes for: those wanted, each starting at
  /// its first event still without a route (a want fully answered is
  /// forgotten). At most ``RouteWant/maxPerMessage``.
  package func routeWants() throws -> [RouteWant] {
    try writer.write { db in
      guard try db.tableExists("chronicle_route_wants") else { return [] }
      let rows = try Row.fetchAll(db, sql: "SELECT origin, from_sequence, through_sequence FROM chronicle_route_wants")
      let firstUnrouted = try db.cachedStatement(sql: """
        SELECT min(e.sequence) FROM main.chronicle_events e
        WHERE e.origin = ?1 AND e.sequence BETWEEN ?2 AND ?3
          AND NOT EXISTS (SELECT 1 FROM chronicle_event_routes r WHERE r.origin = e.origin AND r.sequence = e.sequence)
          AND NOT EXISTS (SELECT 1 FROM chronicle_membership_events m WHERE m.origin = e.origin AND m.sequence = e.sequence)
        """)
      var wants: [RouteWant] = []
      for row in rows {
        guard let origin = PeerID(bytes: row[0] as Data) else { continue }
        let from: Int64 = row[1], through: Int64 = row[2]
        guard let first = try Int64.fetchOne(firstUnrouted, arguments: [row[0] as Data, from, through]) else {
          try db.execute(sql: "DELETE FROM chronicle_route_wants WHERE origin = ?", arguments: [row[0] as Data])
          continue
        }
        if first != from {
          try db.execute(sql: "UPDATE chronicle_route_wants SET from_sequence = ? WHERE origin = ?", arguments: [first, row[0] as Data])
        }
        wants.append(RouteWant(origin: origin, from: UInt64(first), through: UInt64(through)))
        if wants.count == RouteWant.maxPerMessage { break }
      }
      return wants
    }
  }

  /// The routes this database holds for `wants`, and for its own events
  /// among them, new ones (``eventRoutes(for:)``): at most
  /// ``RouteWant/maxAnswered``.
  package func eventRoutes(answering wants: [RouteWant]) throws -> [StoredEventRoute] {
    var ids: [EventID] = []
    try read { db in
      for want in wants.prefix(RouteWant.maxPerMessage) where want.from <= want.through && want.through <= UInt64(Int64.max) {
        let budget = RouteWant.maxAnswered - ids.count
        guard budget > 0 else { break }
        try EventLog.scanSequences(db, originBytes: Data(want.origin.bytes), from: Int64(want.from)) { sequence in
          guard sequence <= Int64(want.through), ids.count < RouteWant.maxAnswered else { return false }
          ids.append(EventID(origin: want.origin, sequence: UInt64(sequence)))
          return true
        }
      }
    }
    return try eventRoutes(for: ids)
  }
}
