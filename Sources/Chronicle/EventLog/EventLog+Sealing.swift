import Foundation
import GRDB

// The events a device wrote before it signed them (format 1) and their
// signed replacements (format 3; 2 before links): what `sealOwnEvents()`
// reads and writes.
extension EventLog {
  /// The lowest sequence, from `start` on, of `origin`'s events stored
  /// unsigned; nil when every one is signed.
  static func firstUnsignedSequence(_ db: Database, origin: PeerID, from start: Int64) throws -> Int64? {
    try Int64.fetchOne(
      db, sql: "SELECT MIN(sequence) FROM main.chronicle_events WHERE origin = ? AND sequence >= ? AND format_version = 1",
      arguments: [Data(origin.bytes), start])
  }

  /// `origin`'s events from sequence `start` on, in sequence order, at most
  /// `limit`: each one's position, sequence and stored bytes, and whether
  /// it is still unsigned.
  static func eventsToSeal(
    _ db: Database, origin: PeerID, from start: Int64, limit: Int
  ) throws -> [(position: Int64, sequence: Int64, bytes: [UInt8], unsigned: Bool)] {
    try Row.fetchAll(db, sql: """
      SELECT id, sequence, payload, format_version FROM main.chronicle_events
      WHERE origin = ? AND sequence >= ? ORDER BY sequence LIMIT ?
      """, arguments: [Data(origin.bytes), start, limit]
    ).map { row in (row[0], row[1], Array(row[2] as Data), (row[3] as Int) == 1) }
  }

  /// The link for `origin`'s event at `sequence`: the history digest of
  /// the event before it, or ``EventSignature/noLink`` for its first
  /// event and one whose previous event the log no longer holds.
  static func link(_ db: Database, origin: PeerID, before sequence: Int64) throws -> [UInt8] {
    guard sequence > 1, let previous = try payload(db, origin: origin, sequence: UInt64(sequence - 1)) else { return EventSignature.noLink }
    return EventSignature.historyDigest(of: previous)
  }

  /// The stored bytes of `origin`'s event at `sequence`; nil when the log does not hold it.
  static func payload(_ db: Database, origin: PeerID, sequence: UInt64) throws -> [UInt8]? {
    try Data.fetchOne(
      db.cachedStatement(sql: "SELECT payload FROM main.chronicle_events WHERE origin = ? AND sequence = ?"),
      arguments: [Data(origin.bytes), Int64(clamping: sequence)]
    ).map { Array($0) }
  }

  /// Stores `bytes`, an event's signed form, in place of the event at
  /// `position`, with its format version, size and checksum.
  static func replaceWithSigned(_ db: Database, position: Int64, bytes: [UInt8]) throws {
    let checksum = bytes.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    try db.cachedStatement(sql: """
      UPDATE main.chronicle_events SET format_version = ?, payload = ?, stored_size = ?, checksum = ? WHERE id = ?
      """).execute(arguments: [Int(bytes[4]), Data(bytes), bytes.count, Int64(checksum), position])
  }

  /// The key `origin`'s signed events in the log carry (checked when they
  /// were admitted); nil when it has none.
  static func signingKey(_ db: Database, origin: PeerID) throws -> [UInt8]? {
    guard let payload = try Data.fetchOne(
      db, sql: "SELECT payload FROM main.chronicle_events WHERE origin = ? AND format_version >= 2 LIMIT 1", arguments: [Data(origin.bytes)])
    else { return nil }
    let key = EventSignature.embeddedSigner(of: Array(payload))
    return !origin.isKeyDerived || PeerID(publicKey: key) == origin ? key : nil
  }
}
