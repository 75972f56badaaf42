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

    // The member list as it stands now (a revocation or another role may
    // have come since the hello), read from the store only when it changed.
    func currentRoster() async throws -> GroupRoster {
      let generation = relay.hub.membershipGeneration(group)
      if generation != rosterGeneration {
        roster = try await RelayMembers.load(group, from: relay.store)
        rosterGeneration = generation
      }
      return roster
    }
    var pulling = false
    let maxMessage = relay.configuration.maxEventBytes + (1 << 20)
    while true {
      link.expect("a request", within: nil)
      guard let message = try await link.receive(&frames, maxSize: maxMessage) else { return }
      switch message {
      case .push(let events):
        try await store(events, from: device, publicKey: publicKey, in: group, roster: try await currentRoster())
      case .membership(let events):
        // From a device still admitted only; applied at once, and sessions
        // of the group re-check their device (a revocation ends them).
        // (At most RelayMessage.maxMembershipEventsPerMessage: decoding checks.)
        if let problem = try await currentRoster().refusal(of: device, publicKey: publicKey) {
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
}
