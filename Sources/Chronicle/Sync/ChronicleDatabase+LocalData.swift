import Foundation
import GRDB

extension ChronicleDatabase {
  /// Deletes this peer's copy of the synced data: every row of the tracked
  /// tables, the event log and the merge state, in one transaction. No event
  /// records the deletion, so no peer loses anything. The database takes a
  /// new peer identity and starts a new log whose first event records the
  /// schema as it stands (the schema, untracked tables and their rows stay).
  /// It is a new device too: a new key replaces the one in its key file.
  ///
  /// After this the database is a new, empty peer: a later sync fetches the
  /// group's data again (the old identity's events included, as another
  /// peer's).
  ///
  /// Foreign-key cascades from the tracked tables into untracked ones run as
  /// usual; a local row that still refers to a deleted row makes the whole
  /// deletion fail, with nothing deleted.
  public func deleteLocalData() throws {
    try deleteLocalData(erasingSchema: false)
  }

  /// ``deleteLocalData()``; with `erasingSchema`, the app's schema goes too
  /// (its tables, views and triggers, and GRDB's record of migrations), and
  /// the new log starts at schema epoch 0, as a new database's does: what
  /// GRDB's `eraseDatabaseOnSchemaChange` asks for.
  func deleteLocalData(erasingSchema: Bool) throws {
    let session = self.session
    let newKey = DeviceKey.generate()
    let newPeer = newKey.derivedPeerID
    // The new key goes beside the old one and replaces it once the deletion
    // has committed (an open finishes the swap if a crash came between).
    let keyFile = DeviceKey.fileURL(forDatabaseAt: path)
    let pendingKeyFile = DeviceKey.pendingFileURL(forDatabaseAt: path)
    try newKey.write(to: pendingKeyFile, replacing: true)
    defer { try? FileManager.default.removeItem(at: pendingKeyFile) }
    try writer.writeWithoutTransaction { db in
      let oldPeer = session.peer
      let oldRefusal = session.writeRefusal
      do {
        try db.inTransaction(.immediate) {
          let epoch = erasingSchema ? 0 : try LocalLogPosition.read(db, origin: oldPeer).schemaEpoch
          try session.uncaptured(db) { _ in
            try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
            if erasingSchema {
              for object in try AppSchemaObject.all(db) where object.type != "index" {
                try db.execute(sql: "DROP \(object.type.uppercased()) IF EXISTS main.\(quotedIdentifier(object.name))")
              }
              try db.execute(sql: "DROP TABLE IF EXISTS main.grdb_migrations")
            } else {
              for table in try TrackedTables.names(db) {
                try db.execute(sql: "DELETE FROM main.\(quotedIdentifier(table))")
              }
              do {
                try db.checkForeignKeys()
              } catch {
                throw ChronicleError.localDataStillReferenced("\(error)")
              }
            }
            try db.execute(sql: """
              DELETE FROM chronicle_events;
              DELETE FROM chronicle_event_tables;
              DELETE FROM chronicle_rows;
              DELETE FROM chronicle_integer_rows;
              DELETE FROM chronicle_schema;
              DELETE FROM chronicle_devices;
              DELETE FROM chronicle_group;
              DELETE FROM chronicle_members;
              DELETE FROM chronicle_membership_events;
              DELETE FROM chronicle_refused_events;
              DELETE FROM chronicle_event_routes;
              DELETE FROM chronicle_route_wants;
              """)
            try TrackedTables.removeAll(db)
            let meta = ChronicleMeta(db: db)
            for key in [ChronicleMeta.Key<Int64>.loggedSchemaVersion, .mergeFoldedThrough, .receivedMergedPastFoldMark, .sealedThrough, .rowFoldCost] {
              try meta.remove(key)
            }
            try meta.remove(.vectorCheckpoint)
            try meta.remove(.ownFoldedPastMark)
            try db.execute(
              sql: "UPDATE chronicle_peer SET peer_id = ?, created_at = ?",
              arguments: [Data(newPeer.bytes), ISO8601DateFormatter().string(from: Date())])
            try DeviceRegistry(db: db).record(newPeer, .init(publicKey: newKey.publicKey, firstSignedSequence: 1))
          }
          // The new device has its key: its first event may be written.
          session.writeRefusal = nil
          try session.restartLog(as: newPeer, schemaEpoch: epoch, db)
          return .commit
        }
      } catch {
        session.writeRefusal = oldRefusal
        if session.peer != oldPeer { try session.resumeLog(as: oldPeer, db) }
        throw error
      }
    }
    try DeviceKey.replace(keyFile, with: pendingKeyFile)
    device.withLock { $0 = DeviceState(peer: newPeer, key: newKey) }
  }
}
