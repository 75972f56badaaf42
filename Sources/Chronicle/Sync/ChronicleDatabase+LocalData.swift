import Foundation
import GRDB

extension ChronicleDatabase {
  /// Deletes this peer's copy of the synced data: every row of the tracked
  /// tables, the event log and the merge state, in one transaction. No event
  /// records the deletion, so no peer loses anything. The database takes a
  /// new peer identity and starts a new log whose first event records the
  /// schema as it stands (the schema, untracked tables and their rows stay).
  ///
  /// After this the database is a new, empty peer: a later sync fetches the
  /// group's data again (the old identity's events included, as another
  /// peer's). A database opened with a fixed ``PeerIdentity`` must be opened
  /// with the new ``peerID`` from then on.
  ///
  /// Foreign-key cascades from the tracked tables into untracked ones run as
  /// usual; a local row that still refers to a deleted row makes the whole
  /// deletion fail, with nothing deleted.
  public func deleteLocalData() throws {
    let session = self.session
    let newPeer = PeerID.generate()
    try writer.writeWithoutTransaction { db in
      let oldPeer = session.peer
      session.isSuspended = true
      defer { session.isSuspended = false }
      do {
        try db.inTransaction(.immediate) {
          try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
          let epoch = try LocalLogPosition.read(db, origin: oldPeer).schemaEpoch
          for table in try String.fetchAll(db, sql: "SELECT name FROM chronicle_tracked_tables") {
            try db.execute(sql: "DELETE FROM main.\(quotedIdentifier(table))")
          }
          do {
            try db.checkForeignKeys()
          } catch {
            throw ChronicleError.localDataStillReferenced("\(error)")
          }
          try db.execute(sql: """
            DELETE FROM chronicle_events;
            DELETE FROM chronicle_event_tables;
            DELETE FROM chronicle_rows;
            DELETE FROM chronicle_tracked_tables;
            DELETE FROM chronicle_schema;
            DELETE FROM chronicle_meta WHERE key IN ('logged_schema_version', 'merge_folded_through');
            """)
          try db.execute(
            sql: "UPDATE chronicle_peer SET peer_id = ?, created_at = ?",
            arguments: [Data(newPeer.bytes), ISO8601DateFormatter().string(from: Date())])
          session.isSuspended = false
          try session.restartLog(as: newPeer, schemaEpoch: epoch, db)
          return .commit
        }
      } catch {
        if session.peer != oldPeer { try session.resumeLog(as: oldPeer, db) }
        throw error
      }
    }
    identity.withLock { $0 = newPeer }
  }
}
