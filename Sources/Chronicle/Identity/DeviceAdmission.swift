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
    /// An event of the batch whose id another event of the batch has, with
    /// other bytes: one of the two is forged, and the batch is refused.
    var twin: ChangeEvent?
  }

  /// Picks the events of a batch that the log does not hold yet (each id
  /// once) and starts checking their signatures; ``admit(_:source:)`` waits
  /// for the checks.
  func startChecking(_ events: [IncomingEvent]) throws -> Pending {
    var fresh: [IncomingEvent] = []
    var seen: [EventID: Int] = [:]
    var twin: ChangeEvent?
    for incoming in events where try !EventLog.contains(registry.db, origin: incoming.event.origin, sequence: incoming.event.sequence) {
      if let earlier = seen[incoming.event.id] {
        if fresh[earlier].encoded.bytes != incoming.encoded.bytes { twin = twin ?? incoming.event }
        continue
      }
      seen[incoming.event.id] = fresh.count
      fresh.append(incoming)
    }
    return Pending(fresh: fresh, checks: checksSignatures ? SignatureChecks(fresh.map(\.encoded.bytes)) : nil, twin: twin)
  }

  /// Checks every event of a batch that the log does not hold yet (a refused
  /// one throws, naming it): its signature (waiting for the checks that
  /// ``startChecking(_:)`` started), then, once this database is in a group,
  /// its origin's membership and role. Records the keys of older devices
  /// seen signing for the first time, and the membership events the batch
  /// carries (before its data is checked, so a device added in the batch has
  /// its events admitted).
  mutating func admit(_ pending: Pending, source: String) throws {
    let db = registry.db
    let fresh = pending.fresh
    func refused(_ event: ChangeEvent, _ reason: String) -> SyncError {
      .unauthenticatedEvent(source: source, event: event.id.description, device: event.origin, reason: reason)
    }
    if let twin = pending.twin {
      throw refused(twin, "the batch holds two different events under this id: one of them is forged")
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
    // Membership events are kept, every one this group's (signed: nothing
    // else proves who made a change), and the member list is resolved anew
    // from all of them: the result depends on the set, not on the order.
    let membership = GroupMembership(db: db)
    var group = try membership.group()
    var carried: [(incoming: IncomingEvent, event: MembershipEvent)] = []
    for incoming in fresh where incoming.event.operations.contains(where: \.isMembership) {
      let event = incoming.event
      guard incoming.encoded.version >= 2 else { throw refused(event, "it changes the member list unsigned") }
      let signer = signers[event.id] ?? EventSignature.embeddedSigner(of: incoming.encoded.bytes)
      guard let membershipEvent = MembershipEvent(event, signed: incoming.encoded.bytes, signer: signer) else {
        throw refused(event, "it carries changes of the member list and data together")
      }
      carried.append((incoming, membershipEvent))
    }
    if group == nil {
      // A database in no group enters the group whose creation it receives.
      for (_, event) in carried.sorted(by: { $0.event.hash < $1.event.hash }) {
        guard case .createGroup(let id, let nonce, let founders) = event.changes.first,
              MembershipChange.groupID(founder: event.origin, nonce: nonce, founders: founders) == id
        else { continue }
        try membership.enter(id)
        group = id
        break
      }
    }
    if let group, !carried.isEmpty {
      for (incoming, event) in carried {
        if let other = event.otherGroup(than: group) {
          throw refused(incoming.event, "it belongs to another group (\(other.uuidString.lowercased())) than this database's (\(group.uuidString.lowercased()))")
        }
        try membership.store(event)
      }
      try membership.resolve()
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
      let event = incoming.event
      // A join request is what a device that is not a member yet may send,
      // with an invitation a member signed (with its key): anyone can mint
      // an invitation into a group of its own making.
      if member == nil, let request = carried.first(where: { $0.incoming.event.id == event.id })?.event,
         let invitation = request.joinRequest
      {
        guard let inviter = try membership.member(invitation.inviter), inviter.publicKey == invitation.inviterKey else {
          throw refused(event, "its invitation is signed by \(invitation.inviter), who is not a member of this group (with that key)")
        }
        continue
      }
      var state = GroupState(group: group ?? UUID())
      if let member { state.members[origin] = member }
      let writes = event.operations.contains { $0.tableIndex != nil }
      if let problem = state.refusal(ofEventFrom: origin, sequence: event.sequence, writes: writes) {
        throw refused(event, problem)
      }
      if let key = member?.publicKey, let signer = signers[event.id], key != signer {
        throw refused(event, "it is signed with another key than the one member \(origin) was added with")
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
