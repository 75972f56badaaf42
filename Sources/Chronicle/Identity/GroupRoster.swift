import Foundation

/// A group's member list kept in memory from its membership events, by the
/// same rules a database's member list follows (`GroupMembership`): for a
/// relay, which stores a group's events without reading them and must still
/// know which devices belong.
package struct GroupRoster: Sendable {
  package struct Member: Sendable, Equatable {
    package var publicKey: [UInt8]?
    package var revokedAfterSequence: UInt64?
    package var isActive: Bool { revokedAfterSequence == nil }
  }

  package let group: UUID
  package private(set) var members: [PeerID: Member] = [:]
  /// The membership events applied, by id.
  package private(set) var applied: Set<EventID> = []

  package init(group: UUID) { self.group = group }

  /// Whether the group's creation is known.
  package var isCreated: Bool { !members.isEmpty }

  /// Applies what it can of `events` (any order: each waits for the ones it
  /// depends on, as a batch does in a database) and returns those applied;
  /// the others, with why, in `refused`.
  @discardableResult
  package mutating func apply(
    _ events: [MembershipEvent], refused: inout [(event: MembershipEvent, reason: String)]
  ) -> [MembershipEvent] {
    var waiting = events.filter { !applied.contains(EventID(origin: $0.origin, sequence: $0.sequence)) }
      .sorted { ($0.timestamp, $0.origin, $0.sequence) < ($1.timestamp, $1.origin, $1.sequence) }
    var done: [MembershipEvent] = []
    while !waiting.isEmpty {
      var failed: [(event: MembershipEvent, reason: String)] = []
      for event in waiting {
        var trial = self
        do {
          for change in event.changes { try trial.apply(change, by: event.origin, key: event.signer, at: event.timestamp) }
          trial.applied.insert(EventID(origin: event.origin, sequence: event.sequence))
          self = trial
          done.append(event)
        } catch {
          failed.append((event, "\(error)"))
        }
      }
      if failed.count == waiting.count {
        refused += failed
        break
      }
      waiting = failed.map(\.event)
    }
    return done
  }

  /// Why `device`, proving it holds `publicKey`, may not use the group; nil when it may.
  package func refusal(of device: PeerID, publicKey: [UInt8]) -> String? {
    if device.isKeyDerived, PeerID(publicKey: publicKey) != device {
      return "its key is not the one its peer id \(device) is derived from"
    }
    guard isCreated else {
      return "the relay does not know group \(group.uuidString.lowercased()) yet: a member must sync with it first (its events say who belongs)"
    }
    guard let member = members[device] else {
      return "device \(device) is not a member of group \(group.uuidString.lowercased()): join with an invitation (chronicle join), then sync"
    }
    guard member.publicKey == publicKey else {
      return member.publicKey == nil
        ? "device \(device) is a member from before device keys; a member must add its key (chronicle group add) before it can use a relay"
        : "its key is not the one member \(device) was added with"
    }
    guard member.isActive else { return "device \(device) was revoked from this group" }
    return nil
  }

  private struct Refusal: Error, CustomStringConvertible {
    var description: String
  }

  private mutating func apply(_ change: MembershipChange, by writer: PeerID, key: [UInt8], at timestamp: HLCTimestamp) throws {
    switch change {
    case .createGroup(let id, let nonce, let founders):
      guard id == group else { throw Refusal(description: "it creates another group (\(id.uuidString.lowercased()))") }
      guard MembershipChange.groupID(founder: writer, nonce: nonce) == id else {
        throw Refusal(description: "device \(writer) did not create this group (its id is not derived from that device's)")
      }
      record(writer, key: key)
      for founder in founders where founder.device != writer { record(founder.device, key: founder.publicKey) }
    case .add(let device, let publicKey):
      try requireActive(writer)
      if device.isKeyDerived, PeerID(publicKey: publicKey) != device {
        throw Refusal(description: "the key it adds is not the key device \(device) is derived from")
      }
      record(device, key: publicKey)
    case .join(let invitation):
      guard invitation.group == group else { throw Refusal(description: "its invitation is into another group") }
      guard invitation.isSignatureValid,
            !invitation.inviter.isKeyDerived || PeerID(publicKey: invitation.inviterKey) == invitation.inviter
      else { throw Refusal(description: "its invitation is not signed by its inviter") }
      try requireActive(invitation.inviter)
      if let known = members[invitation.inviter]?.publicKey, known != invitation.inviterKey {
        throw Refusal(description: "its invitation is signed by another key than its inviter's")
      }
      guard timestamp.date <= invitation.expires else { throw Refusal(description: "its invitation expired at \(invitation.expires)") }
      record(writer, key: key)
    case .revoke(let device, let afterSequence):
      try requireActive(writer)
      guard var member = members[device] else { throw Refusal(description: "device \(device) is not a member") }
      member.revokedAfterSequence = min(afterSequence, member.revokedAfterSequence ?? .max)
      members[device] = member
    }
  }

  private func requireActive(_ device: PeerID) throws {
    guard let member = members[device] else {
      throw Refusal(description: isCreated ? "device \(device) is not a member" : "the group's creation is not known yet")
    }
    guard member.isActive else { throw Refusal(description: "device \(device) was revoked") }
  }

  /// Adds a member, or fills in a key an earlier record left out; never undoes a revocation.
  private mutating func record(_ device: PeerID, key: [UInt8]?) {
    var member = members[device] ?? Member()
    if member.publicKey == nil { member.publicKey = key }
    members[device] = member
  }
}
