import Chronicle
import Foundation
import Synchronization

extension RelayClientSession {
  /// What the relay holds of each origin, as far as this session knows:
  /// its welcome's vector, raised by what it sent and what was pushed.
  final class RelayHoldings: Sendable {
    private let vector: Mutex<VersionVector>

    init(_ vector: VersionVector) { self.vector = Mutex(vector) }

    var current: VersionVector { vector.withLock { $0 } }

    func raise(_ origin: PeerID, to sequence: UInt64) {
      vector.withLock { vector in
        if vector[origin] < sequence { vector[origin] = sequence }
      }
    }
  }

  /// The next page of other members' events this device holds and the
  /// relay lacks, sealed as their origins sealed them and with their
  /// signatures (``EventRoute``), so the relay stores them as if their
  /// origins had pushed them: a device that syncs only over TCP or a
  /// folder reaches devices that sync only through the relay.
  ///
  /// An origin's events go in order from the relay's last one, and stop at
  /// the first this device cannot forward: one without a route (its origin
  /// never signed it for relays, or it came by a path that did not carry
  /// one), sealed with an epoch this device holds no key of, or whose route
  /// does not verify (dropped, so another copy is taken). Origins the
  /// member list does not name with a key, readers' data and events written
  /// after a revocation are not forwarded: the relay would leave them out.
  func nextForwardPage(_ holdings: RelayHoldings, _ session: Pushing) async throws -> [SealedEvent] {
    guard let cipher = keys.current else { return [] }
    let me = database.peerID, relayHolds = holdings.current, group = self.group
    let budget = configuration.pushBatchBytes
    return try await offload { [database] in
      let vector = try database.versionVector()
      let lacking = vector.sequences.filter { $0.key != me && $0.value > relayHolds[$0.key] }
      guard !lacking.isEmpty else { return [] }
      let members = Dictionary(try database.members().map { ($0.device, $0) }, uniquingKeysWith: { first, _ in first })
      // Membership events travel in the clear, checked by their own signature.
      let membership = Dictionary(
        try database.membershipEvents().map { (EventID(origin: $0.origin, sequence: $0.sequence), $0.signer) }, uniquingKeysWith: { first, _ in first })
      var page: [SealedEvent] = [], size = 0
      origins: for (origin, held) in lacking.sorted(by: { $0.key < $1.key }) {
        guard let member = members[origin], let key = member.publicKey else { continue }
        let last = min(held, member.revokedAfterSequence ?? .max)
        var through = relayHolds[origin]
        while through < last {
          guard size < budget, page.count < 1_000 else { break origins }
          let wanted = min(1_000 - page.count, Int(clamping: last - through))
          let events = try database.forwardableEvents(of: origin, after: through, maxEvents: wanted, maxBytes: budget - size)
          for event in events {
            let sealed: SealedEvent
            if let signer = membership[EventID(origin: origin, sequence: event.sequence)] {
              // Signed with another key than the member's: the relay would not take it.
              guard signer == key else { continue origins }
              sealed = try cipher.seal(event.bytes, origin: origin, sequence: event.sequence, isMembership: true)
            } else {
              guard member.mayWrite(at: event.sequence) else { continue origins }
              // Without a route, sealed with an epoch this device holds no
              // key of, or with a route that does not verify (dropped, with
              // the origin's routes after it, likely come the same way): its
              // peers and relays are asked for one at the next syncs.
              let wanted = RouteWant(origin: origin, from: event.sequence, through: last)
              guard let route = event.route else {
                try database.wantRoutes(wanted)
                continue origins
              }
              var routed = try cipher.seal(event.bytes, origin: origin, sequence: event.sequence, epoch: route.epoch)
              routed?.route = route.signature
              guard let routed, EventRoute.verify(routed, group: group, publicKey: key) else {
                try database.dropEventRoutes(origin: origin, from: event.sequence)
                try database.wantRoutes(wanted)
                continue origins
              }
              sealed = routed
            }
            guard sealed.sealed.count <= session.maxEventBytes else { continue origins }
            page.append(sealed)
            size += sealed.sealed.count
            through = event.sequence
          }
          // Fewer than asked for within the budget: a gap, or the log's end.
          if events.count < wanted, size < budget { continue origins }
        }
      }
      return page
    }
  }

  /// Forwards other members' events (``forwardOthersEvents(_:_:link:incoming:)``),
  /// counted in `report`. A refusal does not fail the sync (what the
  /// device pushed and pulled stands): it is logged and in `report`, and
  /// the relay has ended the session; returns false then.
  func forward(
    _ holdings: RelayHoldings, _ session: Pushing, link: RelayLink, incoming: inout Incoming, into report: inout RelaySyncReport
  ) async throws -> Bool {
    do {
      report.sentEvents += try await forwardOthersEvents(holdings, session, link: link, incoming: &incoming)
      return true
    } catch RelayError.refused(_, let message, _) {
      configuration.logger.notice("forwarding other members' events stopped", metadata: ["reason": "\(message)"])
      report.unforwarded = message
      return false
    }
  }

  /// Pushes other members' events the relay lacks (``nextForwardPage(_:_:)``),
  /// a page at a time, each acknowledged before the next; returns how many
  /// the relay stored.
  func forwardOthersEvents(
    _ holdings: RelayHoldings, _ session: Pushing, link: RelayLink, incoming: inout Incoming
  ) async throws -> Int {
    var stored = 0
    while true {
      let page = try await nextForwardPage(holdings, session)
      guard !page.isEmpty else { return stored }
      try await link.send(.push(page))
      let answer = try await incoming.next("stored report", within: configuration.responseTimeout)
      guard case .stored(_, let new) = answer else { throw unexpected(answer, waitingFor: "a stored report") }
      stored += new
      // Raised whether or not the relay took them (it leaves out what its
      // member list does not admit): each is offered once a session.
      for event in page { holdings.raise(event.origin, to: event.sequence) }
    }
  }
}
