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

  /// For a reader that was made one from a writer or an admin: the last of
  /// its events the demoting admin had. Its row changes up to it, made
  /// while it could write, are taken; those after it are refused. Nil for a
  /// member that writes, and for a reader that never wrote (or was demoted
  /// by a Chronicle before demotions named one).
  public var demotedAfterSequence: UInt64?
  /// Digests of its events as the demoting admin held them, as a
  /// revocation names them: its events up to them are taken only when they
  /// lead to them.
  public var demotedCheckpoints: [HistoryCheckpoint] = []

  /// Whether its event at `sequence` may change rows: it writes, or it was
  /// a writer when it wrote that event (at or before its demotion's cut-off).
  package func mayWrite(at sequence: UInt64) -> Bool {
    role.writes || demotedAfterSequence.map { sequence <= $0 } == true
  }

  /// The checkpoints its events are checked against: its revocation's when
  /// revoked, else its demotion's while it is a reader (its key could sign
  /// other contents for the events it wrote before).
  var checkpoints: [HistoryCheckpoint] {
    if revokedBy != nil { return revokedCheckpoints }
    return role.writes ? [] : demotedCheckpoints
  }

  /// The sequence of its last checkpoint (``checkpoints``), when there is
  /// one: its events up to it are checked along their chain.
  var lastCheckpoint: UInt64? { checkpoints.map(\.sequence).max() }

  /// Whether it is still a member (not revoked).
  public var isActive: Bool { revokedBy == nil }
  /// Whether it may change the member list.
  public var isActiveAdmin: Bool { isActive && role == .admin }
}
