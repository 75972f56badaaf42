import Chronicle
import ChronicleNetwork
import Foundation

/// Sends a device the group's events it lacks: those stored when it asked
/// (found from its version vector), then, when it watches, each new one as
/// it is stored. Reads the store a page at a time: memory stays flat however
/// long the log. Events a revoked device wrote after its revocation are not
/// sent (every member refuses them), and a watching device that is revoked
/// is disconnected, told why.
struct RelayPull {
  let relay: RelayCore
  let link: RelayLink
  let group: UUID
  let device: PeerID
  let publicKey: [UInt8]

  func run(beyond vector: VersionVector, wants: [RouteWant] = [], watching: AsyncStream<Void>?) async throws {
    let store = relay.store
    var generation = relay.hub.membershipGeneration(group)
    var members = try await RelayMembers.load(group, from: store)
    // A revocation stored after the device was admitted but before this
    // pull read the generation woke no one this loop will see: check now.
    if let problem = members.refusal(of: device, publicKey: publicKey) {
      throw RelaySession.Refusal(kind: "revoked_while_connected", message: problem)
    }
    // The routes the device asked for (of events it holds and would forward), first.
    var routes: [StoredEventRoute] = []
    for want in wants where routes.count < RouteWant.maxAnswered && members.admits(want.origin, sequence: want.from) {
      routes += try await store.routes(
        of: want.origin, from: want.from, through: want.through, in: group, limit: RouteWant.maxAnswered - routes.count)
    }
    if !routes.isEmpty { try await link.send(.routes(routes)) }
    let last = try await store.lastPosition(of: group)
    var position = try await store.position(before: vector, in: group) ?? last
    while position < last {
      let page = try await store.events(of: group, after: position, through: last, limit: 1_000, maxBytes: relay.configuration.pageBytes)
      guard let end = page.last else { break }
      position = end.position
      try await send(page.map(\.event).filter {
        !vector.contains(origin: $0.origin, sequence: $0.sequence) && members.admits($0.origin, sequence: $0.sequence)
      })
    }
    try await link.send(.caughtUp)
    guard let watching else { return }
    position = last
    for await _ in watching {
      let current = relay.hub.membershipGeneration(group)
      if current != generation {
        generation = current
        members = try await RelayMembers.load(group, from: store)
        if let problem = members.refusal(of: device, publicKey: publicKey) {
          throw RelaySession.Refusal(kind: "revoked_while_connected", message: problem)
        }
      }
      while true {
        let page = try await store.events(of: group, after: position, through: nil, limit: 1_000, maxBytes: relay.configuration.pageBytes)
        guard let end = page.last else { break }
        position = end.position
        try await send(page.map(\.event).filter { $0.origin != device && members.admits($0.origin, sequence: $0.sequence) })
      }
    }
  }

  private func send(_ events: [SealedEvent]) async throws {
    guard !events.isEmpty else { return }
    try await link.send(.events(events))
    relay.metrics.eventsOut.increment(by: events.count)
    relay.metrics.bytesOut.increment(by: events.reduce(0) { $0 + $1.sealed.count })
  }
}
