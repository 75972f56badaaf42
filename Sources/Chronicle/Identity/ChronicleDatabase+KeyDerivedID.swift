import Foundation
import GRDB

extension ChronicleDatabase {
  /// Gives a database whose peer id is from before device keys (a random
  /// id, which no key derives) the id its key derives, once, at open: only
  /// a key-derived id proves which key acts for it.
  ///
  /// The events written under the old id stay in the log under it, as
  /// another device's: every peer keeps them, and new events are written
  /// under the new id from sequence 1, at the schema epoch the old log had
  /// reached. In a group, the old id must be an active admin: it adds the
  /// new id as an admin (granting it every key it holds) and makes the
  /// routes a relay needs of the events it wrote, and the new id
  /// then revokes the old one after its last event, so that nothing more
  /// is taken under it (a device that is not an admin keeps its old id
  /// until an admin makes it one). A database opened with a fixed peer id
  /// (tests), or without its key file, keeps its id.
  func takeKeyDerivedID(requested: PeerIdentity) throws {
    if case .fixed = requested { return }
    let state = device.withLock { $0 }
    guard let key = state.key else { return }
    let new = key.derivedPeerID
    guard !state.peer.isKeyDerived else {
      try retirePredecessors(signingWith: key)
      return
    }
    let membership: (inGroup: Bool, role: MemberRole?, successorAdded: Bool) = try read { db in
      guard try db.tableExists("chronicle_members") else { return (false, nil, false) }
      let membership = GroupMembership(db: db)
      guard try membership.group() != nil else { return (false, nil, false) }
      let old = try membership.member(state.peer)
      return (true, old?.isActive == true ? old?.role : nil, try membership.member(new)?.isActive == true)
    }
    if membership.inGroup, let role = membership.role {
      // Only an admin hands its place on; the others keep their id.
      guard role == .admin else { return }
      if !membership.successorAdded { try addMember(publicKey: key.publicKey, as: .admin) }
      try routeOwnEvents()
    }
    try moveLocalLog(to: new, key: key)
    if membership.inGroup { try retirePredecessors(signingWith: key) }
  }

  /// Makes the routes of this device's signed data events that lack one,
  /// while it still writes under their id: only an event's origin makes its
  /// route, and without one no member can forward the event to a relay.
  private func routeOwnEvents() throws {
    let me = peerID
    let last = try read { db in try EventLog.lastSequence(db, origin: me) }
    var from: UInt64 = 1
    while from <= last {
      let through = min(last, from + 4095)
      _ = try eventRoutes(for: (from...through).map { EventID(origin: me, sequence: $0) })
      from = through + 1
    }
  }

  /// Writes this device's events from here on under `new` (its key's id):
  /// the old id's events are signed and folded into merge state first, in
  /// the same transaction, so that nothing is left that only the old id
  /// could finish.
  private func moveLocalLog(to new: PeerID, key: DeviceKey) throws {
    let session = self.session
    let old = session.peer
    try writer.writeWithoutTransaction { db in
      try session.uncaptured(db, foreignKeysOff: true) { _ in
        try db.inTransaction(.immediate) {
          while try !Self.sealPage(of: old, with: key, db) {}
          let applier = try MergeApplier.forMerging(db, local: old)
          // No deadline: the fold catches up with the log.
          _ = try applier.foldLocalEvents()
          let meta = ChronicleMeta(db: db)
          let epoch = try LocalLogPosition.read(db, origin: old).schemaEpoch
          try meta.set(.epochFloor, to: Int64(epoch))
          try meta.remove(.sealedThrough)
          try db.execute(sql: "UPDATE chronicle_peer SET peer_id = ?", arguments: [Data(new.bytes)])
          try DeviceRegistry(db: db).record(new, .init(publicKey: key.publicKey, firstSignedSequence: 1))
          return .commit
        }
      }
      try session.resumeLog(as: new, db)
    }
    device.withLock { $0.peer = new }
  }

  /// Revokes the group's active members that sign with this device's key
  /// under an id it does not derive: this device's own ids from before
  /// device keys, which it stopped writing under. Run at every open, so
  /// that a revocation a crash interrupted is made at the next; it needs
  /// this device to be an active admin.
  private func retirePredecessors(signingWith key: DeviceKey) throws {
    let me = peerID
    let predecessors: [PeerID] = try read { db in
      guard try db.tableExists("chronicle_members") else { return [] }
      let membership = GroupMembership(db: db)
      guard try membership.group() != nil, try membership.member(me)?.isActiveAdmin == true else { return [] }
      return try membership.members().filter { member in
        member.isActive && member.device != me && !member.device.isKeyDerived && member.publicKey == key.publicKey
      }.map(\.device)
    }
    for predecessor in predecessors { try revoke(predecessor) }
  }
}
