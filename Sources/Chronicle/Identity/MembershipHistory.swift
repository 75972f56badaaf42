import Foundation

/// A group's membership events, and the one function from them to its member
/// list (``resolve()``), which devices (from their logs) and the relay (from
/// its store) share.
///
/// The events form a graph: each names the membership events its writer had
/// applied (``MembershipChange/builtOn(_:)``), back to the group's creation.
/// Resolution depends on the set of events only, never on arrival order:
///
/// 1. The creation is the root. Every creation of a group's id is the same
///    (the id is derived from the founder, a nonce and the founding members),
///    so a founder that sends it again, revoked or not, changes nothing.
/// 2. An event is applied once every event it builds on is known; until then
///    it waits, and stops nothing else.
/// 3. Events are applied in one fixed order that follows the links: by depth
///    in the graph, then revocations before role changes before the rest,
///    then the founder's first, then by hash.
/// 4. Only an active admin changes the member list, signing with the key it
///    was added with. The last admin cannot be revoked or demoted. An
///    invitation admits one device; a withdrawn one admits none.
/// 5. A revocation beats the revoked device's changes that its writer had
///    not seen (concurrent ones as well as later ones): they are void, and
///    the order is applied again without them, until the void changes are
///    the ones the last pass's revocations make void (passes that cycle end
///    in the smallest fixpoint above the union of the cycle's sets). Of two
///    admins that revoke or demote each other, neither seeing the other's
///    change, the one that joined first wins (the founder, the founding
///    members, then by the place in the history of the change that added
///    each): a revoked admin cannot undo its revocation by writing a
///    revocation of its revoker on older history.
/// 6. A revocation cuts off none of its target's membership events that it
///    builds on, whatever cut-off it names.
///
/// The passes are ``Fold`` (MembershipHistory+Fold.swift); what each change
/// does to the list is in GroupState+Changes.swift.
package struct MembershipHistory: Sendable {
  package let group: UUID
  package private(set) var events: [MembershipHash: MembershipEvent] = [:]

  package init(group: UUID, events: some Sequence<MembershipEvent> = [MembershipEvent]()) {
    self.group = group
    for event in events { self.events[event.hash] = event }
  }

  /// Adds an event; false when the history held it already.
  @discardableResult
  package mutating func insert(_ event: MembershipEvent) -> Bool {
    guard events[event.hash] == nil else { return false }
    events[event.hash] = event
    return true
  }

  package func contains(_ hash: MembershipHash) -> Bool { events[hash] != nil }

  /// The member list these events make.
  package func resolve() -> GroupState {
    var state = GroupState(group: group)
    var requests: [MembershipEvent] = []
    var creations: [MembershipEvent] = []
    var changes: [MembershipHash: MembershipEvent] = [:]
    for (hash, event) in events {
      if event.joinRequest != nil {
        requests.append(event)
      } else if event.changes.count == 1, case .join = event.changes[0], event.parents == nil {
        state.refused[hash] = "its proof does not show that its writer holds the invitation's secret (lifted from another device's request)"
      } else if event.changes.contains(where: \.isCreation) {
        if let problem = creationProblem(event) { state.refused[hash] = problem } else { creations.append(event) }
      } else if let problem = shapeProblem(event) {
        state.refused[hash] = problem
      } else {
        changes[hash] = event
      }
    }
    // Every valid creation of the id names the same members; the first the
    // founder wrote (the one every member holds) gives the clocks.
    guard let creation = creations.min(by: { ($0.sequence, $0.hash) < ($1.sequence, $1.hash) }) else {
      state.waiting = Set(changes.keys)
      return state
    }
    let roots = Set(creations.map(\.hash))
    let depths = Self.depths(of: changes, roots: roots)
    state.waiting = Set(changes.keys).subtracting(depths.keys)
    let founder = creation.origin
    let ordered = changes.values.filter { depths[$0.hash] != nil }.sorted { a, b in
      (depths[a.hash]!, a.orderClass, a.origin == founder ? 0 : 1, a.hash) < (depths[b.hash]!, b.orderClass, b.origin == founder ? 0 : 1, b.hash)
    }

    var genesis = state
    genesis.apply(creation: creation)
    var fold = Fold(ordered: ordered, depths: depths, genesis: genesis, ancestors: AncestorCache(events: events))
    // The void events (changes a revocation beats) are found again after
    // each pass, from that pass's revocations alone: one voided by a
    // revocation that turns out void itself comes back. Should the passes
    // cycle, every event void in any pass of the cycle stays void, and the
    // set then only grows until no applied revocation beats an applied
    // change: a fixpoint either way, the same for the same events.
    var void: [MembershipHash: String] = [:]
    var tried: Set<Set<MembershipHash>> = [[]]
    var union: [MembershipHash: String] = [:]
    var growing = false
    var resolved = fold.run(void: void)
    while true {
      var next = fold.voided(by: resolved)
      if growing { next.merge(void) { kept, _ in kept } }
      if Set(next.keys) == Set(void.keys) { break }
      union.merge(next) { kept, _ in kept }
      if !growing, !tried.insert(Set(next.keys)).inserted || tried.count > ordered.count + 2 {
        growing = true
        next = union
      }
      void = next
      resolved = fold.run(void: void)
    }

    // Heads: the applied events (and the creation) no applied event builds on.
    let complete = Set(resolved.applied).union([creation.hash])
    var named: Set<MembershipHash> = []
    for hash in complete { named.formUnion(events[hash]?.parents ?? []) }
    resolved.heads = complete.subtracting(named).sorted()
    resolved.joinRequests = requests.sorted { $0.hash < $1.hash }.compactMap(resolved.pendingRequest)
    resolved.collectUnappliedGrants(from: changes.values, applied: complete)
    return resolved
  }

  /// Why a creation is not this group's root; nil when it is.
  private func creationProblem(_ event: MembershipEvent) -> String? {
    guard event.changes.count == 1, case .createGroup(let id, let nonce, let founders) = event.changes[0], event.parents?.isEmpty ?? true else {
      return "a group's creation carries nothing else and builds on nothing"
    }
    guard id == group else { return "it creates another group (\(id.uuidString.lowercased()))" }
    guard MembershipChange.groupID(founder: event.origin, nonce: nonce, founders: founders) == id else {
      return "device \(event.origin) did not create this group (its id is not derived from that device, the nonce and the founding members)"
    }
    guard event.origin.isKeyDerived else {
      return "its founder's id \(event.origin) is not derived from a key, so nothing proves which key may act for it"
    }
    return nil
  }

  /// Why an event that is neither a creation nor a join request cannot take
  /// part in the history; nil when it can.
  private func shapeProblem(_ event: MembershipEvent) -> String? {
    if event.changes.contains(where: \.isOlder) {
      return "it is a membership change of an older Chronicle, from before membership history: such groups are created anew"
    }
    if event.changes.contains(where: { if case .join = $0 { true } else { false } }) {
      return "a join request carries nothing else and builds on nothing"
    }
    guard event.parents != nil else { return "it names no membership events it builds on" }
    return nil
  }

  /// The depth of each change whose every ancestor is known (roots at 0),
  /// by the longest path: a change waits while any event it names is
  /// missing or waits.
  private static func depths(of changes: [MembershipHash: MembershipEvent], roots: Set<MembershipHash>) -> [MembershipHash: Int] {
    var depths: [MembershipHash: Int] = [:]
    for root in roots { depths[root] = 0 }
    var waiting: Set<MembershipHash> = []
    for start in changes.keys where depths[start] == nil && !waiting.contains(start) {
      // Depth-first without recursion: a stack of (event, parents still to look at).
      var stack: [(hash: MembershipHash, next: Int)] = [(start, 0)]
      var onStack: Set<MembershipHash> = [start]
      while let (hash, next) = stack.last {
        let parents = changes[hash]!.parents ?? []
        if next < parents.count {
          stack[stack.count - 1].next += 1
          let parent = parents[next]
          if depths[parent] != nil { continue }
          if waiting.contains(parent) || changes[parent] == nil || onStack.contains(parent) {
            // A missing parent (or a cycle, which hashes make impossible): everything on the stack waits.
            for (held, _) in stack { waiting.insert(held) }
            onStack.removeAll()
            stack.removeAll()
            break
          }
          stack.append((parent, 0))
          onStack.insert(parent)
        } else {
          depths[hash] = 1 + (parents.map { depths[$0]! }.max() ?? 0)
          onStack.remove(hash)
          stack.removeLast()
        }
      }
    }
    for root in roots { depths.removeValue(forKey: root) }
    return depths
  }
}
