import Crypto
import Foundation

/// A change of a group's member list, carried by an event of the device that
/// made it (so signed by it, like every event it writes).
///
/// A group starts when a device creates it; from then on a database in the
/// group accepts events only from its members, and from a revoked member only
/// up to the sequence at which it was revoked.
public enum MembershipChange: Hashable, Sendable {
  /// The writer creates group `group`; the writer and `founders` (the devices
  /// whose events its log already held) are its first members. The group id
  /// is derived from the writer's peer id and `nonce`
  /// (``MembershipChange/groupID(founder:nonce:)``), so only its founder can
  /// create it: knowing a group's id does not let anyone enroll themselves.
  case createGroup(group: UUID, nonce: [UInt8], founders: [FoundingMember])
  /// The writer, a member, adds the device with this key.
  case add(device: PeerID, publicKey: [UInt8])
  /// The writer joins with an invitation a member signed (see ``Invitation``).
  case join(invitation: Invitation)
  /// The writer, a member, revokes `device`: its events after
  /// `afterSequence` (the last one the writer had of it) are refused.
  case revoke(device: PeerID, afterSequence: UInt64)
}

extension MembershipChange: CustomStringConvertible {
  /// One line: `create group 6f1c… with 4f2c1a9e, 9b0d7e21`, `add 9b0d7e21`,
  /// `join with an invitation from 4f2c1a9e`, `revoke 9b0d7e21 after :12`.
  public var description: String {
    switch self {
    case .createGroup(let group, _, let founders):
      "create group \(group.uuidString.lowercased()) with \(founders.map(\.device.shortDescription).joined(separator: ", "))"
    case .add(let device, _): "add \(device.shortDescription)"
    case .join(let invitation): "join with an invitation from \(invitation.inviter.shortDescription)"
    case .revoke(let device, let after): "revoke \(device.shortDescription) after :\(after)"
    }
  }
}

extension MembershipChange {
  /// The id of the group that `founder` creates with `nonce` (16 random
  /// bytes): the first 16 bytes of SHA-256 of a label, the founder's peer id
  /// and the nonce, as a UUID of version 8.
  public static func groupID(founder: PeerID, nonce: [UInt8]) -> UUID {
    var bytes = Array(SHA256.hash(data: Array("chronicle group v1".utf8) + founder.bytes + nonce).prefix(16))
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
    case createGroup = 0x01, add = 0x02, join = 0x03, revoke = 0x04
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
    case .add(let device, let publicKey):
      writer.writeByte(MembershipKind.add.rawValue)
      writer.writeBytes(device.bytes)
      writer.writeBytes(publicKey)
    case .join(let invitation):
      writer.writeByte(MembershipKind.join.rawValue)
      writer.writeVarint(invitation.bytes.count)
      writer.writeBytes(invitation.bytes)
    case .revoke(let device, let afterSequence):
      writer.writeByte(MembershipKind.revoke.rawValue)
      writer.writeBytes(device.bytes)
      writer.writeVarint(afterSequence)
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
    switch kind {
    case .createGroup:
      let group = try peer().uuid
      let nonce = Array(try reader.readBytes(16))
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
      return .createGroup(group: group, nonce: nonce, founders: founders)
    case .add:
      return .add(device: try peer(), publicKey: Array(try reader.readBytes(32)))
    case .join:
      let length = try reader.readLength()
      let start = reader.offset
      guard let invitation = Invitation(bytes: Array(try reader.readBytes(length))) else {
        throw EventFormatError(problem: .valueOutOfRange("invitation of \(length) bytes"), region: .body, offset: start)
      }
      return .join(invitation: invitation)
    case .revoke:
      return .revoke(device: try peer(), afterSequence: try reader.readVarint())
    }
  }
}
