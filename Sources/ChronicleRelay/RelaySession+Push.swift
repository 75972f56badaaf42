import Chronicle
import ChronicleNetwork
import Foundation
import Logging

/// What a session does with a push: each event checked (size, role,
/// revocation, its origin's route signature), paid for from the device's
/// push allowance, and stored a run per origin, all or none.
extension RelaySession {
  /// Stores a push and answers with what the relay holds of the device's
  /// own events. A push holds the device's events and those of other
  /// members it forwards; each must carry its origin's signature
  /// (``EventRoute``; a membership event its own), checked with the key the
  /// member list records before anything is stored. Each origin's run of
  /// events is stored all or none, in the order pushed.
  func store(
    _ events: [SealedEvent], from device: PeerID, publicKey: [UInt8], in group: UUID, roster: GroupRoster
  ) async throws {
    let configuration = relay.configuration
    // The device pays for all it sent, held or left out: each push costs
    // the relay its receipt and its checks.
    let pushed = events.reduce(0) { $0 + $1.sealed.count }
    let member = roster.members[device]
    if let by = member?.revokedBy {
      throw Refusal(kind: "revoked", message: "device \(device) was revoked from this group by \(by.shortDescription); nothing of the push was stored")
    }
    if let large = events.first(where: { $0.sealed.count > configuration.maxEventBytes }) {
      throw Refusal(
        kind: "event_too_large",
        message: "event \(large.origin.shortDescription):\(large.sequence) is \(large.sealed.count) bytes sealed, over this relay's limit of \(configuration.maxEventBytes) (chronicle relay --max-event-size); nothing of the push was stored")
    }
    // Not even its writes from before its demotion: the relay cannot check
    // them against the demotion's checkpoints, and a copy it holds keeps
    // the genuine one out. Members that hold them forward them (each
    // checked them when it took them).
    if member?.role.writes == false, events.contains(where: { $0.origin == device && !RelayEventCipher.isClear($0.sealed) }) {
      throw Refusal(
        kind: "reader",
        message: "device \(device) is a reader of this group: every member refuses its writes, so the relay stores none (an admin can make it a writer: chronicle role)")
    }
    // Whose key each event must be signed with. Another origin's events the
    // relay cannot take (of a device its member list does not name with a
    // key, a reader's data, written after a revocation) are left out, with
    // the rest of that origin's in the push (they would leave a gap), and
    // the others stored: the device's view of the member list may be ahead
    // of the relay's, which its next hello brings.
    var keys: [PeerID: [UInt8]] = [device: publicKey]
    var leftOut: [PeerID: String] = [:]
    var accepted: [SealedEvent] = []
    accepted.reserveCapacity(events.count)
    for event in events {
      let origin = event.origin
      guard origin != device else {
        accepted.append(event)
        continue
      }
      guard leftOut[origin] == nil else { continue }
      guard let known = roster.members[origin], let key = known.publicKey else {
        leftOut[origin] = "the relay's member list does not name it with a key"
        continue
      }
      keys[origin] = key
      if !known.mayWrite(at: event.sequence), !RelayEventCipher.isClear(event.sealed) {
        leftOut[origin] = "it is a reader: every member refuses its writes from :\(event.sequence)"
      } else if !roster.admits(origin, sequence: event.sequence) {
        leftOut[origin] = "event :\(event.sequence) was written after its revocation"
      } else {
        accepted.append(event)
      }
    }
    for (origin, reason) in leftOut {
      relay.metrics.refused("forward_left_out")
      logger.notice("forwarded events left out", metadata: ["origin": "\(origin.shortDescription)", "reason": "\(reason)"])
    }
    // Events the relay holds already are skipped before anything is checked.
    let held = try await relay.store.vector(of: group)
    var events = accepted.filter { !held.contains(origin: $0.origin, sequence: $0.sequence) }
    // The device's allowance, over all its connections: a push over it
    // waits (the device is slowed to the rate) or, past the longest wait, is refused.
    switch relay.pushAllowances.reserve(pushed, by: device, in: group, within: configuration.maxPushDelay) {
    case .after(let wait) where wait > .zero:
      relay.metrics.pushesDelayed.increment()
      try await Task.sleep(for: wait)
      // A revocation may have come while the push waited.
      if let problem = try await RelayMembers.load(group, from: relay.store).refusal(of: device, publicKey: publicKey) {
        throw Refusal(kind: "revoked_while_connected", message: "\(problem); nothing of the push was stored")
      }
    case .after:
      break
    case .refused(let wait):
      throw Refusal(
        kind: "rate",
        message: "device \(device) pushes faster than the relay's limit of \(configuration.maxPushBytesPerSecond ?? 0) bytes/s (over all its connections); nothing of the push was stored, retry in \(wait)",
        retryable: true)
    }
    // Signatures, off the relay's threads and on all cores: one Ed25519
    // verification an event.
    let forged = try await offload { [events, keys] in
      let verdicts = events.concurrentMap { event -> Bool in
        guard let key = keys[event.origin] else { return false }
        guard RelayEventCipher.isClear(event.sealed) else { return EventRoute.verify(event, group: group, publicKey: key) }
        guard event.route.isEmpty, let membership = try? MembershipEvent(verifying: Array(event.sealed.dropFirst())) else { return false }
        return membership.origin == event.origin && membership.sequence == event.sequence && membership.signer == key
      }
      return Set(zip(events, verdicts).filter { !$0.1 }.map { EventID(origin: $0.0.origin, sequence: $0.0.sequence) })
    }
    if let own = events.first(where: { $0.origin == device && forged.contains(EventID(origin: $0.origin, sequence: $0.sequence)) }) {
      throw Refusal(
        kind: "forged_origin",
        message: "event :\(own.sequence) it pushed is not signed by its key for this group and these bytes; nothing of the push was stored")
    }
    if !forged.isEmpty {
      // Another origin's event that its origin did not sign as it is: left
      // out, with the rest of that origin's in the push.
      let origins = Set(forged.map(\.origin))
      var cut: Set<PeerID> = []
      events = events.filter { event in
        guard origins.contains(event.origin) else { return true }
        if forged.contains(EventID(origin: event.origin, sequence: event.sequence)) { cut.insert(event.origin) }
        return !cut.contains(event.origin)
      }
      relay.metrics.refused("forged_origin")
      logger.notice("forwarded events not signed by their origin left out", metadata: ["events": "\(forged.count)"])
    }
    // A run of events an origin, each appended all or none, in the order pushed.
    var runs: [(origin: PeerID, events: [SealedEvent])] = []
    for event in events {
      if runs.last?.origin == event.origin { runs[runs.count - 1].events.append(event) } else { runs.append((event.origin, [event])) }
    }
    var ownUpTo: UInt64?, new = 0
    for run in runs {
      let outcome: AppendOutcome
      do {
        outcome = try await relay.store.append(
          run.events, origin: run.origin, to: group, quota: GroupQuota(bytes: configuration.groupQuotaBytes, events: configuration.groupQuotaEvents))
      } catch let refusal as RelayStoreRefusal {
        let stored = new == 0 ? "nothing of the push was stored" : "the events before it were stored"
        switch refusal {
        case .gap where run.origin != device:
          // The forwarder's view of what the relay holds was ahead (events
          // of that origin left out before): left out too, not the session's end.
          relay.metrics.refused("forward_left_out")
          logger.notice("forwarded events left out", metadata: ["origin": "\(run.origin.shortDescription)", "reason": "\(refusal)"])
          continue
        case .gap: throw Refusal(kind: "gap", message: "\(refusal); \(stored)")
        case .quotaExceeded where run.origin != device, .eventQuotaExceeded where run.origin != device:
          relay.metrics.refused("quota")
          logger.notice("forwarded events left out", metadata: ["origin": "\(run.origin.shortDescription)", "reason": "\(refusal)"])
          continue
        case .quotaExceeded, .eventQuotaExceeded: throw Refusal(kind: "quota", message: "\(refusal); \(stored)", retryable: true)
        }
      }
      relay.metrics.eventsIn.increment(by: outcome.new)
      relay.metrics.bytesIn.increment(by: outcome.newBytes)
      new += outcome.new
      if run.origin == device { ownUpTo = outcome.upTo }
    }
    let upTo = ownUpTo ?? held[device]
    try await link.send(.stored(upTo: upTo, new: new))
  }
}
