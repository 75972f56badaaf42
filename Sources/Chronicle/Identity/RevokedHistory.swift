import Foundation
import GRDB

/// A device's event named by its sequence and its history digest
/// (SHA-256 of what its signature covers): what a revocation records of
/// the revoked device's events as its writer held them.
public struct HistoryCheckpoint: Hashable, Sendable {
  static let digestSize = 32

  /// The event's sequence.
  public var sequence: UInt64
  /// SHA-256 of what its signature covers.
  public var digest: [UInt8]

  public init(sequence: UInt64, digest: [UInt8]) {
    self.sequence = sequence
    self.digest = digest
  }
}

/// Whether events of a revoked device, at or below the last checkpoint
/// its revocation names, are the ones it wrote before it was revoked.
///
/// Each signed event (format version 3) links to its origin's previous
/// event, so a device's events form a chain. A revocation names the
/// digests of some of the revoked device's events (checkpoints: the last
/// one its writer held, and others on the way, so that a receiver never
/// waits for more than a page of events): an event is proven when it is a
/// checkpoint and matches it, or when the next event, itself proven or held
/// in the log, links to it. A revoked device still holds its key, and could
/// sign other contents for sequences a peer has not seen yet; they do not
/// lead to the checkpoints.
enum RevokedHistory {
  /// A revocation names a checkpoint at least every this many events of
  /// the revoked device, and every ``checkpointBytes``, so that the events
  /// waiting for the next checkpoint stay well within what a receiver keeps
  /// of a device (``RefusedEvents/keptLimit``).
  static let checkpointEvents = 4_096
  static let checkpointBytes = 16 << 20

  /// What the chain says of one event.
  enum Verdict: Equatable {
    /// It leads to a checkpoint.
    case proven
    /// It does not: a copy signed after the revocation (or damaged).
    case rewritten
    /// The copy of the next event it leads to was rewritten: asked for
    /// again, with it.
    case belowRewritten
    /// The next event is not here yet: it waits for it.
    case waiting
    /// The next event carries no link (signed before links), so nothing
    /// proves or disproves it: taken, as every event was before links.
    case unlinked
  }

  /// The verdict on each of `events` (by sequence, at most the last
  /// checkpoint's), highest first: each is judged by its checkpoint, or by
  /// the one above it, taken from `events` when there (and only when it
  /// was proven), else from the log (`logged`), which holds what was
  /// taken before.
  static func verdicts(
    checkpoints: [HistoryCheckpoint], events: [UInt64: [UInt8]], logged: (UInt64) throws -> [UInt8]?
  ) rethrows -> [UInt64: Verdict] {
    let anchors = Dictionary(checkpoints.map { ($0.sequence, $0.digest) }, uniquingKeysWith: { first, _ in first })
    guard let top = anchors.keys.max() else { return [:] }
    var verdicts: [UInt64: Verdict] = [:]
    for sequence in events.keys.sorted(by: >) where sequence <= top {
      let digest = EventSignature.historyDigest(of: events[sequence]!)
      if let anchor = anchors[sequence] {
        verdicts[sequence] = digest == anchor ? .proven : .rewritten
        continue
      }
      let above: [UInt8]
      if let verdict = verdicts[sequence + 1] {
        switch verdict {
        case .proven, .unlinked: above = events[sequence + 1]!
        case .rewritten, .belowRewritten:
          verdicts[sequence] = .belowRewritten
          continue
        case .waiting:
          verdicts[sequence] = .waiting
          continue
        }
      } else if let bytes = try logged(sequence + 1) {
        above = bytes
      } else {
        verdicts[sequence] = .waiting
        continue
      }
      guard let link = EventSignature.link(of: above) else {
        verdicts[sequence] = .unlinked
        continue
      }
      verdicts[sequence] = link == digest ? .proven : .rewritten
    }
    return verdicts
  }

  /// The verdicts on `origin`'s events up to its last checkpoint: those of
  /// `batch`, and those refused earlier and kept (waiting for the rest of
  /// the chain), judged by the chain they form with the log's.
  static func verdicts(
    of origin: PeerID, checkpoints: [HistoryCheckpoint], with batch: [IncomingEvent] = [], _ db: Database
  ) throws -> [UInt64: Verdict] {
    let top = checkpoints.map(\.sequence).max() ?? 0
    var events = try RefusedEvents(db: db).keptEvents(of: origin, through: top)
    for incoming in batch where incoming.event.origin == origin && incoming.event.sequence <= top {
      events[incoming.event.sequence] = incoming.encoded.bytes
    }
    return try verdicts(checkpoints: checkpoints, events: events) { sequence in
      try EventLog.payload(db, origin: origin, sequence: sequence)
    }
  }

  /// Why an event of a revoked device (or of a reader, `demoted` from a
  /// writer) is refused, for `verdict`; nil when it is taken.
  static func refusal(_ verdict: Verdict, origin: PeerID, demoted: Bool = false) -> (reason: String, settled: Bool)? {
    let (cut, change) = demoted ? ("was made a reader", "its demotion") : ("was revoked", "its revocation")
    switch verdict {
    case .proven, .unlinked: return nil
    case .rewritten:
      return ("device \(origin) \(cut), and this copy does not lead to the events \(change) names: "
        + "it was signed after, or damaged (a good copy is taken from any peer)", false)
    case .belowRewritten:
      return ("device \(origin) \(cut), and the copy of its next event that this one leads to does not lead to the events "
        + "\(change) names: both are asked for again (a good copy is taken from any peer)", false)
    case .waiting:
      return ("device \(origin) \(cut): its earlier events are taken once they lead to the ones \(change) names, "
        + "and this one waits for the rest (kept; taken when they come)", true)
    }
  }

  /// The checkpoints a revocation of `device` cut off after `last` names:
  /// of the device's events this log holds signed, the last one and one at
  /// least every ``checkpointEvents`` events and ``checkpointBytes`` bytes.
  /// (An unsigned copy, as a rebuild leaves the events of other devices,
  /// names nothing: no other device holds those bytes.)
  static func checkpoints(of device: PeerID, through last: UInt64, _ db: Database) throws -> [HistoryCheckpoint] {
    guard last > 0 else { return [] }
    var picked: [UInt64] = []
    var sinceEvents = 0, sinceBytes = 0
    let rows = try Row.fetchCursor(
      db, sql: "SELECT sequence, stored_size FROM main.chronicle_events WHERE origin = ? AND sequence <= ? ORDER BY sequence",
      arguments: [Data(device.bytes), Int64(clamping: last)])
    while let row = try rows.next() {
      sinceEvents += 1
      sinceBytes += row[1] as Int
      if sinceEvents >= checkpointEvents || sinceBytes >= checkpointBytes {
        picked.append(UInt64(row[0] as Int64))
        sinceEvents = 0
        sinceBytes = 0
      }
    }
    if picked.last != last { picked.append(last) }
    return try picked.compactMap { sequence in
      guard let bytes = try EventLog.payload(db, origin: device, sequence: sequence), bytes.count > 4, bytes[4] >= 2 else { return nil }
      return HistoryCheckpoint(sequence: sequence, digest: EventSignature.historyDigest(of: bytes))
    }
  }
}
