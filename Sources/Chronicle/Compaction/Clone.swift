import Foundation
import GRDB

extension ChronicleLogSource {
  /// Starts a new peer from this database: a new file at `path` (which must
  /// not exist) with the same tables and merge state, whose log starts from
  /// a baseline of everything this log holds, under a new peer identity. It
  /// syncs from there, asking only for what it lacks, even when older events
  /// were compacted away here.
  ///
  /// - Returns: the new peer's identity.
  @discardableResult
  public func clone(into path: String) throws -> PeerID {
    let source = peerID
    let epoch = try read { db in try LocalLogPosition.read(db, origin: source).schemaEpoch }
    try replay(into: path, options: ReplayOptions(computesDigests: false))
    let peer = PeerID.generate()
    do {
      var configuration = Configuration()
      configuration.foreignKeysEnabled = false
      configuration.prepareDatabase { db in db.addChronicleFunctions() }
      let queue = try DatabaseQueue(path: path, configuration: configuration)
      try queue.write { db in
        // The copy's whole log becomes its baseline: the new peer has no
        // history of its own, and its schema comes with the baseline.
        let applier = MergeApplier(db, local: source, localEpoch: UInt64.max)
        applier.upcaster = try EventUpcaster.load(db, localPeer: source, upcasters: Upcasters(), skipsMissingCode: true, forMerging: true)
        try applier.foldLocalEvents()
        let previous = try LogBaseline.read(db)
        let (event, _) = try ChronicleDatabase.baselineEvent(db, peer: source, previous: previous)
        let encoded = try EventCodec.encode(event, compressionLevel: 6)
        let through = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM chronicle_events") ?? previous?.throughPosition ?? 0
        let baseline = LogBaseline(
          throughPosition: through, vector: try VersionVector.read(db), timestamp: try LocalLogPosition.latestClock(db),
          schemaEpoch: epoch, event: event, bytes: encoded.bytes)
        try baseline.save(db, mergeState: try MergeStore.allRows(db))
        try db.execute(sql: "DELETE FROM chronicle_event_tables")
        try db.execute(sql: "DELETE FROM chronicle_events")
        try applier.setFoldMark(through)
        try db.execute(
          sql: "UPDATE chronicle_peer SET peer_id = ?, created_at = ?",
          arguments: [Data(peer.bytes), ISO8601DateFormatter().string(from: Date())])
        // The new peer starts at the schema epoch the source had reached.
        try db.execute(sql: "INSERT OR REPLACE INTO chronicle_meta (key, value) VALUES ('epoch_floor', ?)", arguments: [Int64(epoch)])
      }
      try queue.close()
    } catch {
      DatabaseFiles.remove(path)
      throw error
    }
    return peer
  }
}
