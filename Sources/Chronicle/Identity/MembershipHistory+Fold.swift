import Foundation

extension MembershipHistory {
  /// One pass over the ordered changes, and what it makes void.
  struct Fold {
    let ordered: [MembershipEvent]
    let depths: [MembershipHash: Int]
    let genesis: GroupState
    var ancestors: AncestorCache
    /// Each device's changes, applied or not.
    private let writtenBy: [PeerID: [MembershipHash]]
    /// The applied revocations of each device in the last pass.
    private var revocations: [PeerID: [MembershipEvent]] = [:]
    /// The applied changes that took each device's admin role away in the
    /// last pass.
    private var demotions: [PeerID: [MembershipEvent]] = [:]
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
      demotions = [:]
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
          var admins: Set<PeerID> = [], cutsOff = false
          for case .changeRole(let device, _, let after, _) in event.changes {
            if state.members[device]?.role == .admin { admins.insert(device) }
            if after != nil { cutsOff = true }
          }
          try state.apply(event, builtOn: cutsOff ? ancestors.of(event.hash) : []) { cutOffFloors(of: event) }
          state.applied.append(event.hash)
          // Admins it leaves without the role (a change that demotes and
          // promotes again in one event demotes no one).
          for device in admins where state.members[device]?.role != .admin {
            demotions[device, default: []].append(event)
          }
          for change in event.changes {
            switch change {
            case .revoke(let device, _, _):
              revocations[device, default: []].append(event)
              disabledBy[device] = event
            case .changeRole(let device, let role, _, _) where role != .admin:
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

    /// For each device `event` revokes, the highest sequence of that
    /// device's membership events it builds on: a revocation cuts off no
    /// event its writer had applied (a cut-off of 0 from a device that saw
    /// its target's events is read as that sequence).
    private mutating func cutOffFloors(of event: MembershipEvent) -> [PeerID: HistoryCheckpoint] {
      var revoked: Set<PeerID> = []
      for case .revoke(let device, _, _) in event.changes { revoked.insert(device) }
      guard !revoked.isEmpty else { return [:] }
      var floors: [PeerID: HistoryCheckpoint] = [:]
      for hash in ancestors.of(event.hash) {
        guard let ancestor = ancestors.events[hash], revoked.contains(ancestor.origin),
              ancestor.sequence > floors[ancestor.origin]?.sequence ?? 0
        else { continue }
        floors[ancestor.origin] = HistoryCheckpoint(sequence: ancestor.sequence, digest: ancestor.hash.bytes)
      }
      return floors
    }

    /// The changes the last pass's revocations and demotions beat: a
    /// revoked device's changes its revocation's writer had not seen, a
    /// demoted admin's made concurrently with its demotion (neither had
    /// seen the other: those made after it are applied or refused by the
    /// role it has then), and, of two admins that revoked or demoted each
    /// other without either seeing the other's change, the one who joined
    /// later's.
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
      // Two admins that took each other's role away concurrently, both
      // applied (one gave the other its role back, on the same older
      // history): the one who joined first wins here too, so that a junior
      // admin cannot escape its demotion that way.
      for device in demotions.keys.sorted() {
        for demotion in demotions[device]! where void[demotion.hash] == nil {
          let writer = demotion.origin
          for counter in demotions[writer] ?? [] where counter.origin == device && void[counter.hash] == nil {
            guard !ancestors.of(counter.hash).contains(demotion.hash), !ancestors.of(demotion.hash).contains(counter.hash),
                  let senior = seniority[writer], let junior = seniority[device], senior.lexicographicallyPrecedes(junior)
            else { continue }
            void[counter.hash] = "its writer \(device.shortDescription) and \(writer.shortDescription) took each other's admin role away concurrently, and \(writer.shortDescription) joined first"
          }
        }
      }
      for device in revocations.keys.sorted() {
        let revokingEvents = revocations[device]!.sorted { $0.hash < $1.hash }
        for hash in writtenBy[device] ?? [] where void[hash] == nil {
          guard let revocation = revokingEvents.first(where: {
            void[$0.hash] == nil && $0.hash != hash && !ancestors.of($0.hash).contains(hash)
          }) else { continue }
          void[hash] = "its writer \(device.shortDescription) was revoked by \(revocation.origin.shortDescription) (\(revocation.hash)), which had not seen it"
        }
      }
      // A demoted admin writing on history older than its demotion (which
      // sorts before it) changes nothing, as a revoked one does not.
      for device in demotions.keys.sorted() {
        let demoting = demotions[device]!.sorted { $0.hash < $1.hash }
        for hash in writtenBy[device] ?? [] where void[hash] == nil {
          let seen = ancestors.of(hash)
          guard let demotion = demoting.first(where: { demotion in
            void[demotion.hash] == nil && demotion.hash != hash && !seen.contains(demotion.hash)
              && !ancestors.of(demotion.hash).contains(hash)
          }) else { continue }
          void[hash] = "its writer \(device.shortDescription) lost its admin role to \(demotion.origin.shortDescription) (\(demotion.hash)), which had not seen it"
        }
      }
      return void
    }

    private static func bigEndian(_ value: Int) -> [UInt8] {
      withUnsafeBytes(of: UInt64(value).bigEndian) { Array($0) }
    }
  }
}

/// The membership events an event builds on, directly or not, computed once per event.
struct AncestorCache {
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
