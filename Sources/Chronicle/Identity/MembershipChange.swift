import Crypto
import Foundation

/// A change of a group's member list, carried by an event of the device that
/// made it (so signed by it, like every event it writes).
///
/// Every membership event names the membership events its writer had
/// applied (``builtOn(_:)``), so the group's history is a graph that every
/// device and the relay resolve the same way, in any arrival order (see
/// ``ChronicleDatabase/members()``). Only admins change the member list;
/// a join is a request that an admin's device turns into an ``add``.
public enum MembershipChange: Hashable, Sendable {
  /// The writer creates group `group`; the writer and `founders` (the devices
  /// whose events its log already held) are its first members, all admins.
  /// The group id is derived from the writer's peer id, `nonce` and the
  /// founders (``MembershipChange/groupID(founder:nonce:founders:)``): only
  /// its founder can create it, and every creation of one id is the same.
  case createGroup(group: UUID, nonce: [UInt8], founders: [FoundingMember])
  /// The writer, an admin, adds the device with this key as `role`; with
  /// the invitation it admitted the device with, which admits no one else.
  case add(device: PeerID, publicKey: [UInt8], role: MemberRole, invitation: UUID?)
  /// The writer asks to join with an invitation an admin signed (without
  /// its secret), and `proof`: its own id and key signed with the
  /// invitation's secret key. A request, which an admin's device admits (an
  /// ``add`` naming the invitation) when it first sees it before the
  /// invitation expires by its own clock.
  case join(invitation: Invitation, proof: [UInt8])
  /// The writer, an admin, revokes `device`: its events after
  /// `afterSequence` (the last one the writer had of it) are refused, and so
  /// are its changes of the member list that the writer had not seen.
  /// `checkpoints` name that last event and others before it by digest
  /// (``RevokedHistory``): a receiver takes the device's events up to them
  /// only when they lead to them, so the revoked device cannot sign other
  /// contents for them (empty when the writer held none signed, or from a
  /// Chronicle before links).
  case revoke(device: PeerID, afterSequence: UInt64, checkpoints: [HistoryCheckpoint])
  /// The writer, an admin, gives a member another role.
  ///
  /// Taking an admin's role away voids that admin's changes of the member
  /// list made concurrently with it (neither had seen the other), as a
  /// revocation does those its writer had not seen. Making a writer or an
  /// admin a reader names, as a revocation does, the last event the writer
  /// had of it (`afterSequence`) and checkpoints of its history: its row
  /// changes up to that event, made while it could write, are taken (when
  /// they lead to the checkpoints), and those after it refused.
  /// `afterSequence` is nil for other changes, and for a demotion written by
  /// a Chronicle before demotions named one (every row change of such a
  /// reader is refused).
  case changeRole(device: PeerID, role: MemberRole, afterSequence: UInt64?, checkpoints: [HistoryCheckpoint])
  /// The writer, an admin, withdraws an invitation before it is used.
  case withdrawInvitation(UUID)
  /// The writer, an admin, shares group content keys: each grant is one
  /// epoch's key sealed to one member's device, with `ephemeral` (the
  /// writer's one-time X25519 public key for this change). A grant naming no
  /// epoch starts a new one, named by this event's hash: a revocation
  /// carries one for every remaining member, and so does a rekey.
  case shareKeys(ephemeral: [UInt8], grants: [KeyGrant])
  /// The membership events the writer had applied when it wrote this one
  /// (the heads of the group's history it builds on); first in every
  /// membership event but a creation or a join request.
  case builtOn([MembershipHash])
  /// A change written by a Chronicle from before membership history (kind
  /// and fields as written): kept so that older logs still read and replay,
  /// and ignored by the member list.
  case older(kind: UInt8, fields: [UInt8])
}

extension MembershipChange: CustomStringConvertible {
  /// One line: `create group 6f1c… with 4f2c1a9e, 9b0d7e21`, `add 9b0d7e21 as writer`,
  /// `join with an invitation from 4f2c1a9e`, `revoke 9b0d7e21 after :12`.
  public var description: String {
    switch self {
    case .createGroup(let group, _, let founders):
      "create group \(group.uuidString.lowercased()) with \(founders.map(\.device.shortDescription).joined(separator: ", "))"
    case .add(let device, _, let role, let invitation):
      "add \(device.shortDescription) as \(role)" + (invitation.map { " (invitation \($0.uuidString.lowercased().prefix(8)))" } ?? "")
    case .join(let invitation, _): "ask to join with an invitation from \(invitation.inviter.shortDescription)"
    case .revoke(let device, let after, _): "revoke \(device.shortDescription) after :\(after)"
    case .changeRole(let device, let role, let after, _):
      "make \(device.shortDescription) \(role)" + (after.map { " after :\($0)" } ?? "")
    case .withdrawInvitation(let id): "withdraw invitation \(id.uuidString.lowercased().prefix(8))"
    case .shareKeys(_, let grants):
      (grants.contains { $0.epoch == nil } ? "start a key epoch, " : "")
        + "share keys with \(Set(grants.map(\.device)).sorted().map(\.shortDescription).joined(separator: ", "))"
    case .builtOn(let heads): "after \(heads.isEmpty ? "nothing" : heads.map(\.description).joined(separator: ", "))"
    case .older(let kind, _): "a membership change of an older Chronicle (kind \(kind)), ignored"
    }
  }
}

extension MembershipChange {
  /// The id of the group that `founder` creates with `nonce` (16 random
  /// bytes) and `founders`: the first 16 bytes of SHA-256 of a label, the
  /// founder's peer id, the nonce and each founding member's id and key, as
  /// a UUID of version 8.
  public static func groupID(founder: PeerID, nonce: [UInt8], founders: [FoundingMember]) -> UUID {
    var input = Array("chronicle group v2".utf8) + founder.bytes + nonce
    for member in founders {
      input += member.device.bytes
      input += member.publicKey.map { [1] + $0 } ?? [0]
    }
    var bytes = Array(SHA256.hash(data: input).prefix(16))
    bytes[6] = bytes[6] & 0x0F | 0x80
    bytes[8] = bytes[8] & 0x3F | 0x80
    return PeerID(bytes: bytes)!.uuid
  }
}

/// A device enrolled when its group was created.
public struct FoundingMember: Hashable, Sendable {
  public var device: PeerID
  /// Nil for a device whose events are all from before device keys.
  public var publicKey: [UInt8]?

  public init(device: PeerID, publicKey: [UInt8]?) {
    self.device = device
    self.publicKey = publicKey
  }
}

extension EventCodec {
  enum MembershipKind: UInt8 {
    // Kinds 0x01 (create group) and 0x02 (add) of Chronicle before
    // membership history are read as `older`; 0x03 (join) too when its
    // invitation is of the older size (152 bytes).
    case olderCreateGroup = 0x01, olderAdd = 0x02
    case join = 0x03, revoke = 0x04, builtOn = 0x05, createGroup = 0x06, add = 0x07, changeRole = 0x08, withdrawInvitation = 0x09
    case shareKeys = 0x0A
    /// A revocation naming digests of the revoked device's events the writer held.
    case revokeWithCheckpoints = 0x0B
    /// A role change naming the last event the writer had of the device,
    /// and checkpoints of its history (a demotion to reader).
    case changeRoleWithCutOff = 0x0C
  }

  static func writeMembership(_ change: MembershipChange, to writer: inout BinaryWriter) {
    switch change {
    case .createGroup(let group, let nonce, let founders):
      writer.writeByte(MembershipKind.createGroup.rawValue)
      writer.writeBytes(withUnsafeBytes(of: group.uuid) { Array($0) })
      writer.writeBytes(nonce)
      writer.writeVarint(founders.count)
      for founder in founders {
        writer.writeBytes(founder.device.bytes)
        if let key = founder.publicKey {
          writer.writeByte(1)
          writer.writeBytes(key)
        } else {
          writer.writeByte(0)
        }
      }
    case .add(let device, let publicKey, let role, let invitation):
      writer.writeByte(MembershipKind.add.rawValue)
      writer.writeBytes(device.bytes)
      writer.writeBytes(publicKey)
      writer.writeByte(role.code)
      if let invitation {
        writer.writeByte(1)
        writer.writeBytes(PeerID(invitation).bytes)
      } else {
        writer.writeByte(0)
      }
    case .join(let invitation, let proof):
      writer.writeByte(MembershipKind.join.rawValue)
      writer.writeVarint(invitation.bytes.count)
      writer.writeBytes(invitation.bytes)
      writer.writeBytes(proof)
    case .revoke(let device, let afterSequence, let checkpoints):
      writer.writeByte((checkpoints.isEmpty ? MembershipKind.revoke : .revokeWithCheckpoints).rawValue)
      writer.writeBytes(device.bytes)
      writer.writeVarint(afterSequence)
      if !checkpoints.isEmpty { writeCheckpoints(checkpoints, to: &writer) }
    case .changeRole(let device, let role, let afterSequence, let checkpoints):
      writer.writeByte((afterSequence == nil ? MembershipKind.changeRole : .changeRoleWithCutOff).rawValue)
      writer.writeBytes(device.bytes)
      writer.writeByte(role.code)
      if let afterSequence {
        writer.writeVarint(afterSequence)
        writeCheckpoints(checkpoints, to: &writer)
      }
    case .withdrawInvitation(let id):
      writer.writeByte(MembershipKind.withdrawInvitation.rawValue)
      writer.writeBytes(PeerID(id).bytes)
    case .shareKeys(let ephemeral, let grants):
      writer.writeByte(MembershipKind.shareKeys.rawValue)
      writer.writeBytes(ephemeral)
      writer.writeVarint(grants.count)
      for grant in grants {
        if let epoch = grant.epoch {
          writer.writeByte(1)
          writer.writeBytes(epoch.bytes)
        } else {
          writer.writeByte(0)
        }
        writer.writeBytes(grant.device.bytes)
        writer.writeBytes(grant.sealed)
      }
    case .builtOn(let heads):
      writer.writeByte(MembershipKind.builtOn.rawValue)
      writer.writeVarint(heads.count)
      for head in heads { writer.writeBytes(head.bytes) }
    case .older(let kind, let fields):
      writer.writeByte(kind)
      writer.writeBytes(fields)
    }
  }

  /// A count, then each checkpoint: its sequence (varint) and digest.
  private static func writeCheckpoints(_ checkpoints: [HistoryCheckpoint], to writer: inout BinaryWriter) {
    writer.writeVarint(checkpoints.count)
    for checkpoint in checkpoints {
      writer.writeVarint(checkpoint.sequence)
      writer.writeBytes(checkpoint.digest)
    }
  }

  static func readMembership(_ reader: inout BinaryReader) throws(EventFormatError) -> MembershipChange {
    let offset = reader.offset
    let raw = try reader.readByte()
    guard let kind = MembershipKind(rawValue: raw) else {
      throw EventFormatError(problem: .unknownSchemaOperation(raw), region: .body, offset: offset)
    }
    func peer() throws(EventFormatError) -> PeerID {
      guard let peer = PeerID(bytes: try reader.readBytes(16)) else { throw reader.error(.truncated) }
      return peer
    }
    func role() throws(EventFormatError) -> MemberRole {
      let code = try reader.readByte()
      guard let role = MemberRole(code: code) else { throw reader.error(.valueOutOfRange("role \(code)")) }
      return role
    }
    func founders() throws(EventFormatError) -> [FoundingMember] {
      let count = try reader.readLength()
      var founders: [FoundingMember] = []
      for _ in 0..<count {
        let device = try peer()
        let flagOffset = reader.offset
        switch try reader.readByte() {
        case 0: founders.append(FoundingMember(device: device, publicKey: nil))
        case 1: founders.append(FoundingMember(device: device, publicKey: Array(try reader.readBytes(32))))
        case let other: throw EventFormatError(problem: .valueOutOfRange("key flag \(other)"), region: .body, offset: flagOffset)
        }
      }
      return founders
    }
    func checkpoints() throws(EventFormatError) -> [HistoryCheckpoint] {
      let count = try reader.readLength()
      guard count <= reader.remaining / (1 + HistoryCheckpoint.digestSize) else { throw reader.error(.truncated) }
      var checkpoints: [HistoryCheckpoint] = []
      for _ in 0..<count {
        checkpoints.append(HistoryCheckpoint(sequence: try reader.readVarint(), digest: Array(try reader.readBytes(HistoryCheckpoint.digestSize))))
      }
      return checkpoints
    }
    /// The fields read since `start`, for a change of an older Chronicle.
    func older(since start: Int) -> MembershipChange {
      .older(kind: raw, fields: Array(reader.bytes[start..<reader.offset]))
    }
    let fieldsStart = reader.offset
    switch kind {
    case .olderCreateGroup:
      _ = try reader.readBytes(32)
      _ = try founders()
      return older(since: fieldsStart)
    case .olderAdd:
      _ = try reader.readBytes(48)
      return older(since: fieldsStart)
    case .createGroup:
      let group = try peer().uuid
      let nonce = Array(try reader.readBytes(16))
      return .createGroup(group: group, nonce: nonce, founders: try founders())
    case .add:
      let device = try peer()
      let key = Array(try reader.readBytes(32))
      let role = try role()
      let flagOffset = reader.offset
      switch try reader.readByte() {
      case 0: return .add(device: device, publicKey: key, role: role, invitation: nil)
      case 1: return .add(device: device, publicKey: key, role: role, invitation: try peer().uuid)
      case let other: throw EventFormatError(problem: .valueOutOfRange("invitation flag \(other)"), region: .body, offset: flagOffset)
      }
    case .join:
      let length = try reader.readLength()
      let start = reader.offset
      let bytes = Array(try reader.readBytes(length))
      if let invitation = Invitation(bytes: bytes) { return .join(invitation: invitation, proof: Array(try reader.readBytes(64))) }
      guard length == 152 else {
        throw EventFormatError(problem: .valueOutOfRange("invitation of \(length) bytes"), region: .body, offset: start)
      }
      return older(since: fieldsStart)
    case .revoke:
      return .revoke(device: try peer(), afterSequence: try reader.readVarint(), checkpoints: [])
    case .revokeWithCheckpoints:
      let device = try peer()
      let after = try reader.readVarint()
      return .revoke(device: device, afterSequence: after, checkpoints: try checkpoints())
    case .changeRole:
      return .changeRole(device: try peer(), role: try role(), afterSequence: nil, checkpoints: [])
    case .changeRoleWithCutOff:
      let device = try peer()
      let role = try role()
      let after = try reader.readVarint()
      return .changeRole(device: device, role: role, afterSequence: after, checkpoints: try checkpoints())
    case .withdrawInvitation:
      return .withdrawInvitation(try peer().uuid)
    case .shareKeys:
      let ephemeral = Array(try reader.readBytes(32))
      let count = try reader.readLength()
      guard count <= reader.remaining / (1 + 16 + KeyGrant.sealedSize) else { throw reader.error(.truncated) }
      var grants: [KeyGrant] = []
      for _ in 0..<count {
        let flagOffset = reader.offset
        let epoch: MembershipHash?
        switch try reader.readByte() {
        case 0: epoch = nil
        case 1: epoch = MembershipHash(bytes: try reader.readBytes(32))!
        case let other: throw EventFormatError(problem: .valueOutOfRange("epoch flag \(other)"), region: .body, offset: flagOffset)
        }
        grants.append(KeyGrant(epoch: epoch, device: try peer(), sealed: Array(try reader.readBytes(KeyGrant.sealedSize))))
      }
      return .shareKeys(ephemeral: ephemeral, grants: grants)
    case .builtOn:
      let count = try reader.readLength()
      var heads: [MembershipHash] = []
      for _ in 0..<count { heads.append(MembershipHash(bytes: try reader.readBytes(32))!) }
      return .builtOn(heads)
    }
  }
}
