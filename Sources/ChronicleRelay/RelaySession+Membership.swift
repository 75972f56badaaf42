import Chronicle
import ChronicleNetwork
import Foundation
import Logging

/// What a session does with the membership events a device brings (in its
/// hello, or later): checked, applied to the group's member list, stored
/// within the group's limit; and what a device outside the group is told.
extension RelaySession {
  /// What a device outside a group is told, whether or not the relay holds the group.
  static func strangerRefusal(_ device: PeerID, _ group: UUID) -> String {
    "device \(device) is not a member of group \(group.uuidString.lowercased()) on this relay: a group new here starts with its founder's device and a creation token from the relay's operator (chronicle relay token create; chronicle sync --relay URL --creation-token TOKEN), and its members sync after it; a device outside the group joins with an invitation (chronicle join), then syncs"
  }

  /// The refusal of a device outside the group: the same whether the
  /// relay holds the group or not, with a token or without.
  func refusingStranger(_ device: PeerID, _ group: UUID) -> Refusal {
    creationToken == nil
      ? Refusal(kind: "not_a_member", message: Self.strangerRefusal(device, group))
      : Refusal(kind: "creation_token", message: Self.spentTokenRefusal)
  }

  /// What a device bringing a creation token that starts no group is told.
  static let spentTokenRefusal =
    "the creation token it brought starts no group here: it is not one this relay's operator created, or it has started all the groups it was made for (ask the operator for another: chronicle relay token create), or the device does not found the group it names; a device joining a group the relay holds needs no token"

  /// Applies the membership events a device sent (verified first) to the
  /// group's member list and stores those that were new; then, for a hello,
  /// admits the device when the member list names it. Returns the list.
  @discardableResult
  func apply(
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
    // A device the member list does not name with the key it proved is told
    // nothing about the group, whatever it sends.
    let stranger = admitting.map { device, publicKey in roster.members[device]?.publicKey != publicKey } ?? false
    for bytes in membership {
      // Those the relay holds already (verified when stored) need no second check.
      if let known = try? MembershipEvent(stored: bytes), roster.history.contains(known.hash) { continue }
      do {
        brought.append(try MembershipEvent(verifying: bytes))
      } catch {
        if stranger, let (device, _) = admitting { throw refusingStranger(device, group) }
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
      // A plain member's own new changes are refused. A hello carries the
      // whole history the device holds (a flood it received, too): the
      // others' new events are left out, and the device still syncs.
      guard admins.contains(sender) || admitting != nil else {
        throw Refusal(
          kind: "membership_quota",
          message: "\(problem): none of the \(added.count) it sent was stored; an admin's device can still revoke whoever filled it",
          retryable: true)
      }
      relay.metrics.refused("membership_quota")
      logger.notice("membership events left out", metadata: ["reason": "\(problem)"])
      roster = try await RelayMembers.load(group, from: relay.store)
      added = roster.add(brought.filter { admins.contains($0.origin) })
    }
    if let (device, publicKey) = admitting, let problem = roster.refusal(of: device, publicKey: publicKey) {
      let awaiting = roster.state.joinRequests.contains { $0.device == device }
      // A device the member list does not name hears what it would of a
      // group the relay does not hold: nothing tells it which.
      if !awaiting, roster.members[device]?.publicKey != publicKey { throw refusingStranger(device, group) }
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
}
