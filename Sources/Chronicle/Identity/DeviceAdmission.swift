import Foundation
import GRDB

/// Decides whether received events come from the device they name.
///
/// A signed (version 2 or 3) event must verify with the key it carries, and that
/// key must be its origin's: the key its peer id is derived from, or, for a
/// peer id from before device keys, the key that id first signed with (bound
/// on first sight, in `chronicle_devices`). An unsigned (version 1) event is
/// accepted only from such an older device, and only below the sequence from
/// which it signs.
struct DeviceAdmission {
  let registry: DeviceRegistry
  /// False only to measure what signatures cost (chronicle-bench).
  let checksSignatures: Bool
  /// This device: an event in its name that its log lacks is forged.
  let localPeer: PeerID
  private var known: [PeerID: DeviceRegistry.Device?] = [:]

  init(_ db: Database, localPeer: PeerID, checksSignatures: Bool = true) {
    registry = DeviceRegistry(db: db)
    self.localPeer = localPeer
    self.checksSignatures = checksSignatures
  }

  /// The events of a batch that the log does not hold yet, with their
  /// signatures being checked on other threads (see ``SignatureChecks``).
  struct Pending {
    var fresh: [IncomingEvent]
    var checks: SignatureChecks?
    /// Ids that two events of the batch have, with other bytes: one of the
    /// two is forged, and both are refused.
    var twins: [EventID]
    /// Events refused before any check of their signature, with the
    /// reason: another copy of an event the log holds, one of this device's
    /// own that its log lacks, one written at a newer schema epoch than this
    /// database's. Left out of the merge, and refused (open).
    var refusedUnchecked: [(incoming: IncomingEvent, reason: String, settled: Bool)]

    /// The ids of ``refusedUnchecked``, which the merge skips.
    var refusedUncheckedIDs: Set<EventID> { Set(refusedUnchecked.map(\.incoming.event.id)) }
  }

  /// Picks the events of a batch that the log does not hold yet (each id
  /// once) and starts checking their signatures; ``admit(_:)`` waits for
  /// the checks.
  func startChecking(_ events: [IncomingEvent]) throws -> Pending {
    var fresh: [IncomingEvent] = []
    var seen: [EventID: Int] = [:]
    var twins: [EventID] = []
    var refusedUnchecked: [(IncomingEvent, String, Bool)] = []
    // Written at a newer schema than this database's: each is refused here,
    // in one pass (the merge would refuse them one at a time).
    let localEpoch = try LocalLogPosition.read(registry.db, origin: localPeer).schemaEpoch
    // Events a compaction folded into the baseline are held (the merge
    // counts them as duplicates).
    let baseline = try LogBaseline.Header.read(registry.db)?.vector ?? VersionVector()
    for incoming in events {
      let event = incoming.event
      if baseline.contains(origin: event.origin, sequence: event.sequence) { continue }
      if let held = try EventLog.checksum(registry.db, origin: event.origin, sequence: event.sequence) {
        if held != incoming.encoded.checksum {
          refusedUnchecked.append((incoming, "this log holds a different event with the same origin and sequence", false))
        }
        continue
      }
      if let refusal = incoming.refusedUndecoded {
        refusedUnchecked.append((incoming, refusal.reason, refusal.settled))
        continue
      }
      if event.origin == localPeer {
        refusedUnchecked.append((incoming, "it claims to come from this peer, whose log does not have it (was this file restored from an older backup?)", false))
        continue
      }
      if event.schemaEpoch > localEpoch {
        refusedUnchecked.append((incoming, SyncError.schemaAhead(source: "", event: "", remoteEpoch: event.schemaEpoch, localEpoch: localEpoch).eventRefusalReason, false))
        continue
      }
      if let earlier = seen[incoming.event.id] {
        if fresh[earlier].encoded.bytes != incoming.encoded.bytes { twins.append(incoming.event.id) }
        continue
      }
      seen[incoming.event.id] = fresh.count
      fresh.append(incoming)
    }
    return Pending(fresh: fresh, checks: checksSignatures ? SignatureChecks(fresh) : nil, twins: twins, refusedUnchecked: refusedUnchecked)
  }

  /// What ``admit(_:)`` found: the events refused, and whether the batch
  /// changed the member list.
  struct Outcome {
    var refusals: [EventRefusal] = []
    var storedMembershipEvents = 0
  }

  /// Checks every event of a batch that the log does not hold yet: its
  /// signature (waiting for the checks that ``startChecking(_:)`` started),
  /// then, once this database is in a group, its origin's membership and
  /// role. Records the keys of older devices seen signing for the first
  /// time, and the membership events the batch carries (before its data is
  /// checked, so a device added in the batch has its events admitted).
  ///
  /// Each event that fails is returned as refused, with the reason; the
  /// caller merges the batch again without them (what they stored here is
  /// rolled back with the transaction).
  mutating func admit(_ pending: Pending) throws -> Outcome {
    let db = registry.db
    let fresh = pending.fresh
    var outcome = Outcome()
    var refused: Set<EventID> = []
    /// `settled`: the event's origin is proven and the refusal final.
    func refuse(_ incoming: IncomingEvent, _ reason: String, settled: Bool) {
      guard refused.insert(incoming.event.id).inserted else { return }
      outcome.refusals.append(EventRefusal(incoming, reason: reason, settled: settled))
    }
    for (incoming, reason, settled) in pending.refusedUnchecked {
      guard refused.insert(incoming.event.id).inserted else { continue }
      outcome.refusals.append(EventRefusal(incoming, reason: reason, settled: settled))
    }
    for twin in pending.twins {
      guard let incoming = fresh.first(where: { $0.event.id == twin }) else { continue }
      refuse(incoming, "the batch holds two different events under this id: one of them is forged", settled: false)
    }
    let checks = try pending.checks?.results() ?? []
    var checked: [EventID: Result<[UInt8], EventSignature.Problem>] = [:]
    for (incoming, check) in zip(fresh, checks) { checked[incoming.event.id] = check }
    var signers: [EventID: [UInt8]] = [:]
    for incoming in fresh.sorted(by: { ($0.event.origin, $0.event.sequence) < ($1.event.origin, $1.event.sequence) })
    where !refused.contains(incoming.event.id) {
      let event = incoming.event
      do {
        signers[event.id] = try admit(event.origin, event.sequence, incoming.encoded, checked: checked[event.id])
      } catch let problem as EventSignature.Problem {
        refuse(incoming, EventSignature.reason(problem), settled: false)
      }
    }
    /// Whether the event's origin is proven: its signature verified with its
    /// origin's key. (An older device's unsigned history, admitted as such,
    /// proves nothing: anyone could have written it.)
    func proven(_ event: ChangeEvent) -> Bool { !checksSignatures || signers[event.id] != nil }
    // Membership events are kept, every one this group's (signed: nothing
    // else proves who made a change), and the member list is resolved anew
    // from all of them: the result depends on the set, not on the order.
    let membership = GroupMembership(db: db)
    var group = try membership.group()
    var carried: [(incoming: IncomingEvent, event: MembershipEvent)] = []
    for incoming in fresh where !refused.contains(incoming.event.id) && incoming.event.operations.contains(where: \.isMembership) {
      let event = incoming.event
      guard incoming.encoded.version >= 2 else {
        refuse(incoming, "it changes the member list unsigned", settled: false)
        continue
      }
      let signer = signers[event.id] ?? EventSignature.embeddedSigner(of: incoming.encoded.bytes)
      guard let membershipEvent = MembershipEvent(event, signed: incoming.encoded.bytes, signer: signer) else {
        refuse(incoming, "it carries changes of the member list and data together", settled: false)
        continue
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
          refuse(
            incoming, "it belongs to another group (\(other.uuidString.lowercased())) than this database's (\(group.uuidString.lowercased()))",
            settled: false)
          continue
        }
        if try membership.store(event) { outcome.storedMembershipEvents += 1 }
      }
      try membership.resolve()
    }
    guard try membership.group() != nil else { return outcome }
    var members: [PeerID: GroupMember?] = [:]
    var revokedVerdicts: [PeerID: [UInt64: RevokedHistory.Verdict]] = [:]
    for incoming in fresh where !refused.contains(incoming.event.id) {
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
          refuse(incoming, "its invitation is signed by \(invitation.inviter), who is not a member of this group (with that key)", settled: false)
          continue
        }
        continue
      }
      var state = GroupState(group: group ?? UUID())
      if let member { state.members[origin] = member }
      let writes = event.operations.contains { $0.tableIndex != nil }
      if let key = member?.publicKey, let signer = signers[event.id], key != signer {
        refuse(incoming, "it is signed with another key than the one member \(origin) was added with", settled: false)
        continue
      }
      if let problem = state.refusal(ofEventFrom: origin, sequence: event.sequence, writes: writes) {
        // Settled only for a member that signed it with its key (revoked
        // before it, or a reader): a device not a member (yet) may become
        // one, and then a later copy is taken.
        let signedByMember = member?.publicKey != nil && member?.publicKey == signers[event.id]
        refuse(incoming, problem, settled: member != nil && proven(event) && (signedByMember || !checksSignatures))
        continue
      }
      // A revoked device's events up to the checkpoints its revocation
      // names are taken only when they lead to them (its key could sign
      // others), and so are a demoted reader's up to its demotion's.
      if let member, let top = member.lastCheckpoint, event.sequence <= top {
        if revokedVerdicts[origin] == nil {
          revokedVerdicts[origin] = try RevokedHistory.verdicts(
            of: origin, checkpoints: member.checkpoints, with: fresh.filter { !refused.contains($0.event.id) }, db)
        }
        if let verdict = revokedVerdicts[origin]?[event.sequence],
           let refusal = RevokedHistory.refusal(verdict, origin: origin, demoted: member.revokedBy == nil)
        {
          refuse(incoming, refusal.reason, settled: refusal.settled && proven(event))
        }
      }
    }
    return outcome
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
