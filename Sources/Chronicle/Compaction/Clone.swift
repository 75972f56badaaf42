import Foundation
import GRDB

extension ChronicleLogSource {
  /// Starts a new peer from this database: a new file at `path` (which must
  /// not exist) with the same tables and merge state, whose log starts from
  /// a baseline of everything this log holds, under a new peer identity. It
  /// syncs from there, asking only for what it lacks, even when older events
  /// were compacted away here.
  ///
  /// The new peer is a new device, with its own key beside the new file (its
  /// peer id derived from it). It knows the group and its members as this
  /// database does, but is not a member itself: invite it (or add its key)
  /// before it syncs with the group.
  ///
  /// - Returns: the new peer's identity.
  @discardableResult
  public func clone(into path: String) throws -> PeerID {
    let source = peerID
    let epoch = try read { db in try LocalLogPosition.read(db, origin: source).schemaEpoch }
    // What this database knows of devices and of its group, which no replay
    // derives (the events that made the member list may be compacted away).
    let (devices, group, members, membershipEvents) = try read { db -> ([Row], [Row], [Row], [Row]) in
      guard try db.tableExists("chronicle_devices") else { return ([], [], [], []) }
      return (
        try Row.fetchAll(db, sql: "SELECT * FROM chronicle_devices WHERE peer_id <> ?", arguments: [Data(source.bytes)]),
        try Row.fetchAll(db, sql: "SELECT * FROM chronicle_group"),
        try Row.fetchAll(db, sql: "SELECT * FROM chronicle_members"),
        try db.tableExists("chronicle_membership_events") ? try Row.fetchAll(db, sql: "SELECT * FROM chronicle_membership_events") : [])
    }
    try replay(into: path, options: ReplayOptions(computesDigests: false))
    let key = DeviceKey.generate()
    let peer = key.derivedPeerID
    do {
      var configuration = Configuration()
      configuration.foreignKeysEnabled = false
      configuration.prepareDatabase { db in db.addChronicleFunctions() }
      let queue = try DatabaseQueue(path: path, configuration: configuration)
      try queue.write { db in
        // The copy's whole log becomes its baseline: the new peer has no
        // history of its own, and its schema comes with the baseline.
        let applier = try MergeApplier.forMerging(db, local: source, localEpoch: .max)
        try applier.foldLocalEvents()
        let previous = try LogBaseline.read(db)
        let (event, _) = try ChronicleDatabase.baselineEvent(db, peer: source, previous: previous)
        let encoded = try EventCodec.encode(event, compressionLevel: 6)
        let last = try EventLog.lastPosition(db)
        let through = last > 0 ? last : previous?.throughPosition ?? 0
        let baseline = LogBaseline(
          throughPosition: through, vector: try VersionVector.read(db), timestamp: try LocalLogPosition.latestClock(db),
          schemaEpoch: epoch, event: event, bytes: encoded.bytes)
        try baseline.save(db, mergeState: try MergeStore(db: db).allStates())
        try EventLog.removeEvents(db)
        try applier.setFoldMark(through)
        try db.execute(
          sql: "UPDATE chronicle_peer SET peer_id = ?, created_at = ?",
          arguments: [Data(peer.bytes), ISO8601DateFormatter().string(from: Date())])
        // The new peer starts at the schema epoch the source had reached.
        try ChronicleMeta(db: db).set(.epochFloor, to: Int64(epoch))
        try db.execute(sql: """
          DELETE FROM chronicle_devices; DELETE FROM chronicle_group; DELETE FROM chronicle_members; DELETE FROM chronicle_membership_events
          """)
        for (table, rows) in [
          ("chronicle_devices", devices), ("chronicle_group", group), ("chronicle_members", members),
          ("chronicle_membership_events", membershipEvents),
        ] {
          for row in rows {
            let columns = Array(row.columnNames)
            try db.execute(
              sql: "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(databaseQuestionMarks(count: columns.count)))",
              arguments: StatementArguments(row.databaseValues))
          }
        }
        try DeviceRegistry(db: db).record(peer, .init(publicKey: key.publicKey, firstSignedSequence: 1))
      }
      try key.write(to: DeviceKey.fileURL(forDatabaseAt: path), replacing: true)
      try queue.close()
    } catch {
      DatabaseFiles.remove(path)
      throw error
    }
    return peer
  }
}
