import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

/// Same membership events, same member list: devices invite, join (with
/// invitations used twice, some expired), revoke, change roles and sync in
/// random pairs; then every device and a relay's roster, given the same
/// events in other orders, list the same members with the same roles.
@Suite("Devices: membership converges")
struct MembershipConvergenceTests {
  @Test(arguments: Array(1...16) as [UInt64])
  func everyDeviceAndTheRelayListTheSameMembers(seed: UInt64) async throws {
    try await offThePool { try Self.run(seed: seed) }
  }

  struct Listed: Equatable, CustomStringConvertible {
    var device: PeerID
    var role: MemberRole
    var revokedAfter: UInt64?
    var description: String { "\(device.shortDescription) \(role)\(revokedAfter.map { " revoked after :\($0)" } ?? "")" }
  }

  static func listing(_ members: some Sequence<GroupMember>) -> [Listed] {
    members.map { Listed(device: $0.device, role: $0.role, revokedAfter: $0.isActive ? nil : $0.revokedAfterSequence ?? 0) }
      .sorted { $0.device < $1.device }
  }

  static func run(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let devices = try (0..<8).map { try openSyncPeer(directory, name: "d\($0).sqlite", clock: clock) }
    let group = try devices[0].createGroup()
    // Two more members to start with (an admin and a writer); the others start outside.
    for (device, role) in [(devices[1], MemberRole.admin), (devices[2], .writer)] {
      try device.join(try devices[0].invite(as: role))
      try push(device, to: devices[0])
    }
    for device in devices[1...2] { try push(devices[0], to: device) }

    func isAdmin(_ device: ChronicleDatabase) throws -> Bool {
      try device.members().contains { $0.device == device.peerID && $0.isActiveAdmin }
    }
    var invitations: [Invitation] = []
    var actions = 0, refusals = 0
    for _ in 0..<120 {
      clock.advance(by: UInt64.random(in: 1...20_000, using: &random))
      let actor = devices.randomElement(using: &random)!
      let target = devices.randomElement(using: &random)!
      do {
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1:
          guard try isAdmin(actor) else { continue }
          let lifetime = Int64.random(in: 30...600, using: &random)
          invitations.append(try actor.invite(as: MemberRole.allCases.randomElement(using: &random)!, expiresIn: .seconds(lifetime)))
        case 2:
          guard let invitation = invitations.randomElement(using: &random) else { continue }
          try actor.join(invitation)
        case 3:
          guard try isAdmin(actor), try actor.members().contains(where: { $0.device == target.peerID && $0.isActive }) else { continue }
          try actor.revoke(target.peerID)
        case 4:
          guard try isAdmin(actor), try actor.members().contains(where: { $0.device == target.peerID && $0.isActive }) else { continue }
          try actor.changeRole(of: target.peerID, to: MemberRole.allCases.randomElement(using: &random)!)
        default:
          guard actor !== target else { continue }
          try push(actor, to: target)
        }
        actions += 1
      } catch {
        // An expired or used invitation, the last admin, a revoked device's
        // events refused whole: all expected here.
        refusals += 1
      }
    }

    // Every membership event any device holds, and each device's own.
    var all: [MembershipHash: MembershipEvent] = [:]
    for device in devices {
      for event in try device.membershipEvents() { all[event.hash] = event }
      for bytes in try device.serializedEvents(beyond: VersionVector()) {
        if let event = try? MembershipEvent(verifying: bytes) { all[event.hash] = event }
      }
    }
    let events = Array(all.values)
    let reference = MembershipHistory(group: group, events: events).resolve()
    #expect(reference.isCreated, "seed \(seed)")
    #expect(!reference.activeAdmins.isEmpty, "seed \(seed): no admin left")
    let admitted = reference.members.values.compactMap(\.invitation)
    #expect(Set(admitted).count == admitted.count, "seed \(seed): an invitation admitted two devices")

    // The relay, given them in two other orders, in pieces.
    for order in 0..<2 {
      var roster = GroupRoster(group: group)
      var shuffled = events.shuffled(using: &random)
      while !shuffled.isEmpty {
        let piece = Int.random(in: 1...max(1, shuffled.count), using: &random)
        roster.add(Array(shuffled.prefix(piece)))
        shuffled.removeFirst(piece)
      }
      #expect(listing(roster.members.values) == listing(reference.members.values), "seed \(seed), relay order \(order)")
    }
    // Each device, given what it lacks, in its own order.
    for (index, device) in devices.enumerated() {
      try device.write { db in
        let membership = GroupMembership(db: db)
        try membership.enter(group)
        for event in events.shuffled(using: &random) {
          try membership.store(event)
          if Bool.random(using: &random) { try membership.resolve() }
        }
        try membership.resolve()
      }
      let listed = listing(try device.members())
      #expect(listed == listing(reference.members.values), "seed \(seed): device \(index) lists \(listed), the reference \(listing(reference.members.values))")
    }
    print(
      "membership seed \(seed): \(events.count) membership events (\(reference.applied.count) applied, \(reference.refused.count) refused),"
        + " \(actions) actions, \(refusals) refused, members: \(listing(reference.members.values))")
    #expect(reference.members.count >= 3, "seed \(seed)")
  }
}
