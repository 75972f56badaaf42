import Chronicle
import ChronicleNetwork
import Crypto
import Foundation
import Logging
import WSCore

/// One device's connection to the relay: it proves who it is and that the
/// group's member list names it, then pushes its own sealed events and
/// pulls the group's, once or as they arrive.
struct RelaySession {
  let relay: RelayCore
  let link: RelayLink
  /// The group creation token the connection brought, if any.
  let creationToken: GroupCreationToken?
  /// The `Host` header of the connection's upgrade request: what the
  /// device addressed, when the relay is not given its names.
  var host: String?
  var logger: Logger
  /// Called once the hello is accepted: the connection is a member's
  /// session, which the relay's connection limits never evict. False: it
  /// was evicted meanwhile.
  var admitted: @Sendable () -> Bool = { true }

  /// Why the relay ends a session; the device is told `message`.
  struct Refusal: Error {
    /// The kind, as counted in the refusals metric.
    var kind: String
    var message: String
    var retryable = false
  }

  /// The largest hello: a device's key and signature, and the group's
  /// membership events (each a few hundred bytes).
  static let maxHelloBytes = 4 << 20

  func run(_ inbound: WebSocketInboundStream) async {
    relay.metrics.connections.increment()
    defer { relay.metrics.connections.decrement() }
    var frames = inbound.makeAsyncIterator()
    do {
      try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { await link.watchDeadlines() }
        try await serve(&frames, tasks: &tasks)
        tasks.cancelAll()
      }
    } catch {
      await end(with: error)
      return
    }
    await link.close()
  }

  /// Ends the session after `error`, telling the device why when it can still hear.
  func end(with error: any Error) async {
    switch error {
    case let refusal as Refusal:
      relay.metrics.refused(refusal.kind)
      logger.notice("refused", metadata: ["reason": "\(refusal.message)"])
      await link.fail(refusal.message, retryable: refusal.retryable)
    case is RelayLink.Timeout:
      relay.metrics.refused("timeout")
      logger.info("timed out", metadata: ["waiting for": "\(link.timedOut?.what ?? "a message")"])
      await link.close()
    case let tooLarge as RelayLink.TooLarge:
      relay.metrics.refused("event_too_large")
      logger.notice("message too large", metadata: ["limit": "\(tooLarge.limit)"])
      await link.fail(
        "\(tooLarge), over this relay's limit (events up to \(relay.configuration.maxEventBytes) bytes sealed: chronicle relay --max-event-size); nothing of it was stored",
        retryable: false)
    case let malformed as RelayLink.Malformed:
      relay.metrics.refused("malformed")
      logger.notice("malformed message", metadata: ["problem": "\(malformed.reason)"])
      await link.fail("a malformed message: \(malformed.reason)", retryable: false)
    case is CancellationError:
      await link.fail("the relay is shutting down", retryable: true)
    case let unavailable as DeadlineRelayStore.Unavailable:
      relay.metrics.refused("store_unavailable")
      logger.warning("store unavailable", metadata: ["error": "\(unavailable)"])
      await link.fail("\(unavailable); retry later", retryable: true)
    default:
      // The store failed (PostgreSQL restarting) or the connection did: say so if it can still be heard.
      logger.warning("session ended by an error", metadata: ["error": "\(error)"])
      await link.fail("the relay could not serve this request (\(error)); retry later", retryable: true)
    }
  }

  private func serve(_ frames: inout WebSocketInboundStream.AsyncIterator, tasks: inout ThrowingTaskGroup<Void, any Error>) async throws {
    var nonce = [UInt8](repeating: 0, count: RelayMessage.nonceSize)
    var generator = SystemRandomNumberGenerator()
    for index in nonce.indices { nonce[index] = generator.next() }
    try await link.send(.challenge(version: RelayMessage.protocolVersion, nonce: nonce))
    link.expect("hello", within: relay.configuration.handshakeTimeout)
    guard let hello = try await link.receive(&frames, maxSize: Self.maxHelloBytes) else { return }
    guard case .hello(let version, let group, let device, let publicKey, let signature, let relayName, let membership) = hello else {
      throw Refusal(kind: "protocol", message: "the session must start with a hello, not a \(hello.name)")
    }
    guard version == RelayMessage.protocolVersion else {
      throw Refusal(
        kind: "version", message: "this relay speaks relay protocol \(RelayMessage.protocolVersion), the device \(version): update the older side")
    }
    let transcript = RelayMessage.helloTranscript(nonce: nonce, group: group, device: device, publicKey: publicKey, relay: relayName)
    guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey), key.isValidSignature(signature, for: transcript) else {
      throw Refusal(kind: "bad_signature", message: "the hello's signature does not verify with the key it carries")
    }
    // A hello signed for another relay (passed on by it) is refused.
    let names = relay.configuration.names.isEmpty ? [host ?? ""] : relay.configuration.names
    guard names.map(RelayMessage.relayName(of:)).contains(RelayMessage.relayName(of: relayName)) else {
      throw Refusal(
        kind: "wrong_relay",
        message: "the hello was signed for relay \(relayName), and this relay answers to \(names.map(RelayMessage.relayName(of:)).joined(separator: ", ")): a hello is good for the relay its device addressed (a relay behind a proxy that rewrites the Host header is given its public names: chronicle relay --name)")
    }
    var logger = self.logger
    logger[metadataKey: "group"] = "\(group.uuidString.lowercased())"
    logger[metadataKey: "device"] = "\(device.shortDescription)"
    var rosterGeneration = relay.hub.membershipGeneration(group)
    var roster = try await apply(membership, from: device, to: group, logger: logger, admitting: (device, publicKey))
    // Join requests go to admins only: they are for an admin's device to admit.
    let requests = roster.members[device]?.isActiveAdmin == true
      ? roster.state.joinRequests.compactMap { roster.history.events[$0.event]?.bytes } : []
    // A member gets the group's history: its key grants open what it pulls.
    let history = roster.members[device]?.isActive == true ? roster.history.events.values.sorted { $0.hash < $1.hash }.map(\.bytes) : []
    guard admitted() else { throw CancellationError() }
    try await link.send(.welcome(
      try await relay.store.vector(of: group), maxEventBytes: relay.configuration.maxEventBytes, joinRequests: requests, membership: history))
    logger.info("device connected")
    // A revocation ends the session whatever it is doing, even waiting.
    tasks.addTask { [self, rosterGeneration] in
      await endWhenRevoked(device, publicKey: publicKey, in: group, after: rosterGeneration)
    }

    var pulling = false
    let maxMessage = relay.configuration.maxEventBytes + (1 << 20)
    while true {
      link.expect("a request", within: nil)
      guard let message = try await link.receive(&frames, maxSize: maxMessage) else { return }
      switch message {
      case .push(let events):
        // Checked again at each push (a revocation or another role may have
        // come since the hello), from the store only when the list changed.
        let generation = relay.hub.membershipGeneration(group)
        if generation != rosterGeneration {
          roster = try await RelayMembers.load(group, from: relay.store)
          rosterGeneration = generation
        }
        try await store(events, from: device, publicKey: publicKey, in: group, roster: roster)
      case .membership(let events):
        // From a device still admitted only; applied at once, and sessions
        // of the group re-check their device (a revocation ends them).
        // (At most RelayMessage.maxMembershipEventsPerMessage: decoding checks.)
        let generation = relay.hub.membershipGeneration(group)
        if generation != rosterGeneration {
          roster = try await RelayMembers.load(group, from: relay.store)
          rosterGeneration = generation
        }
        if let problem = roster.refusal(of: device, publicKey: publicKey) {
          throw Refusal(kind: "revoked_while_connected", message: "\(problem); nothing of its membership message was stored")
        }
        try await apply(events, from: device, to: group, logger: logger, admitting: nil)
      case .pull(let vector, let live, let wants):
        guard !pulling else { throw Refusal(kind: "protocol", message: "a second pull on one connection") }
        pulling = true
        let watch = live ? relay.hub.watch(group) : nil
        tasks.addTask { [self] in
          // A failed pull ends the session at once: the device may be waiting for events, not sending.
          do {
            try await RelayPull(relay: relay, link: link, group: group, device: device, publicKey: publicKey)
              .run(beyond: vector, wants: wants, watching: watch)
          } catch {
            await end(with: error)
          }
        }
      case .bye:
        return
      default:
        throw Refusal(kind: "protocol", message: "a \(message.name) is not a request a device sends")
      }
    }
  }

  /// What a device outside a group is told, whether or not the relay holds the group.
  static func strangerRefusal(_ device: PeerID, _ group: UUID) -> String {
    "device \(device) is not a member of group \(group.uuidString.lowercased()) on this relay: a group new here starts with its founder's device and a creation token from the relay's operator (chronicle relay token create; chronicle sync --relay URL --creation-token TOKEN), and its members sync after it; a device outside the group joins with an invitation (chronicle join), then syncs"
  }

  /// What a device bringing a creation token that starts no group is told.
  static let spentTokenRefusal =
    "the creation token it brought starts no group here: it is not one this relay's operator created, or it has started all the groups it was made for (ask the operator for another: chronicle relay token create), or the device does not found the group it names; a device joining a group the relay holds needs no token"

  /// Ends the session once the group's member list no longer admits the
  /// device (revoked, or its key replaced), from any relay process sharing
  /// the store; returns when the session ends otherwise.
  private func endWhenRevoked(_ device: PeerID, publicKey: [UInt8], in group: UUID, after generation: Int) async {
    var seen = generation
    let changes = relay.hub.watch(group)
    // A change stored between the welcome and the watch woke no one: compare once now.
    var checkNow = relay.hub.membershipGeneration(group) != seen
    var iterator = changes.makeAsyncIterator()
    while true {
      if !checkNow {
        guard await iterator.next() != nil else { return }
      }
      checkNow = false
      let current = relay.hub.membershipGeneration(group)
      guard current != seen else { continue }
      seen = current
      guard let members = try? await RelayMembers.load(group, from: relay.store) else {
        seen = generation  // read again at the next change
        continue
      }
      if let problem = members.refusal(of: device, publicKey: publicKey) {
        await end(with: Refusal(kind: "revoked_while_connected", message: problem))
        return
      }
    }
  }

  /// Applies the membership events a device sent (verified first) to the
  /// group's member list and stores those that were new; then, for a hello,
  /// admits the device when the member list names it. Returns the list.
  @discardableResult
  private func apply(
    _ membership: [[UInt8]], from sender: PeerID, to group: UUID, logger: Logger, admitting: (device: PeerID, publicKey: [UInt8])?
  ) async throws -> GroupRoster {
    var roster = try await RelayMembers.load(group, from: relay.store)
    // A group this relay does not hold yet starts only with a token: asked
    // for before anything the device sent is decoded.
    let starting = admitting != nil && roster.history.events.isEmpty && !relay.configuration.openGroups
    if starting, creationToken == nil, let (device, _) = admitting {
      throw Refusal(kind: "creation_token", message: Self.strangerRefusal(device, group))
    }
    var brought: [MembershipEvent] = []
    for bytes in membership {
      // Those the relay holds already (verified when stored) need no second check.
      if let known = try? MembershipEvent(stored: bytes), roster.history.contains(known.hash) { continue }
      do {
        brought.append(try MembershipEvent(verifying: bytes))
      } catch {
        throw Refusal(kind: "bad_membership", message: "a membership event it sent is refused: \(error)")
      }
    }
    let admins = Set(roster.members.values.filter(\.isActiveAdmin).map(\.device))
    var added = roster.add(brought)
    // The quota stops a member filling the store with membership events
    // (its own, or ones waiting for a history nobody has); an admin's are
    // always taken, so an admin can still revoke the one who filled it.
    let limit = relay.configuration.maxMembershipEvents
    if added.contains(where: { !admins.contains($0.origin) }), roster.history.events.count > limit {
      let problem = "the group's member list would hold \(roster.history.events.count) membership events, over this relay's limit of \(limit) (chronicle relay --max-membership-events)"
      guard admins.contains(sender) else {
        throw Refusal(
          kind: "membership_quota",
          message: "\(problem): none of the \(added.count) it sent was stored; an admin's device can still revoke whoever filled it",
          retryable: true)
      }
      // An admin's device passing on others' events: its own are taken, the others' left out.
      relay.metrics.refused("membership_quota")
      logger.notice("membership events left out", metadata: ["reason": "\(problem)"])
      roster = try await RelayMembers.load(group, from: relay.store)
      added = roster.add(brought.filter { admins.contains($0.origin) })
    }
    if let (device, publicKey) = admitting, let problem = roster.refusal(of: device, publicKey: publicKey) {
      let awaiting = roster.state.joinRequests.contains { $0.device == device }
      // A device the member list does not name hears what it would of a
      // group the relay does not hold: nothing tells it which.
      if !awaiting, roster.members[device] == nil {
        throw creationToken == nil
          ? Refusal(kind: "not_a_member", message: Self.strangerRefusal(device, group))
          : Refusal(kind: "creation_token", message: Self.spentTokenRefusal)
      }
      // A device refused keeps nothing of a group it would start; of another,
      // only what the member list applied or takes as a join request (its own
      // request waits there for an admin): not events waiting for a history
      // the relay lacks, which a stranger could send without end.
      if starting || !awaiting {
        throw Refusal(kind: awaiting ? "awaiting_admission" : "not_a_member", message: problem, retryable: awaiting)
      }
      added = added.filter { !roster.state.waiting.contains($0.hash) }
      try await relay.store.addMembershipEvents(added, to: group)
      throw Refusal(kind: "awaiting_admission", message: problem, retryable: true)
    }
    if starting, let creationToken {
      // The device is the group's founder: the token is spent before anything is stored.
      guard try await relay.store.spendCreationToken(hash: creationToken.hash) else {
        throw Refusal(kind: "creation_token", message: Self.spentTokenRefusal)
      }
      logger.info("group started with a creation token")
    }
    try await relay.store.addMembershipEvents(added, to: group)
    for event in added {
      if let reason = roster.state.refused[event.hash] {
        logger.notice("membership event not applied", metadata: ["event": "\(event.origin.shortDescription):\(event.sequence)", "reason": "\(reason)"])
      }
    }
    return roster
  }

  /// Stores a push and answers with what the relay holds of the device's
  /// own events. A push holds the device's events and those of other
  /// members it forwards; each must carry its origin's signature
  /// (``EventRoute``; a membership event its own), checked with the key the
  /// member list records before anything is stored. Each origin's run of
  /// events is stored all or none, in the order pushed.
  private func store(
    _ events: [SealedEvent], from device: PeerID, publicKey: [UInt8], in group: UUID, roster: GroupRoster
  ) async throws {
    let configuration = relay.configuration
    let member = roster.members[device]
    if let by = member?.revokedBy {
      throw Refusal(kind: "revoked", message: "device \(device) was revoked from this group by \(by.shortDescription); nothing of the push was stored")
    }
    if let large = events.first(where: { $0.sealed.count > configuration.maxEventBytes }) {
      throw Refusal(
        kind: "event_too_large",
        message: "event \(large.origin.shortDescription):\(large.sequence) is \(large.sealed.count) bytes sealed, over this relay's limit of \(configuration.maxEventBytes) (chronicle relay --max-event-size); nothing of the push was stored")
    }
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
      if !known.role.writes, !RelayEventCipher.isClear(event.sealed) {
        leftOut[origin] = "it is a reader: every member refuses its writes"
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
    let bytes = events.reduce(0) { $0 + $1.sealed.count }
    // The device's allowance, over all its connections: a push over it
    // waits (the device is slowed to the rate) or, past the longest wait, is refused.
    switch relay.pushAllowances.reserve(bytes, by: device, in: group, within: configuration.maxPushDelay) {
    case .after(let wait) where wait > .zero:
      relay.metrics.pushesDelayed.increment()
      try await Task.sleep(for: wait)
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
