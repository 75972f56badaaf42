import Chronicle
import Foundation
import Synchronization
import WSCore

/// One connection of a device to a relay: the handshake, the push of this
/// device's events, the pull of the group's, and, when watching, both as
/// they happen.
struct RelayClientSession: Sendable {
  let url: String
  let configuration: RelayConfiguration
  let database: ChronicleDatabase
  let key: DeviceKey
  let group: UUID
  let membership: [[UInt8]]
  /// The group keys this session seals and opens with, refreshed as
  /// membership events arrive.
  let keys = SessionKeys()

  final class SessionKeys: Sendable {
    private let cipher = Mutex<RelayEventCipher?>(nil)
    /// The group's history as the relay handed it in its welcome.
    private let received = Mutex<[MembershipEvent]>([])

    var current: RelayEventCipher? { cipher.withLock { $0 } }

    func refresh(_ database: ChronicleDatabase, adding welcome: [MembershipEvent]? = nil) async throws {
      if let welcome { received.withLock { $0 = welcome } }
      let history = received.withLock { $0 }
      let keyring = try await offload { try database.groupKeyring(adding: history) }
      cipher.withLock { $0 = keyring.map(RelayEventCipher.init) }
    }
  }

  /// The messages from the relay, with the deadline for each.
  struct Incoming {
    let link: RelayLink
    var frames: WebSocketInboundStream.AsyncIterator
    let relay: String
    let maxSize: Int

    mutating func next(_ what: String, within limit: Duration?) async throws -> RelayMessage {
      link.expect(what, within: limit)
      guard let message = try await link.receive(&frames, maxSize: maxSize) else { throw RelayError.connectionClosed(relay: relay, waitingFor: what) }
      if case .failure(let text, let retryable) = message { throw RelayError.refused(relay: relay, message: text, retryable: retryable) }
      return message
    }
  }

  func run(
    _ link: RelayLink, inbound: WebSocketInboundStream, push: Bool, pull: Bool, live: RelayTransport.LiveHooks?
  ) async throws -> RelaySyncReport {
    var incoming = Incoming(link: link, frames: inbound.makeAsyncIterator(), relay: url, maxSize: configuration.maxMessageBytes)
    let me = database.peerID
    let challenge = try await incoming.next("challenge", within: configuration.handshakeTimeout)
    guard case .challenge(let version, let nonce) = challenge else { throw unexpected(challenge, waitingFor: "a challenge") }
    guard version == RelayMessage.protocolVersion else {
      throw RelayError.refused(
        relay: url, message: "it speaks relay protocol \(version) and this device \(RelayMessage.protocolVersion): update the older side",
        retryable: false)
    }
    // The relay as this device addressed it: signed, so the hello is good for it alone.
    let relayName = RelayMessage.relayName(ofURL: url)
    let transcript = RelayMessage.helloTranscript(nonce: nonce, group: group, device: me, publicKey: key.publicKey, relay: relayName)
    try await link.send(.hello(
      version: RelayMessage.protocolVersion, group: group, device: me, publicKey: key.publicKey,
      signature: key.signature(for: transcript), relay: relayName, membership: membership))
    let welcome = try await incoming.next("welcome", within: configuration.handshakeTimeout)
    guard case .welcome(let relayVector, let maxEventBytes, let joinRequests, let history) = welcome else {
      throw unexpected(welcome, waitingFor: "a welcome")
    }
    let session = Pushing(maxEventBytes: maxEventBytes)
    let holdings = RelayHoldings(relayVector)
    // The history the relay holds carries the grants of keys this device may
    // not have merged yet (its own admission among them), and says who is a
    // member before the events it decides on arrive (a group created after
    // its founder wrote its data sends the creation last); each is checked.
    let verifiedHistory = history.compactMap { try? MembershipEvent(verifying: $0) }
    try await offload { [database] in _ = try database.learnMembershipHistory(verifiedHistory) }
    // An admin's device admits the requests the relay holds (its own clock
    // decides whether each invitation is still valid) and tends the group's
    // keys (a first epoch for a group of an older Chronicle, the current
    // key for members that lack it), and tells the relay at once, so the new
    // devices are admitted and granted at their next connection.
    let changed = try await offload { [database] in
      let admitted = try database.admitJoinRequests(received: joinRequests.compactMap { try? MembershipEvent(verifying: $0) })
      return try database.tendGroupKeys() || admitted > 0
    }
    if changed {
      try await link.send(.membership(try await offload { [database] in try database.membershipEvents().map(\.bytes) }))
    }
    try await keys.refresh(database, adding: verifiedHistory)

    var report = RelaySyncReport()
    var pushedThrough = relayVector[me]
    // A reader pushes nothing: every member would refuse its writes.
    let isReader = try await offload { [database] in try database.ownRole() == .reader }
    if push, !isReader {
      (report.sentEvents, pushedThrough, report.unpushed) = try await pushOwnEvents(
        after: pushedThrough, session, link: link, incoming: &incoming)
    }
    guard pull else {
      if push, try await !forward(holdings, session, link: link, incoming: &incoming, into: &report) { return report }
      try await link.send(.bye)
      return report
    }
    let (vector, wants) = try await offload { (try database.versionVector(), try database.routeWants()) }
    try await link.send(.pull(vector, live: live != nil, wants: wants))
    guard let live else {
      try await receive(&incoming, into: &report, holdings: holdings, live: nil)
      // What was pulled may have made this device write (an admin admits
      // a request, shares a key with a member that lacks it) or granted the
      // key a push waited for: the relay gets it now, not at the next sync.
      let membershipNow = try await offload { [database] in try database.membershipEvents().map(\.bytes) }
      if membershipNow.count > membership.count { try await link.send(.membership(membershipNow)) }
      if push, !isReader {
        try await keys.refresh(database)
        let sent: Int
        (sent, pushedThrough, report.unpushed) = try await pushOwnEvents(after: pushedThrough, session, link: link, incoming: &incoming)
        report.sentEvents += sent
      }
      // Other members' events last: what the pull brought, the relay holds.
      if push, try await !forward(holdings, session, link: link, incoming: &incoming, into: &report) { return report }
      try await link.send(.bye)
      return report
    }
    // Watching: one task pushes as the log grows, this one applies what arrives.
    try await withThrowingTaskGroup(of: Void.self) { tasks in
      tasks.addTask { [pushedThrough] in
        try await pushAsWritten(after: pushedThrough, session, holdings: holdings, link: link, pushesEvents: !isReader)
      }
      try await receive(&incoming, into: &report, holdings: holdings, live: live)
      tasks.cancelAll()
    }
    return report
  }

  /// Pushes this device's events after `start`, a page at a time, each
  /// acknowledged before the next; returns how many the relay stored and
  /// the last sequence pushed.
  private func pushOwnEvents(
    after start: UInt64, _ session: Pushing, link: RelayLink, incoming: inout Incoming
  ) async throws -> (stored: Int, through: UInt64, unpushed: String?) {
    var through = start, stored = 0
    while true {
      let (page, unpushed) = try await nextPage(after: through, session)
      guard let last = page.last else { return (stored, through, unpushed) }
      try await link.send(.push(page))
      let answer = try await incoming.next("stored report", within: configuration.responseTimeout)
      guard case .stored(let upTo, let new) = answer else { throw unexpected(answer, waitingFor: "a stored report") }
      guard upTo >= last.sequence else {
        throw RelayError.protocolViolation(relay: url, reason: "it reported holding this device's events up to :\(upTo) after a push through :\(last.sequence)")
      }
      stored += new
      through = last.sequence
      if let unpushed { return (stored, through, unpushed) }
    }
  }

  /// While watching: pushes this device's new events each time the log
  /// grows (a reader's: none), other members' it received by other paths,
  /// and the membership events it gained (a revocation written here or
  /// received), so the relay applies them at once.
  private func pushAsWritten(
    after start: UInt64, _ session: Pushing, holdings: RelayHoldings, link: RelayLink, pushesEvents: Bool
  ) async throws {
    var through = start
    var membershipSent = membership.count
    var waitingForKey: String?
    /// Tells the relay of membership events the log gained, and seals with
    /// what they bring (a revocation's new epoch, a grant) from then on.
    func sendMembershipGained() async throws {
      let current = try await offload { [database] in try database.membershipEvents().map(\.bytes) }
      guard current.count > membershipSent else { return }
      try await link.send(.membership(current))
      membershipSent = current.count
      try await keys.refresh(database)
    }
    for await _ in database.logGrowth(pollInterval: configuration.localPollInterval) {
      try await sendMembershipGained()
      while pushesEvents {
        // Checked before each page: a revocation merged meanwhile changes the key.
        try await sendMembershipGained()
        let (page, unpushed) = try await nextPage(after: through, session)
        if let unpushed, unpushed != waitingForKey {
          configuration.logger.notice("events wait to be pushed", metadata: ["reason": "\(unpushed)"])
        }
        waitingForKey = unpushed
        guard let last = page.last else { break }
        try await link.send(.push(page))
        through = last.sequence
        if unpushed != nil { break }
      }
      while true {
        let page = try await nextForwardPage(holdings, session)
        guard !page.isEmpty else { break }
        try await link.send(.push(page))
        for event in page { holdings.raise(event.origin, to: event.sequence) }
      }
    }
  }

  /// What the relay said it accepts.
  struct Pushing: Sendable {
    var maxEventBytes: Int
  }

  /// This device's next events after `sequence`, sealed; and why the page
  /// stops short when it does (a data event while this device holds no key
  /// of the group's current epoch: it waits, and what came before it goes).
  private func nextPage(after sequence: UInt64, _ session: Pushing) async throws -> (page: [SealedEvent], unpushed: String?) {
    let me = database.peerID
    let (page, membership) = try await offload { [database, configuration] in
      let page = try database.ownEvents(after: sequence, maxEvents: 1_000, maxBytes: configuration.pushBatchBytes)
      let membership = page.isEmpty ? [] : Set(try database.membershipEvents().filter { $0.origin == me }.map(\.sequence))
      return (page, membership)
    }
    guard !page.isEmpty else { return ([], nil) }
    guard let cipher = keys.current else { throw RelayError.notInAGroup }
    var sealedPage: [SealedEvent] = [], unpushed: String?
    for event in page {
      let sealed: SealedEvent
      do {
        sealed = try cipher.seal(event.bytes, origin: me, sequence: event.sequence, isMembership: membership.contains(event.sequence))
      } catch let noKey as RelayEventCipher.NoKey {
        unpushed = RelayError.noGroupKey(noKey.reason).description
        break
      }
      guard sealed.sealed.count <= session.maxEventBytes else {
        throw RelayError.eventTooLarge(event: "\(me.shortDescription):\(event.sequence)", size: sealed.sealed.count, limit: session.maxEventBytes)
      }
      sealedPage.append(sealed)
    }
    // Signed for relays (on all cores), and kept: a peer this device syncs
    // with over TCP or a folder forwards them with the same signatures.
    let (group, key) = (self.group, self.key)
    let signed = sealedPage.concurrentMap { EventRoute.signed($0, group: group, key: key) }
    let routes = signed.compactMap { event in
      RelayEventCipher.epoch(of: event.sealed).map { StoredEventRoute(origin: me, sequence: event.sequence, epoch: $0, signature: event.route) }
    }
    try await offload { [database] in try database.saveEventRoutes(routes, own: true) }
    return (signed, unpushed)
  }

  /// Receives the pull: applies events in batches until the relay has sent
  /// all it held (then returns, unless watching: then applies each message
  /// as it arrives, until the connection ends).
  ///
  /// An event that does not open is recorded as refused (by the origin and
  /// sequence the relay routed it by, which nothing proves: it is not
  /// counted as held) and the rest applies without it. One sealed with the
  /// key of an epoch this device holds no grant of waits: each applied batch
  /// may carry the grant (a revocation's new epoch, a share), and it is
  /// opened then; what still waits when the relay has sent all it held is
  /// recorded as refused (asked for again at the next sync).
  private func receive(
    _ incoming: inout Incoming, into report: inout RelaySyncReport, holdings: RelayHoldings, live: RelayTransport.LiveHooks?
  ) async throws {
    var pending = Received(), caughtUp = false
    var awaitingKey: [(event: SealedEvent, epoch: MembershipHash)] = [], awaitingBytes = 0
    let source = "relay:\(url)"
    /// Applies what is pending, then what the keys it brought open.
    func flush() async throws -> MergeReport {
      var merged = try await apply(pending, source: source)
      pending = Received()
      guard !awaitingKey.isEmpty else { return merged }
      try await keys.refresh(database)
      let waiting = awaitingKey
      awaitingKey = []
      awaitingBytes = 0
      for (event, _) in waiting { open(event) }
      if !pending.isEmpty {
        merged.add(try await apply(pending, source: source))
        pending = Received()
      }
      return merged
    }
    func open(_ event: SealedEvent) {
      let routed = EventID(origin: event.origin, sequence: event.sequence)
      guard let cipher = keys.current else {
        pending.unreadable.append((routed, "this device holds none of its group's keys", event.sealed.count))
        return
      }
      do throws(RelayEventCipher.OpenFailure) {
        let bytes = try cipher.open(event)
        // The seal binds the origin and sequence the relay routed it by;
        // the event inside must name the same.
        guard let named = EventCodec.eventID(of: bytes), named == routed else {
          let found = EventCodec.eventID(of: bytes).map { "names \($0)" } ?? "does not read"
          pending.unreadable.append((routed, "it opens, but the event inside \(found): its writer sealed a damaged or foreign event", event.sealed.count))
          return
        }
        pending.events.append(bytes)
        pending.bytes += bytes.count
        if let epoch = RelayEventCipher.epoch(of: event.sealed), event.route.count == EventRoute.signatureSize {
          pending.routes.append(StoredEventRoute(origin: event.origin, sequence: event.sequence, epoch: epoch, signature: event.route))
        }
      } catch {
        switch error {
        case .keyNotHeld(let epoch):
          // Bounded: beyond, it is recorded at once (and asked for again).
          if awaitingKey.count < configuration.applyBatchEvents * 10, awaitingBytes < configuration.applyBatchBytes * 64 {
            awaitingKey.append((event, epoch))
            awaitingBytes += event.sealed.count
          } else {
            pending.unreadable.append((routed, Self.keyNotHeld(epoch), event.sealed.count))
          }
        case .unreadable(let reason):
          pending.unreadable.append((routed, reason, event.sealed.count))
        }
      }
    }
    while true {
      let message = try await incoming.next("events", within: caughtUp ? nil : configuration.responseTimeout)
      switch message {
      case .events(let sealed):
        for event in sealed {
          holdings.raise(event.origin, to: event.sequence)
          open(event)
        }
        if caughtUp || pending.bytes >= configuration.applyBatchBytes || pending.events.count >= configuration.applyBatchEvents {
          let merged = try await flush()
          report.received.add(merged)
          if caughtUp { live?.applied(merged) }
        }
      case .routes(let routes):
        // Asked for with the pull: routes of events this device holds, to forward them.
        guard !caughtUp else { throw unexpected(message, waitingFor: "events") }
        try await offload { [database] in try database.saveEventRoutes(routes) }
      case .caughtUp:
        guard !caughtUp else { throw unexpected(message, waitingFor: "events") }
        if !pending.isEmpty || !awaitingKey.isEmpty {
          report.received.add(try await flush())
        }
        // Still without a key: refused for now, asked for again next time.
        for (event, epoch) in awaitingKey {
          pending.unreadable.append((EventID(origin: event.origin, sequence: event.sequence), Self.keyNotHeld(epoch), event.sealed.count))
        }
        awaitingKey = []
        awaitingBytes = 0
        if !pending.isEmpty {
          report.received.add(try await apply(pending, source: source))
          pending = Received()
        }
        caughtUp = true
        guard let live else { return }
        live.caughtUp(report.sentEvents, report.received)
      case .stored(_, let new):
        // The answer to a push made while watching.
        guard live != nil else { throw unexpected(message, waitingFor: "events") }
        if new > 0 {
          report.sentEvents += new
          live?.pushed(new)
        }
      default:
        throw unexpected(message, waitingFor: "events")
      }
    }
  }

  private static func keyNotHeld(_ epoch: MembershipHash) -> String {
    "it is sealed with the key of the group's epoch \(epoch), which this device was not granted: an admin's device shares it with every active member when it next syncs (a device revoked before that epoch is never granted it)"
  }

  /// Events received and not applied yet.
  private struct Received {
    var events: [[UInt8]] = []
    var bytes = 0
    var unreadable: [(id: EventID, reason: String, bytes: Int)] = []
    /// The origins' signatures of the events, to forward them on.
    var routes: [StoredEventRoute] = []
    var isEmpty: Bool { events.isEmpty && unreadable.isEmpty }
  }

  private func apply(_ received: Received, source: String) async throws -> MergeReport {
    guard !received.isEmpty else { return MergeReport() }
    return try await offload { [database] in
      var report = received.events.isEmpty ? MergeReport() : try database.applyRemote(serializedEvents: received.events, source: source)
      report.refused += try database.recordUnreadableEvents(received.unreadable, source: source)
      try database.saveEventRoutes(received.routes)
      return report
    }
  }

  func unexpected(_ message: RelayMessage, waitingFor what: String) -> RelayError {
    .protocolViolation(relay: url, reason: "it sent a \(message.name) while this device waited for \(what)")
  }

  /// The error to report for `error`, which ended the session.
  func relayError(_ error: any Error, link: RelayLink) -> any Error {
    switch error {
    case let timeout as RelayLink.Timeout:
      return RelayError.timedOut(relay: url, waitingFor: timeout.what, seconds: timeout.limit.seconds)
    case let malformed as RelayLink.Malformed:
      return RelayError.protocolViolation(relay: url, reason: malformed.reason)
    case is RelayError, is SyncError, is CancellationError, is ChronicleError:
      return error
    default:
      if let timeout = link.timedOut {
        return RelayError.timedOut(relay: url, waitingFor: timeout.what, seconds: timeout.limit.seconds)
      }
      return RelayError.connectionClosed(relay: url, waitingFor: "the session to finish (\(error))")
    }
  }
}
