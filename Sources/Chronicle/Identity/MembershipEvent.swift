import Foundation
import GRDB

/// A signed event that carries changes of a group's member list and nothing
/// else: what a relay reads, in the clear, to know who belongs to a group
/// without being able to read any of the group's data.
package struct MembershipEvent: Sendable {
  package let origin: PeerID
  package let sequence: UInt64
  package let timestamp: HLCTimestamp
  /// The key that signed it (verified).
  package let signer: [UInt8]
  /// Its changes, without the links of ``parents``.
  package let changes: [MembershipChange]
  /// The membership events its writer had applied (``MembershipChange/builtOn(_:)``);
  /// nil when it names none (a creation, a join request, or an event of an
  /// older Chronicle).
  package let parents: [MembershipHash]?
  /// Its name in the group's history.
  package let hash: MembershipHash
  /// The serialized (signed) event.
  package let bytes: [UInt8]

  /// Why bytes are not a membership event a relay can accept.
  package enum Problem: Error, Equatable, CustomStringConvertible {
    case malformed(String)
    case unsigned
    case badSignature(String)
    case carriesData

    package var description: String {
      switch self {
      case .malformed(let reason): "it is not a valid event: \(reason)"
      case .unsigned: "it is not signed (a relay admits signed membership events only)"
      case .badSignature(let reason): reason
      case .carriesData: "it carries more than membership changes (data is sent encrypted, never in the clear)"
      }
    }
  }

  /// Decodes `bytes` and checks its signature, that the signer's key is its
  /// origin's when the origin is key-derived, and that it carries only
  /// membership changes.
  package init(verifying bytes: [UInt8]) throws(Problem) {
    try self.init(bytes, verifying: true)
  }

  /// Decodes `bytes` whose signature was checked when they were stored (by
  /// a relay, or when a log admitted them), without checking it again.
  package init(stored bytes: [UInt8]) throws(Problem) {
    try self.init(bytes, verifying: false)
  }

  /// The largest body a membership event may declare (inflated): its
  /// changes and grants take a few kilobytes even in a group of thousands,
  /// and a relay decodes membership events before it knows the device.
  package static let maxBodySize = 1 << 20

  private init(_ bytes: [UInt8], verifying: Bool) throws(Problem) {
    // The envelope and the signature first: a body is inflated (up to
    // maxBodySize) only once its signer is known.
    let header: (origin: PeerID, sequence: UInt64, timestamp: HLCTimestamp)
    do {
      header = try EventCodec.decodeHeader(bytes)
    } catch {
      throw .malformed("\(error)")
    }
    guard bytes[4] >= 2 else { throw .unsigned }
    let signer: [UInt8]
    if verifying {
      do {
        signer = try EventSignature.verifiedSigner(of: bytes)
      } catch {
        throw .badSignature(error.description)
      }
    } else {
      signer = EventSignature.embeddedSigner(of: bytes)
    }
    if header.origin.isKeyDerived, PeerID(publicKey: signer) != header.origin {
      throw .badSignature(EventSignature.Problem.notTheOriginsKey.description)
    }
    let event: ChangeEvent
    do {
      event = try EventCodec.decodeEncoded(bytes, maxBodySize: Self.maxBodySize).event
    } catch {
      throw .malformed("\(error)")
    }
    // Stores keep sequences as signed 64-bit integers.
    guard event.sequence <= UInt64(Int64.max) else { throw .malformed("its sequence \(event.sequence) is beyond 2^63 - 1") }
    guard let membership = MembershipEvent(event, signed: bytes, signer: signer) else { throw .carriesData }
    self = membership
  }

  /// The membership event that `event`, signed as `signed` by `signer`
  /// (checked by the caller), is; nil when it carries anything else.
  package init?(_ event: ChangeEvent, signed: [UInt8], signer: [UInt8]) {
    var changes: [MembershipChange] = []
    var parents: [MembershipHash]?
    for operation in event.operations {
      guard case .membership(let change) = operation else { return nil }
      if case .builtOn(let heads) = change {
        parents = (parents ?? []) + heads
      } else {
        changes.append(change)
      }
    }
    guard !changes.isEmpty else { return nil }
    origin = event.origin
    sequence = event.sequence
    timestamp = event.timestamp
    self.signer = signer
    self.changes = changes
    self.parents = parents
    hash = MembershipHash(signed: signed)
    bytes = signed
  }

  /// The group it creates or asks to join when that is not `group`; nil
  /// when it is about `group`.
  package func otherGroup(than group: UUID) -> UUID? {
    for change in changes {
      if case .createGroup(let id, _, _) = change, id != group { return id }
      if case .join(let invitation, _) = change, invitation.group != group { return invitation.group }
    }
    return nil
  }

  /// The invitation of a join request (an event whose one change is a
  /// join), when its proof holds: the writer holds the invitation's secret.
  package var joinRequest: Invitation? {
    guard changes.count == 1, case .join(let invitation, let proof) = changes[0], parents == nil,
          invitation.isProofValid(proof, device: origin, publicKey: signer)
    else { return nil }
    return invitation
  }
}

extension ChronicleDatabase {
  /// The signed events of this database's log that make its group's member
  /// list (creation, additions, join requests, role changes, revocations),
  /// in history order: what a relay needs to admit this device. Empty while
  /// in no group. Their signatures are not checked again here (the log
  /// admitted them, and the relay checks them): a watching device calls this
  /// each time its log grows.
  package func membershipEvents() throws -> [MembershipEvent] {
    try read { db in
      guard try db.tableExists("chronicle_membership_events") else { return [] }
      return try GroupMembership(db: db).storedEvents()
    }
  }
}
