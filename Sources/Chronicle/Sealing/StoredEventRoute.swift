import Foundation
import GRDB

/// An origin's signature of one of its events as sealed for relays, with
/// the epoch of the group key it was sealed with: what lets any member
/// forward the event to a relay (`Schemas/SYNC-PROTOCOL.md`, "Relay").
package struct StoredEventRoute: Sendable, Equatable {
  package var origin: PeerID
  package var sequence: UInt64
  package var epoch: MembershipHash
  package var signature: [UInt8]

  package init(origin: PeerID, sequence: UInt64, epoch: MembershipHash, signature: [UInt8]) {
    self.origin = origin
    self.sequence = sequence
    self.epoch = epoch
    self.signature = signature
  }

  /// Bytes of ``encoded``: origin, sequence (8 bytes, big-endian), epoch, signature.
  package static let encodedSize = 16 + 8 + 32 + 64

  /// How a route travels (TCP `routes` messages, bundles).
  package var encoded: [UInt8] {
    var bytes = origin.bytes
    bytes.reserveCapacity(Self.encodedSize)
    withUnsafeBytes(of: sequence.bigEndian) { bytes += $0 }
    return bytes + epoch.bytes + signature
  }

  /// Reads ``encoded``; nil for bytes of another size or no valid origin.
  package init?(encoded bytes: some Collection<UInt8>) {
    let bytes = Array(bytes)
    guard bytes.count == Self.encodedSize, let origin = PeerID(bytes: bytes[0..<16]),
          let epoch = MembershipHash(bytes: bytes[24..<56])
    else { return nil }
    self.init(
      origin: origin, sequence: bytes[16..<24].reduce(0) { $0 << 8 | UInt64($1) }, epoch: epoch, signature: Array(bytes[56...]))
  }
}

/// An event of the log another device may be handed to forward, with its
/// route when this database holds one.
package struct ForwardableEvent: Sendable {
  package var sequence: UInt64
  package var bytes: [UInt8]
  package var route: StoredEventRoute?
}

extension ChronicleDatabase {
  /// Keeps `routes` of events the log holds (checked by whoever uses them:
  /// a route that does not verify is dropped with
  /// ``dropEventRoutes(origin:from:)``); one already held for an event is
  /// kept, and one of an event the log lacks is not (a peer cannot fill
  /// the table with routes of events that do not exist). Routes of this
  /// device's own events are made here only (`own`: they replace any held):
  /// none received is kept.
  package func saveEventRoutes(_ routes: [StoredEventRoute], own: Bool = false) throws {
    let me = peerID
    let routes = routes.filter { ($0.origin == me) == own }
    guard !routes.isEmpty else { return }
    try writer.write { db in
      let insert = try db.cachedStatement(sql: """
        INSERT INTO chronicle_event_routes (origin, sequence, epoch, signature)
          SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM main.chronicle_events WHERE origin = ?1 AND sequence = ?2)
        ON CONFLICT (origin, sequence) DO \(own ? "UPDATE SET epoch = excluded.epoch, signature = excluded.signature" : "NOTHING")
        """)
      for route in routes where route.signature.count == 64 && route.sequence <= UInt64(Int64.max) {
        try insert.execute(arguments: [Data(route.origin.bytes), Int64(route.sequence), Data(route.epoch.bytes), Data(route.signature)])
      }
    }
  }

  /// Forgets the routes held for `origin`'s events from `sequence` on: the
  /// one there did not verify, and those after it likely came the same way.
  package func dropEventRoutes(origin: PeerID, from sequence: UInt64) throws {
    try writer.write { db in
      try db.execute(
        sql: "DELETE FROM chronicle_event_routes WHERE origin = ? AND sequence >= ?",
        arguments: [Data(origin.bytes), Int64(clamping: sequence)])
    }
  }

  /// `origin`'s events the log holds after `sequence`, in order and without
  /// a gap (the scan stops at the first sequence the log lacks), each with
  /// its route when one is held: at most `maxEvents`, stopping at the first
  /// that reaches `maxBytes`.
  package func forwardableEvents(of origin: PeerID, after sequence: UInt64, maxEvents: Int, maxBytes: Int) throws -> [ForwardableEvent] {
    guard sequence < UInt64(Int64.max) else { return [] }
    return try read { db in
      var page: [ForwardableEvent] = [], size = 0
      let routes = try db.cachedStatement(sql: "SELECT epoch, signature FROM chronicle_event_routes WHERE origin = ? AND sequence = ?")
      var expected = sequence + 1
      try EventLog.scanSequenceRange(db, origin: origin, sequences: Int64(expected)..<Int64.max, limit: max(1, maxEvents)) { record in
        guard record.sequence == expected, let payload = record.payload else { return false }
        let route = try Row.fetchOne(routes, arguments: [Data(origin.bytes), Int64(record.sequence)]).flatMap { row -> StoredEventRoute? in
          guard let epoch = MembershipHash(bytes: row[0] as Data) else { return nil }
          return StoredEventRoute(origin: origin, sequence: record.sequence, epoch: epoch, signature: Array(row[1] as Data))
        }
        page.append(ForwardableEvent(sequence: record.sequence, bytes: Array(payload), route: route))
        size += payload.count
        expected += 1
        return size < maxBytes
      }
      return page
    }
  }
}

extension ChronicleDatabase {
  /// The routes to carry with events `ids` of the log to a peer or into a
  /// bundle, so that whoever receives them can forward them to a relay:
  /// those held, and for this device's own signed data events that lack
  /// one, new ones made now with the group's current key (sealed and signed
  /// on all cores, and kept). Membership events need none; a database in no
  /// group, or one not granted the group's current key yet, makes none.
  package func eventRoutes(for ids: [EventID]) throws -> [StoredEventRoute] {
    guard !ids.isEmpty else { return [] }
    let me = peerID
    var routes: [StoredEventRoute], unrouted: [EventID]
    (routes, unrouted) = try read { db -> ([StoredEventRoute], [EventID]) in
      let lookup = try db.cachedStatement(sql: "SELECT epoch, signature FROM chronicle_event_routes WHERE origin = ? AND sequence = ?")
      var routes: [StoredEventRoute] = [], unrouted: [EventID] = []
      for id in ids where id.sequence <= UInt64(Int64.max) {
        if let row = try Row.fetchOne(lookup, arguments: [Data(id.origin.bytes), Int64(id.sequence)]),
           let epoch = MembershipHash(bytes: row[0] as Data) {
          routes.append(StoredEventRoute(origin: id.origin, sequence: id.sequence, epoch: epoch, signature: Array(row[1] as Data)))
        } else if id.origin == me {
          unrouted.append(id)
        }
      }
      return (routes, unrouted)
    }
    guard !unrouted.isEmpty, let key = deviceKey, let keyring = try groupKeyring(), let epoch = keyring.sealingEpoch else { return routes }
    let group = keyring.group
    let cipher = RelayEventCipher(keyring: keyring)
    let membership = Set(try membershipEvents().filter { $0.origin == me }.map(\.sequence))
    let events = try read { db in
      let payload = try db.cachedStatement(
        sql: "SELECT payload FROM main.chronicle_events WHERE origin = ? AND sequence = ? AND format_version >= 2")
      return try unrouted.filter { !membership.contains($0.sequence) }.compactMap { id -> (UInt64, [UInt8])? in
        try Data.fetchOne(payload, arguments: [Data(me.bytes), Int64(id.sequence)]).map { (id.sequence, Array($0)) }
      }
    }
    let made = events.concurrentMap { sequence, bytes -> StoredEventRoute? in
      guard let sealed = try? cipher.seal(bytes, origin: me, sequence: sequence, epoch: epoch) else { return nil }
      let signed = EventRoute.signed(sealed, group: group, key: key)
      return StoredEventRoute(origin: me, sequence: sequence, epoch: epoch, signature: signed.route)
    }.compactMap { $0 }
    try saveEventRoutes(made, own: true)
    routes += made
    return routes
  }
}

extension ChronicleDatabase {
  /// The ids of the log's events beyond `vector` after log position
  /// `after`, at most `limit` positions read, and the position reached; nil
  /// once the log is read.
  func eventIDs(beyond vector: VersionVector, after position: Int64, limit: Int) throws -> (ids: [EventID], reached: Int64)? {
    try read { db in
      var ids: [EventID] = [], reached = position
      try EventLog.scanRecords(db, after: position, limit: limit) { record in
        reached = record.position
        if let origin = record.origin, !vector.contains(origin: origin, sequence: record.sequence) {
          ids.append(EventID(origin: origin, sequence: record.sequence))
        }
        return true
      }
      return reached == position ? nil : (ids, reached)
    }
  }
}
