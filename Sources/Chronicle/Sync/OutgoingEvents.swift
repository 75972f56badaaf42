import Foundation
import GRDB

/// The events another peer lacks, read from the log page by page, so a
/// transport can stream a log of any size in bounded memory.
///
/// The set is fixed when the value is made: events that join the log later
/// (for instance those the same peer is sending back concurrently) are not
/// included, so nothing is sent back to where it came from.
///
/// ```swift
/// var outgoing = try OutgoingEvents(from: database, beyond: theirVector)
/// while let page = try outgoing.nextPage(maxEvents: 1_000, maxBytes: 256 << 10) {
///   try await send(page)
/// }
/// ```
public struct OutgoingEvents: Sendable {
  /// The receiver's version vector: events it covers are skipped.
  public let vector: VersionVector
  /// How many events will be sent in all.
  public let count: Int
  /// Their serialized size in bytes, in all.
  public let bytes: Int
  /// The clock of the oldest of them (nil when there are none).
  public let oldestTimestamp: HLCTimestamp?

  private let database: ChronicleDatabase
  /// The position of the last event to send.
  private let lastPosition: Int64
  /// When set, only this origin's events are sent.
  private let onlyOrigin: PeerID?
  /// The position read up to: just before the first event to send, at first.
  private var position: Int64
  /// Events this database refused for good that the receiver lacks, sent
  /// after the log's: it counts them as held, and the receiver, which
  /// checks each event itself, settles them too instead of asking for
  /// them (and everything of their device after them) at every sync.
  private let refused: [(id: EventID, bytes: [UInt8])]
  /// How many of ``refused`` were handed out.
  private var refusedSent = 0

  /// Snapshots the events of `database`'s log beyond `vector`, after
  /// signing this device's events that are not signed yet.
  ///
  /// - Throws: ``SyncError/compactedAway(origin:needed:baseline:)`` when the
  ///   receiver lacks events this log compacted into its baseline.
  public init(from database: ChronicleDatabase, beyond vector: VersionVector) throws {
    try self.init(from: database, beyond: vector, onlyFrom: nil)
  }

  /// The events of `origin` alone beyond `vector` (a relay takes each
  /// device's events from that device only).
  package init(from database: ChronicleDatabase, beyond vector: VersionVector, onlyFrom only: PeerID?) throws {
    self.database = database
    self.vector = vector
    self.onlyOrigin = only
    try database.sealOwnEvents()
    let refused = try database.read { db in
      try RefusedEvents.passedOn(beyond: vector, db).filter { only == nil || $0.id.origin == only }
    }
    self.refused = refused
    (position, lastPosition, count, bytes, oldestTimestamp) = try database.read { db in
      try LogBaseline.requireCovered(vector, in: db)
      // This device's events committed since the sealing above are left for
      // the next sync: they would arrive unsigned, and be refused.
      let unsealed = try database.firstUnsealedOwnSequence(db).flatMap { sequence in
        try EventLog.position(db, origin: database.peerID, sequence: sequence)
      }
      // Per origin, through the (origin, sequence) index: what is read
      // grows with what the receiver lacks, not with the log.
      let summary = try EventLog.summary(db, beyond: vector, origin: only, positionsBefore: unsealed ?? .max)
      return (
        (summary.positions?.lowerBound ?? 1) - 1, summary.positions?.upperBound ?? 0, summary.count + refused.count,
        summary.bytes + refused.reduce(0) { $0 + $1.bytes.count },
        summary.oldestTimestamp.map(HLCTimestamp.init(rawValue:)))
    }
  }

  /// The next events in log order, at most `maxEvents` and stopping at the
  /// first event that reaches `maxBytes` (a page holds at least one event);
  /// `nil` when all were read.
  public mutating func nextPage(maxEvents: Int, maxBytes: Int) throws -> [[UInt8]]? {
    try nextIdentifiedPage(maxEvents: maxEvents, maxBytes: maxBytes)?.map(\.bytes)
  }

  /// The routes to send with the events `ids` (``ChronicleDatabase/eventRoutes(for:)``).
  package func routes(for ids: [EventID]) throws -> [StoredEventRoute] { try database.eventRoutes(for: ids) }

  /// The routes answering a receiver's `wants` (``ChronicleDatabase/eventRoutes(answering:)``).
  package func routes(answering wants: [RouteWant]) throws -> [StoredEventRoute] { try database.eventRoutes(answering: wants) }

  /// ``nextPage(maxEvents:maxBytes:)`` with each event's id.
  package mutating func nextIdentifiedPage(maxEvents: Int, maxBytes: Int) throws -> [(id: EventID, bytes: [UInt8])]? {
    while position < lastPosition {
      let (page, reached) = try database.read { [position, lastPosition, vector, onlyOrigin] db in
        var page: [(id: EventID, bytes: [UInt8])] = [], size = 0, reached = position
        try EventLog.scanRecords(db, after: position, through: lastPosition, limit: max(1, maxEvents), payloads: true) { record in
          reached = record.position
          guard let origin = record.origin, origin == onlyOrigin ?? origin,
                !vector.contains(origin: origin, sequence: record.sequence), let payload = record.payload else { return true }
          page.append((EventID(origin: origin, sequence: record.sequence), [UInt8](payload)))
          size += payload.count
          return size < maxBytes
        }
        return (page, reached)
      }
      position = reached
      if !page.isEmpty { return page }
    }
    guard refusedSent < refused.count else { return nil }
    var page: [(id: EventID, bytes: [UInt8])] = [], size = 0
    while refusedSent < refused.count,
          page.isEmpty || (page.count < maxEvents && size + refused[refusedSent].bytes.count <= maxBytes) {
      page.append(refused[refusedSent])
      size += refused[refusedSent].bytes.count
      refusedSent += 1
    }
    return page
  }
}

extension ChronicleDatabase {
  /// Merges serialized events received from another peer, in one
  /// transaction (see ``applyRemote(bundle:source:)``). Each event is
  /// verified first (envelope, CRC-32, signature, then its body, which is
  /// inflated only once its signature holds); one that is malformed or
  /// refused is recorded and reported, and the rest applies without it.
  /// `source` names the sender in errors.
  ///
  /// A large event (body over 4 MiB, or past 16 MiB of such bodies in the
  /// batch) of a device the member list does not name is inflated only
  /// after the rest of the batch is merged, and only if the batch admitted
  /// that device; otherwise it is refused, to be sent again once the device
  /// is admitted.
  package func applyRemote(serializedEvents: [[UInt8]], source: String) throws -> MergeReport {
    let gate = try decodeGate()
    let (events, refused, deferred) = try decodeReceived(serializedEvents, gate: gate, source: source)
    var report = try applyRemote(events, refused: refused, source: source)
    guard !deferred.isEmpty else { return report }
    let now = try decodeGate()
    let admitted = deferred.filter { now?.admits($0.origin, $0.sequence) == true }
    let strangers = deferred.filter { now?.admits($0.origin, $0.sequence) != true }.map { deferred in
      EventRefusal(
        id: EventID(origin: deferred.origin, sequence: deferred.sequence),
        reason: "its device \(deferred.origin) is no member of this group, whose events are opened only up to \(DecodeGate.defaultStrangerBodyLimit >> 20) MiB each and \(DecodeGate.strangerBatchBudget >> 20) MiB a batch: it is taken once the device is admitted",
        bytes: serializedEvents[deferred.index].count)
    }
    let later = try decodeReceived(admitted.map { serializedEvents[$0.index] }, gate: now, source: source)
    report.add(try applyRemote(later.events, refused: later.refused + strangers, source: source))
    return report
  }

  /// What a database knows of the devices that may send it events, before
  /// it inflates any: nil while it is in no group.
  func decodeGate(strangerBodyLimit: Int? = DecodeGate.defaultStrangerBodyLimit) throws -> DecodeGate? {
    try read { db -> DecodeGate? in
      guard try db.tableExists("chronicle_members") else { return nil }
      let membership = GroupMembership(db: db)
      guard let group = try membership.group() else { return nil }
      let members = try membership.members()
      return DecodeGate(
        group: group, members: Dictionary(members.map { ($0.device, $0) }, uniquingKeysWith: { $1 }), strangerBodyLimit: strangerBodyLimit)
    }
  }

  /// Received events decoded (see ``IncomingEvent/decodeAll(_:gate:)``):
  /// those decoded, those refused for their bytes, and those left for later.
  private func decodeReceived(
    _ serializedEvents: [[UInt8]], gate: DecodeGate?, source: String
  ) throws -> (events: [IncomingEvent], refused: [EventRefusal], deferred: [(index: Int, origin: PeerID, sequence: UInt64)]) {
    var events: [IncomingEvent] = []
    var refused: [EventRefusal] = []
    var deferred: [(index: Int, origin: PeerID, sequence: UInt64)] = []
    events.reserveCapacity(serializedEvents.count)
    for (index, outcome) in IncomingEvent.decodeAll(serializedEvents, gate: gate).enumerated() {
      switch outcome {
      case .decoded(let incoming): events.append(incoming)
      case .deferred(let origin, let sequence): deferred.append((index, origin, sequence))
      case .malformed(let error):
        // Refused alone when its envelope names it; nothing at all when not
        // even that reads.
        guard let header = try? EventCodec.decodeHeader(serializedEvents[index]) else {
          throw SyncError.malformedEvent(source: source, index: index, reason: "\(error)")
        }
        refused.append(EventRefusal(
          id: EventID(origin: header.origin, sequence: header.sequence),
          reason: "it is malformed (\(error)): the peer that sent it holds a damaged copy (chronicle verify on it names the event)",
          bytes: serializedEvents[index].count))
      }
    }
    return (events, refused, deferred)
  }
}
