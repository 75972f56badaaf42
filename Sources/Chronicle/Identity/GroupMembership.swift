import Foundation
import GRDB

/// A device of a group, as ``ChronicleDatabase/members()`` lists it.
public struct GroupMember: Sendable, Equatable {
  /// How a device became a member.
  public enum Admission: String, Sendable {
    /// It created the group.
    case founder
    /// Its events were in the founder's log when the group was created.
    case founding
    /// A member added its key.
    case added
    /// It joined with a member's invitation.
    case invitation
    /// Known from the invitation this device joined with, until the group's
    /// own events say how it became a member.
    case inviter
  }

  public var device: PeerID
  /// Nil for a founding member whose events are all from before device keys.
  public var publicKey: [UInt8]?
  /// Who added it; nil for the founder.
  public var addedBy: PeerID?
  /// The clock reading of the event that added it.
  public var addedAt: HLCTimestamp
  public var admission: Admission
  /// Who revoked it, when, and the last of its events that stays accepted.
  public var revokedBy: PeerID?
  public var revokedAt: HLCTimestamp?
  public var revokedAfterSequence: UInt64?

  /// Whether it may still write.
  public var isActive: Bool { revokedBy == nil }
}

/// The group this database belongs to (`chronicle_group`, `chronicle_members`)
/// and the rules of its member list: who may change it, and whose events are
/// admitted.
struct GroupMembership {
  let db: Database

  /// Why a change of the member list or an event is refused.
  enum Problem: Error, Equatable, CustomStringConvertible {
    case otherGroup(UUID)
    case noGroup
    case notAMember(PeerID)
    case notTheFounder(PeerID)
    case revoked(PeerID, by: PeerID, afterSequence: UInt64)
    case invitation(String)
    case keyNotTheDevices(PeerID)

    var description: String {
      switch self {
      case .otherGroup(let group): "it belongs to another group (\(group.uuidString.lowercased())) than this database's"
      case .noGroup: "it changes the member list of a group this database has not received the creation of"
      case .notAMember(let device): "device \(device) is not a member of this group"
      case .notTheFounder(let device): "device \(device) did not create this group (its id is not derived from that device's)"
      case .revoked(let device, let by, let after):
        "device \(device) was revoked by \(by.shortDescription): its events after :\(after) are refused"
      case .invitation(let reason): "its invitation \(reason)"
      case .keyNotTheDevices(let device): "the key it adds is not the key device \(device) is derived from"
      }
    }
  }

  /// The group's id, nil before this database created, joined or received one.
  func group() throws -> UUID? {
    try Data.fetchOne(db, sql: "SELECT group_id FROM chronicle_group").flatMap { PeerID(bytes: $0)?.uuid }
  }

  func member(_ device: PeerID) throws -> GroupMember? {
    try Row.fetchOne(
      db.cachedStatement(sql: "SELECT \(Self.columns) FROM chronicle_members WHERE peer_id = ?"), arguments: [Data(device.bytes)]
    ).map(Self.member)
  }

  func members() throws -> [GroupMember] {
    try Row.fetchAll(db, sql: "SELECT \(Self.columns) FROM chronicle_members ORDER BY admission <> 'founder', added_hlc, peer_id").map(Self.member)
  }

  /// Why an event of `origin` at `sequence` is not admitted, or nil when it is
  /// (always, while this database is in no group).
  func refusal(of origin: PeerID, sequence: UInt64) throws -> Problem? {
    guard try group() != nil else { return nil }
    return Self.refusal(of: try member(origin), origin: origin, sequence: sequence)
  }

  /// Why an event of `origin`, whose member record (in a group) is `member`,
  /// is not admitted at `sequence`; nil when it is.
  static func refusal(of member: GroupMember?, origin: PeerID, sequence: UInt64) -> Problem? {
    guard let member else { return .notAMember(origin) }
    if let by = member.revokedBy, let after = member.revokedAfterSequence, sequence > after {
      return .revoked(origin, by: by, afterSequence: after)
    }
    return nil
  }

  /// Applies a change of the member list that `writer` (signing with
  /// `writerKey`) made in an event at `timestamp`, after checking it may.
  func apply(_ change: MembershipChange, by writer: PeerID, writerKey: [UInt8]?, at timestamp: HLCTimestamp) throws {
    let current = try group()
    switch change {
    case .createGroup(let group, let nonce, let founders):
      if let current, current != group { throw Problem.otherGroup(current) }
      guard MembershipChange.groupID(founder: writer, nonce: nonce) == group else { throw Problem.notTheFounder(writer) }
      try db.execute(
        sql: """
          INSERT INTO chronicle_group (singleton, group_id, founder, created_hlc) VALUES (1, ?, ?, ?)
          ON CONFLICT (singleton) DO UPDATE SET founder = excluded.founder, created_hlc = excluded.created_hlc
          """,
        arguments: [Self.bytes(of: group), Data(writer.bytes), Self.clock(timestamp)])
      try record(writer, key: writerKey, addedBy: nil, at: timestamp, as: .founder)
      for founder in founders where founder.device != writer {
        try record(founder.device, key: founder.publicKey, addedBy: writer, at: timestamp, as: .founding)
      }
    case .add(let device, let publicKey):
      guard current != nil else { throw Problem.noGroup }
      try requireActive(writer)
      if device.isKeyDerived, PeerID(publicKey: publicKey) != device { throw Problem.keyNotTheDevices(device) }
      try record(device, key: publicKey, addedBy: writer, at: timestamp, as: .added)
    case .join(let invitation):
      guard let current else { throw Problem.noGroup }
      guard invitation.group == current else { throw Problem.otherGroup(current) }
      try checkInviter(of: invitation)
      guard timestamp.date <= invitation.expires else {
        throw Problem.invitation("expired at \(invitation.expires) (the joining event is from \(timestamp.date))")
      }
      try record(writer, key: writerKey, addedBy: invitation.inviter, at: timestamp, as: .invitation)
    case .revoke(let device, let afterSequence):
      guard current != nil else { throw Problem.noGroup }
      try requireActive(writer)
      guard let member = try member(device) else { throw Problem.notAMember(device) }
      let after = min(afterSequence, member.revokedAfterSequence ?? .max)
      try db.execute(
        sql: "UPDATE chronicle_members SET revoked_by = coalesce(revoked_by, ?), revoked_hlc = coalesce(revoked_hlc, ?), revoked_after_sequence = ? WHERE peer_id = ?",
        arguments: [Data(writer.bytes), Self.clock(timestamp), Int64(after), Data(device.bytes)])
    }
  }

  /// Checks an invitation: signed by its inviter's key, and the inviter an
  /// active member (as far as this database knows the group).
  func checkInviter(of invitation: Invitation) throws {
    guard invitation.isSignatureValid else { throw Problem.invitation("is not signed by the key it names (altered or forged)") }
    let inviter = invitation.inviter
    if inviter.isKeyDerived, PeerID(publicKey: invitation.inviterKey) != inviter {
      throw Problem.invitation("is signed by another key than its inviter's")
    }
    guard let member = try member(inviter), member.isActive else {
      throw Problem.invitation("is signed by \(inviter), who is not a member of this group")
    }
    if let key = member.publicKey, key != invitation.inviterKey {
      throw Problem.invitation("is signed by another key than its inviter's")
    }
  }

  /// Records the invitation a device joins with, before the group's events
  /// arrive: the group and its inviter.
  func enter(with invitation: Invitation) throws {
    try db.execute(
      sql: "INSERT INTO chronicle_group (singleton, group_id) VALUES (1, ?)", arguments: [Self.bytes(of: invitation.group)])
    try record(invitation.inviter, key: invitation.inviterKey, addedBy: nil, at: HLCTimestamp(rawValue: 0), as: .inviter)
  }

  private func requireActive(_ device: PeerID) throws {
    guard let member = try member(device) else { throw Problem.notAMember(device) }
    if let by = member.revokedBy { throw Problem.revoked(device, by: by, afterSequence: member.revokedAfterSequence ?? 0) }
  }

  /// Adds a member, or completes what an earlier record left out (its key,
  /// how it was admitted), never undoing a revocation.
  private func record(_ device: PeerID, key: [UInt8]?, addedBy: PeerID?, at timestamp: HLCTimestamp, as admission: GroupMember.Admission) throws {
    try db.execute(
      sql: """
        INSERT INTO chronicle_members (peer_id, public_key, added_by, added_hlc, admission) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (peer_id) DO UPDATE SET
          public_key = coalesce(public_key, excluded.public_key),
          added_by = CASE WHEN admission = 'inviter' THEN excluded.added_by ELSE added_by END,
          added_hlc = CASE WHEN admission = 'inviter' THEN excluded.added_hlc ELSE added_hlc END,
          admission = CASE WHEN admission = 'inviter' THEN excluded.admission ELSE admission END
        """,
      arguments: [Data(device.bytes), key.map { Data($0) }, addedBy.map { Data($0.bytes) }, Self.clock(timestamp), admission.rawValue])
  }

  private static let columns = "peer_id, public_key, added_by, added_hlc, admission, revoked_by, revoked_hlc, revoked_after_sequence"

  private static func member(_ row: Row) -> GroupMember {
    GroupMember(
      device: PeerID(bytes: row[0] as Data)!, publicKey: (row[1] as Data?).map { Array($0) },
      addedBy: (row[2] as Data?).flatMap { PeerID(bytes: $0) },
      addedAt: HLCTimestamp(rawValue: UInt64(bitPattern: row[3] as Int64)),
      admission: GroupMember.Admission(rawValue: row[4]) ?? .added,
      revokedBy: (row[5] as Data?).flatMap { PeerID(bytes: $0) },
      revokedAt: (row[6] as Int64?).map { HLCTimestamp(rawValue: UInt64(bitPattern: $0)) },
      revokedAfterSequence: (row[7] as Int64?).map { UInt64($0) })
  }

  private static func bytes(of group: UUID) -> Data { Data(PeerID(group).bytes) }
  private static func clock(_ timestamp: HLCTimestamp) -> Int64 { Int64(bitPattern: timestamp.rawValue) }
}
