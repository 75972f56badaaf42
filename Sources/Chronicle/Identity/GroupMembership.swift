import Foundation
import GRDB

/// The group this database belongs to, as its tables keep it: its id
/// (`chronicle_group`), its membership events (`chronicle_membership_events`)
/// and the member list resolved from them (`chronicle_members`, rewritten
/// whole each time an event is added, by ``MembershipHistory/resolve()``).
struct GroupMembership {
  let db: Database

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

  /// Why an event of `origin` at `sequence` is not admitted (`writes`: it
  /// carries data or schema changes), or nil when it is (always, while this
  /// database is in no group).
  func refusal(ofEventFrom origin: PeerID, sequence: UInt64, writes: Bool) throws -> String? {
    guard let group = try group() else { return nil }
    var state = GroupState(group: group)
    if let member = try member(origin) { state.members[origin] = member }
    return state.refusal(ofEventFrom: origin, sequence: sequence, writes: writes)
  }

  /// The group's membership events this database holds.
  func history() throws -> MembershipHistory? {
    guard let group = try group() else { return nil }
    return MembershipHistory(group: group, events: try storedEvents())
  }

  /// The membership events this database holds, oldest first by clock.
  func storedEvents() throws -> [MembershipEvent] {
    try Data.fetchAll(db, sql: "SELECT event FROM chronicle_membership_events ORDER BY hlc, origin, sequence")
      .compactMap { try? MembershipEvent(stored: Array($0)) }
  }

  /// Keeps a membership event (signed, checked by the caller); false when held already.
  @discardableResult
  func store(_ event: MembershipEvent) throws -> Bool {
    try db.execute(
      sql: "INSERT INTO chronicle_membership_events (hash, origin, sequence, hlc, event) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
      arguments: [Data(event.hash.bytes), Data(event.origin.bytes), Int64(event.sequence), Self.clock(event.timestamp), Data(event.bytes)])
    return db.changesCount > 0
  }

  /// Records that this database belongs to `group` (created, joined, or received).
  func enter(_ group: UUID) throws {
    try db.execute(
      sql: "INSERT INTO chronicle_group (singleton, group_id) VALUES (1, ?) ON CONFLICT (singleton) DO NOTHING", arguments: [Self.bytes(of: group)])
  }

  /// Resolves the member list from every membership event held, and saves it.
  @discardableResult
  func resolve() throws -> GroupState? {
    guard let history = try history() else { return nil }
    let state = history.resolve()
    try db.execute(sql: "UPDATE chronicle_group SET founder = ?, created_hlc = ?", arguments: [
      state.founder.map { Data($0.bytes) }, state.createdAt.map(Self.clock),
    ])
    try db.execute(sql: "DELETE FROM chronicle_members")
    let insert = try db.cachedStatement(sql: """
      INSERT INTO chronicle_members (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """)
    for member in state.members.values {
      try insert.execute(arguments: [
        Data(member.device.bytes), member.publicKey.map { Data($0) }, member.addedBy.map { Data($0.bytes) }, Self.clock(member.addedAt),
        member.admission.rawValue, member.revokedBy.map { Data($0.bytes) }, member.revokedAt.map(Self.clock),
        member.revokedAfterSequence.map { Int64(clamping: $0) }, member.role.rawValue, member.invitation.map { Data(PeerID($0).bytes) },
        Self.encode(member.revokedCheckpoints), member.demotedAfterSequence.map { Int64(clamping: $0) },
        Self.encode(member.demotedCheckpoints),
      ])
    }
    return state
  }

  private static let columns =
    "peer_id, public_key, added_by, added_hlc, admission, revoked_by, revoked_hlc, revoked_after_sequence, role, invitation, "
    + "revoked_checkpoints, demoted_after_sequence, demoted_checkpoints"

  private static func member(_ row: Row) -> GroupMember {
    GroupMember(
      device: PeerID(bytes: row[0] as Data)!, publicKey: (row[1] as Data?).map { Array($0) },
      role: MemberRole(rawValue: row[8]) ?? .reader,
      addedBy: (row[2] as Data?).flatMap { PeerID(bytes: $0) },
      addedAt: HLCTimestamp(rawValue: UInt64(bitPattern: row[3] as Int64)),
      admission: GroupMember.Admission(rawValue: row[4]) ?? .added,
      invitation: (row[9] as Data?).flatMap { PeerID(bytes: $0)?.uuid },
      revokedBy: (row[5] as Data?).flatMap { PeerID(bytes: $0) },
      revokedAt: (row[6] as Int64?).map { HLCTimestamp(rawValue: UInt64(bitPattern: $0)) },
      revokedAfterSequence: (row[7] as Int64?).map { UInt64($0) },
      revokedCheckpoints: decode(row[10] as Data?),
      demotedAfterSequence: (row[11] as Int64?).map { UInt64($0) },
      demotedCheckpoints: decode(row[12] as Data?))
  }

  private static func bytes(of group: UUID) -> Data { Data(PeerID(group).bytes) }

  /// Checkpoints as stored: each its sequence (u64, big-endian) and digest.
  private static func encode(_ checkpoints: [HistoryCheckpoint]) -> Data? {
    guard !checkpoints.isEmpty else { return nil }
    var writer = BinaryWriter(capacity: checkpoints.count * 40)
    for checkpoint in checkpoints {
      writer.writeUInt64BigEndian(checkpoint.sequence)
      writer.writeBytes(checkpoint.digest)
    }
    return Data(writer.bytes)
  }

  private static func decode(_ data: Data?) -> [HistoryCheckpoint] {
    guard let data else { return [] }
    let bytes = Array(data)
    return stride(from: 0, to: bytes.count - 39, by: 40).map { start in
      HistoryCheckpoint(
        sequence: bytes[start..<(start + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) },
        digest: Array(bytes[(start + 8)..<(start + 40)]))
    }
  }
  static func clock(_ timestamp: HLCTimestamp) -> Int64 { Int64(bitPattern: timestamp.rawValue) }
}
