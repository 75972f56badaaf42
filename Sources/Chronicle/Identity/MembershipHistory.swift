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
///    the ones the last pass's revocations make void. Of two admins that
///    revoke each other, neither seeing the other's revocation, the one that
///    joined first wins (the founder, the founding members, then by the
///    place in the history of the change that added each): a revoked admin
///    cannot undo its revocation by writing a revocation of its revoker on
///    older history.
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
    // cycle, every event void in any pass of the cycle stays void.
    var void: [MembershipHash: String] = [:]
    var tried: Set<Set<MembershipHash>> = [[]]
    var union: [MembershipHash: String] = [:]
    var resolved = fold.run(void: void)
    while true {
      let next = fold.voided(by: resolved)
      if Set(next.keys) == Set(void.keys) { break }
      union.merge(next) { first, _ in first }
      if !tried.insert(Set(next.keys)).inserted || tried.count > ordered.count + 2 {
        void = union
        resolved = fold.run(void: void)
        break
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
    return resolved
  }

  /// One pass over the ordered changes, and what it makes void.
  private struct Fold {
    let ordered: [MembershipEvent]
    let depths: [MembershipHash: Int]
    let genesis: GroupState
    var ancestors: AncestorCache
    /// Each device's changes, applied or not.
    private let writtenBy: [PeerID: [MembershipHash]]
    /// The applied revocations of each device in the last pass.
    private var revocations: [PeerID: [MembershipEvent]] = [:]
    /// The applied change that last took each device's admin rights away
    /// (a revocation or another role).
    private var disabledBy: [PeerID: MembershipEvent] = [:]
    /// Changes refused in the last pass because their writer had lost its
    /// admin rights to a change of the very device they act against: a
    /// revocation or demotion each way.
    private var mutual: [(refused: MembershipEvent, by: MembershipEvent)] = []
    /// Who joined first: the founder, then the founding members, then by
    /// the depth and hash of the change that added each (made by an admin,
    /// so no device can move its own place).
    private var seniority: [PeerID: [UInt8]] = [:]

    init(ordered: [MembershipEvent], depths: [MembershipHash: Int], genesis: GroupState, ancestors: AncestorCache) {
      self.ordered = ordered
      self.depths = depths
      self.genesis = genesis
      self.ancestors = ancestors
      var writtenBy: [PeerID: [MembershipHash]] = [:]
      for event in ordered { writtenBy[event.origin, default: []].append(event.hash) }
      self.writtenBy = writtenBy
    }

    mutating func run(void: [MembershipHash: String]) -> GroupState {
      var state = genesis
      revocations = [:]
      disabledBy = [:]
      mutual = []
      seniority = [:]
      for member in genesis.members.values {
        seniority[member.device] = member.admission == .founder ? [0] : [1] + member.device.bytes
      }
      for event in ordered {
        if let reason = void[event.hash] {
          state.refused[event.hash] = reason
          continue
        }
        do {
          try state.apply(event, cutOffFloors: cutOffFloors(of: event))
          state.applied.append(event.hash)
          for change in event.changes {
            switch change {
            case .revoke(let device, _):
              revocations[device, default: []].append(event)
              disabledBy[device] = event
            case .changeRole(let device, let role) where role != .admin:
              disabledBy[device] = event
            case .add(let device, _, _, _):
              seniority[device] = [2] + Self.bigEndian(depths[event.hash] ?? 0) + event.hash.bytes
            default: break
            }
          }
        } catch {
          state.refused[event.hash] = error.description
          if state.members[event.origin]?.isActiveAdmin == false, let disabling = disabledBy[event.origin],
             event.actsAgainst(disabling.origin)
          {
            mutual.append((event, disabling))
          }
        }
      }
      return state
    }

    /// The changes the last pass's revocations beat: a revoked device's
    /// changes its revocation's writer had not seen, and, of two admins that
    /// revoked or demoted each other without either seeing the other's
    /// change, the one who joined later's.
    /// For each device `event` revokes, the highest sequence of that
    /// device's membership events it builds on: a revocation cuts off no
    /// event its writer had applied (a cut-off of 0 from a device that saw
    /// its target's events is read as that sequence).
    private mutating func cutOffFloors(of event: MembershipEvent) -> [PeerID: UInt64] {
      var floors: [PeerID: UInt64] = [:]
      for case .revoke(let device, _) in event.changes { floors[device] = 0 }
      guard !floors.isEmpty else { return [:] }
      for hash in ancestors.of(event.hash) {
        guard let ancestor = ancestors.events[hash], let floor = floors[ancestor.origin] else { continue }
        floors[ancestor.origin] = max(floor, ancestor.sequence)
      }
      return floors
    }

    mutating func voided(by state: GroupState) -> [MembershipHash: String] {
      var void: [MembershipHash: String] = [:]
      // Mutual acts first: the loser's revocation voids nothing.
      for (refused, disabling) in mutual {
        guard !ancestors.of(refused.hash).contains(disabling.hash), !ancestors.of(disabling.hash).contains(refused.hash),
              let senior = seniority[refused.origin], let junior = seniority[disabling.origin],
              senior.lexicographicallyPrecedes(junior)
        else { continue }
        void[disabling.hash] = void[disabling.hash]
          ?? "its writer \(disabling.origin.shortDescription) and \(refused.origin.shortDescription) acted against each other concurrently, and \(refused.origin.shortDescription) joined first"
      }
      for (device, revokingEvents) in revocations {
        for hash in writtenBy[device] ?? [] where void[hash] == nil {
          guard let revocation = revokingEvents.first(where: {
            void[$0.hash] == nil && $0.hash != hash && !ancestors.of($0.hash).contains(hash)
          }) else { continue }
          void[hash] = "its writer \(device.shortDescription) was revoked by \(revocation.origin.shortDescription) (\(revocation.hash)), which had not seen it"
        }
      }
      return void
    }

    private static func bigEndian(_ value: Int) -> [UInt8] {
      withUnsafeBytes(of: UInt64(value).bigEndian) { Array($0) }
    }
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

/// The membership events an event builds on, directly or not, computed once per event.
private struct AncestorCache {
  let events: [MembershipHash: MembershipEvent]
  var cache: [MembershipHash: Set<MembershipHash>] = [:]

  mutating func of(_ hash: MembershipHash) -> Set<MembershipHash> {
    if let known = cache[hash] { return known }
    var seen: Set<MembershipHash> = []
    var next = events[hash]?.parents ?? []
    while let parent = next.popLast() {
      guard seen.insert(parent).inserted else { continue }
      next += events[parent]?.parents ?? []
    }
    cache[hash] = seen
    return seen
  }
}

/// Why a change is not applied.
private struct MembershipRefusal: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

extension MembershipChange {
  fileprivate var isCreation: Bool { if case .createGroup = self { true } else { false } }
  fileprivate var isOlder: Bool { if case .older = self { true } else { false } }
}

extension MembershipEvent {
  /// Whether it revokes `device` or takes its admin role away.
  fileprivate func actsAgainst(_ device: PeerID) -> Bool {
    changes.contains { change in
      switch change {
      case .revoke(let target, _): target == device
      case .changeRole(let target, let role): target == device && role != .admin
      default: false
      }
    }
  }

  /// Revocations first, then role changes, then the rest, among events of one depth.
  fileprivate var orderClass: Int {
    if changes.contains(where: { if case .revoke = $0 { true } else { false } }) { return 0 }
    if changes.contains(where: { if case .changeRole = $0 { true } else { false } }) { return 1 }
    return 2
  }
}

extension GroupState {
  fileprivate mutating func apply(creation: MembershipEvent) {
    guard case .createGroup(_, _, let founders) = creation.changes[0] else { return }
    founder = creation.origin
    createdAt = creation.timestamp
    members[creation.origin] = GroupMember(
      device: creation.origin, publicKey: creation.signer, role: .admin, addedBy: nil, addedAt: creation.timestamp, admission: .founder)
    for member in founders where member.device != creation.origin && members[member.device] == nil {
      members[member.device] = GroupMember(
        device: member.device, publicKey: member.publicKey, role: .admin, addedBy: creation.origin, addedAt: creation.timestamp,
        admission: .founding)
    }
  }

  /// Applies every change of `event`, or none (throwing why).
  fileprivate mutating func apply(_ event: MembershipEvent, cutOffFloors: [PeerID: UInt64]) throws(MembershipRefusal) {
    let writer = event.origin
    guard let member = members[writer] else { throw MembershipRefusal("its writer \(writer) is not a member of this group") }
    if let by = member.revokedBy { throw MembershipRefusal("its writer \(writer) was revoked by \(by.shortDescription)") }
    guard member.role == .admin else {
      throw MembershipRefusal("its writer \(writer) is a \(member.role), and only admins change the member list")
    }
    guard member.publicKey == event.signer else {
      throw MembershipRefusal("it is signed with another key than the one its writer \(writer) was added with")
    }
    func floored(_ change: MembershipChange) -> MembershipChange {
      guard case .revoke(let device, let after) = change else { return change }
      return .revoke(device: device, afterSequence: max(after, cutOffFloors[device] ?? 0))
    }
    // A change checks everything before it changes anything: one change
    // applies in place; several apply to a copy, kept only when all apply.
    if event.changes.count == 1 {
      try apply(floored(event.changes[0]), by: writer, at: event.timestamp)
      return
    }
    var trial = self
    for change in event.changes { try trial.apply(floored(change), by: writer, at: event.timestamp) }
    self = trial
  }

  /// Whether `device` is the only active admin with a known key.
  private func isLastActiveAdmin(_ device: PeerID) -> Bool {
    !members.values.contains { $0.device != device && $0.isActiveAdmin && $0.publicKey != nil }
  }

  private mutating func apply(_ change: MembershipChange, by writer: PeerID, at timestamp: HLCTimestamp) throws(MembershipRefusal) {
    switch change {
    case .add(let device, let publicKey, let role, let invitation):
      if device.isKeyDerived, PeerID(publicKey: publicKey) != device {
        throw MembershipRefusal("the key it adds is not the key device \(device) is derived from")
      }
      if let existing = members[device] {
        throw MembershipRefusal(existing.isActive ? "device \(device) is a member already" : "device \(device) was revoked, and is not added again")
      }
      if let invitation {
        if let by = usedInvitations[invitation] {
          throw MembershipRefusal("invitation \(invitation.uuidString.lowercased()) admitted a device already (\(by.shortDescription)); it admits one")
        }
        if withdrawnInvitations.contains(invitation) {
          throw MembershipRefusal("invitation \(invitation.uuidString.lowercased()) was withdrawn")
        }
        usedInvitations[invitation] = device
      }
      members[device] = GroupMember(
        device: device, publicKey: publicKey, role: role, addedBy: writer, addedAt: timestamp,
        admission: invitation == nil ? .added : .invitation, invitation: invitation)
    case .revoke(let device, let afterSequence):
      guard var member = members[device] else { throw MembershipRefusal("device \(device) is not a member") }
      if member.isActiveAdmin, isLastActiveAdmin(device) {
        throw MembershipRefusal("device \(device) is the group's last admin, and the last admin is not revoked")
      }
      member.revokedBy = member.revokedBy ?? writer
      member.revokedAt = member.revokedAt ?? timestamp
      member.revokedAfterSequence = min(afterSequence, member.revokedAfterSequence ?? .max)
      members[device] = member
    case .changeRole(let device, let role):
      guard var member = members[device], member.isActive else { throw MembershipRefusal("device \(device) is not an active member") }
      if member.role == .admin, role != .admin, isLastActiveAdmin(device) {
        throw MembershipRefusal("device \(device) is the group's last admin, and the last admin keeps its role")
      }
      member.role = role
      members[device] = member
    case .withdrawInvitation(let id):
      if let device = usedInvitations[id] {
        throw MembershipRefusal("invitation \(id.uuidString.lowercased()) admitted \(device.shortDescription) already")
      }
      withdrawnInvitations.insert(id)
    case .createGroup:
      throw MembershipRefusal("the group was created already")
    case .join, .builtOn, .older:
      throw MembershipRefusal("\(change) is not a change of an admin")
    }
  }

  /// A request an admin may admit: with a sound invitation into this group
  /// that an active admin signed, not used or withdrawn, from a device that
  /// is not a member (nor was).
  fileprivate func pendingRequest(_ event: MembershipEvent) -> JoinRequest? {
    guard let invitation = event.joinRequest, invitation.group == group, invitation.signatureProblem == nil,
          members[event.origin] == nil, usedInvitations[invitation.id] == nil, !withdrawnInvitations.contains(invitation.id),
          let inviter = members[invitation.inviter], inviter.isActiveAdmin, inviter.publicKey == invitation.inviterKey
    else { return nil }
    return JoinRequest(device: event.origin, publicKey: event.signer, invitation: invitation, event: event.hash)
  }
}
