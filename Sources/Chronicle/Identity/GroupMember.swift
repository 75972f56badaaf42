import Foundation

/// A device of a group, as ``ChronicleLogSource/members()`` lists it.
public struct GroupMember: Sendable, Equatable {
  /// How a device became a member.
  public enum Admission: String, Sendable {
    /// It created the group.
    case founder
    /// Its events were in the founder's log when the group was created.
    case founding
    /// An admin added its key.
    case added
    /// An admin's device admitted it with an invitation.
    case invitation
  }

  public var device: PeerID
  /// Nil for a founding member whose events are all from before device keys.
  public var publicKey: [UInt8]?
  /// What it may do.
  public var role: MemberRole
  /// Who added it; nil for the founder.
  public var addedBy: PeerID?
  /// The clock reading of the event that added it.
  public var addedAt: HLCTimestamp
  public var admission: Admission
  /// The invitation it was admitted with.
  public var invitation: UUID?
  /// Who revoked it, when, and the last of its events that stays accepted.
  public var revokedBy: PeerID?
  public var revokedAt: HLCTimestamp?
  public var revokedAfterSequence: UInt64?
  /// Digests of the revoked device's events as its revoker held them (the
  /// last one, and others on the way): its events up to them are taken
  /// only when they lead to them (``HistoryCheckpoint``).
  public var revokedCheckpoints: [HistoryCheckpoint] = []

  /// The sequence of its last revocation checkpoint, when it is revoked
  /// and its revocation names any: its events up to it are checked along
  /// their chain.
  var lastRevokedCheckpoint: UInt64? { revokedBy == nil ? nil : revokedCheckpoints.map(\.sequence).max() }

  /// Whether it is still a member (not revoked).
  public var isActive: Bool { revokedBy == nil }
  /// Whether it may change the member list.
  public var isActiveAdmin: Bool { isActive && role == .admin }
}
