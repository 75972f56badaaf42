import Foundation
import GRDB

/// Decides whether received events come from the device they name.
///
/// A signed (version 2) event must verify with the key it carries, and that
/// key must be its origin's: the key its peer id is derived from, or, for a
/// peer id from before device keys, the key that id first signed with (bound
/// on first sight, in `chronicle_devices`). An unsigned (version 1) event is
/// accepted only from such an older device, and only below the sequence from
/// which it signs.
struct DeviceAdmission {
  let registry: DeviceRegistry
  /// False only to measure what signatures cost (chronicle-bench).
  let checksSignatures: Bool
  private var known: [PeerID: DeviceRegistry.Device?] = [:]

  init(_ db: Database, checksSignatures: Bool = true) {
    registry = DeviceRegistry(db: db)
    self.checksSignatures = checksSignatures
  }

  /// The events of a batch that the log does not hold yet, with their
  /// signatures being checked on other threads (see ``SignatureChecks``).
  struct Pending {
    var fresh: [IncomingEvent]
    var checks: SignatureChecks?
  }

  /// Picks the events of a batch that the log does not hold yet and starts
  /// checking their signatures; ``admit(_:source:)`` waits for the checks.
  func startChecking(_ events: [IncomingEvent]) throws -> Pending {
    var fresh: [IncomingEvent] = []
    for incoming in events where try !EventLog.contains(registry.db, origin: incoming.event.origin, sequence: incoming.event.sequence) {
      fresh.append(incoming)
    }
    return Pending(fresh: fresh, checks: checksSignatures ? SignatureChecks(fresh.map(\.encoded.bytes)) : nil)
  }

  /// Checks every event of a batch that the log does not hold yet (a refused
  /// one throws, naming it): its signature (waiting for the checks that
  /// ``startChecking(_:)`` started), then, once this database is in a group,
  /// its origin's membership. Records the keys of older devices seen signing
  /// for the first time, and the membership changes the batch carries
  /// (oldest first, so a device added in the batch has its events admitted).
  mutating func admit(_ pending: Pending, source: String) throws {
    let db = registry.db
    let fresh = pending.fresh
    func refused(_ event: ChangeEvent, _ reason: String) -> SyncError {
      .unauthenticatedEvent(source: source, event: event.id.description, device: event.origin, reason: reason)
    }
    let checks = try pending.checks?.results() ?? []
    var checked: [EventID: Result<[UInt8], EventSignature.Problem>] = [:]
    for (incoming, check) in zip(fresh, checks) { checked[incoming.event.id] = check }
    var signers: [EventID: [UInt8]] = [:]
    for incoming in fresh.sorted(by: { ($0.event.origin, $0.event.sequence) < ($1.event.origin, $1.event.sequence) }) {
      let event = incoming.event
      do {
        signers[event.id] = try admit(event.origin, event.sequence, incoming.encoded, checked: checked[event.id])
      } catch let problem as EventSignature.Problem {
        throw refused(event, problem.description)
      }
    }
    // Membership changes, oldest first; one that depends on a change later in
    // the batch (a join whose inviter is added later, anything before the
    // group's creation) waits for it: passes run until none applies.
    let membership = GroupMembership(db: db)
    var waiting: [(event: ChangeEvent, change: MembershipChange)] = []
    for incoming in fresh.sorted(by: { ($0.event.timestamp, $0.event.origin) < ($1.event.timestamp, $1.event.origin) }) {
      for case .membership(let change) in incoming.event.operations { waiting.append((incoming.event, change)) }
    }
    while !waiting.isEmpty {
      var failed: [(event: ChangeEvent, change: MembershipChange, problem: GroupMembership.Problem)] = []
      for (event, change) in waiting {
        do {
          let key = try signers[event.id] ?? registry.device(event.origin)?.publicKey
          try membership.apply(change, by: event.origin, writerKey: key, at: event.timestamp)
        } catch let problem as GroupMembership.Problem {
          failed.append((event, change, problem))
        }
      }
      if let first = failed.first, failed.count == waiting.count {
        throw refused(first.event, "its membership change (\(first.change)) is refused: \(first.problem)")
      }
      waiting = failed.map { ($0.event, $0.change) }
    }
    guard try membership.group() != nil else { return }
    var members: [PeerID: GroupMember?] = [:]
    for incoming in fresh {
      let origin = incoming.event.origin
      let member: GroupMember?
      if let cached = members[origin] { member = cached } else {
        member = try membership.member(origin)
        members[origin] = member
      }
      if let problem = GroupMembership.refusal(of: member, origin: origin, sequence: incoming.event.sequence) {
        throw refused(incoming.event, problem.description)
      }
    }
  }

  /// The signer's key of a signed event, nil for an admitted unsigned one.
  private mutating func admit(
    _ origin: PeerID, _ sequence: UInt64, _ encoded: EventCodec.Encoded, checked: Result<[UInt8], EventSignature.Problem>?
  ) throws -> [UInt8]? {
    guard checksSignatures else { return nil }
    let device: DeviceRegistry.Device?
    if let cached = known[origin] {
      device = cached
    } else {
      device = try registry.device(origin)
      known[origin] = device
    }
    guard encoded.version >= 2 else {
      // Unsigned: only an older device's history, from before its key.
      if origin.isKeyDerived { throw EventSignature.Problem.unsigned }
      if let device, sequence >= device.firstSignedSequence { throw EventSignature.Problem.unsigned }
      return nil
    }
    let signer = try (checked ?? Result { () throws(EventSignature.Problem) in try EventSignature.verifiedSigner(of: encoded.bytes) }).get()
    if origin.isKeyDerived {
      guard PeerID(publicKey: signer) == origin else { throw EventSignature.Problem.notTheOriginsKey }
    } else if let device {
      guard device.publicKey == signer else { throw EventSignature.Problem.notTheOriginsKey }
      if sequence < device.firstSignedSequence {
        // Signed earlier than known: it signs from here on.
        let earlier = DeviceRegistry.Device(publicKey: signer, firstSignedSequence: sequence)
        try registry.record(origin, earlier)
        known[origin] = earlier
      }
    } else {
      let bound = DeviceRegistry.Device(publicKey: signer, firstSignedSequence: sequence)
      try registry.record(origin, bound)
      known[origin] = bound
    }
    return signer
  }
}
