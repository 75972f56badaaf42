/// What a member of a group may do.
///
/// Founders are admins. Only admins change the member list (invite, add,
/// admit, revoke, change roles); writers and admins write data; a reader's
/// data events are refused by every member, and its own writes fail before
/// they commit (``ChronicleError/writePermission(_:)``).
public enum MemberRole: String, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
  /// Reads the group's data; writes nothing that syncs.
  case reader
  /// Reads and writes the group's data.
  case writer
  /// Writes, and changes the member list and roles.
  case admin

  /// Whether a member with this role may write data.
  public var writes: Bool { self != .reader }

  public var description: String { rawValue }

  public static func < (lhs: MemberRole, rhs: MemberRole) -> Bool { lhs.rank < rhs.rank }

  private var rank: Int {
    switch self {
    case .reader: 0
    case .writer: 1
    case .admin: 2
    }
  }

  /// Its byte in membership changes and invitations.
  var code: UInt8 {
    switch self {
    case .reader: 1
    case .writer: 2
    case .admin: 3
    }
  }

  init?(code: UInt8) {
    switch code {
    case 1: self = .reader
    case 2: self = .writer
    case 3: self = .admin
    default: return nil
    }
  }
}
