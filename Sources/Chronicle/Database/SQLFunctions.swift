import Foundation
import GRDB

extension Database {
  /// Registers the SQL functions Chronicle's schemas rely on:
  /// - `uuid()`, a random (version 4) UUID as lowercase text, so that
  ///   `DEFAULT (uuid())` works as in SQLiteData schemas;
  /// - `chronicle_is_syncing()`, 1 while Chronicle merges remote events or
  ///   deletes local data on this connection, 0 otherwise. App triggers that
  ///   derive data (timestamps, counters, audit rows) add
  ///   `WHEN NOT chronicle_is_syncing()`: the merged rows already hold what
  ///   the trigger computed on the peer that wrote them.
  ///
  /// Chronicle registers them on every connection it opens; call this on
  /// other GRDB connections that read or replay Chronicle databases.
  public func addChronicleFunctions() {
    add(function: Self.uuidFunction)
    add(function: Self.notSyncingFunction)
  }

  /// Registers `chronicle_is_syncing()` on the writer, answering from `isSyncing`.
  func addSyncingFunction(_ isSyncing: @escaping @Sendable () -> Bool) {
    add(function: DatabaseFunction("chronicle_is_syncing", argumentCount: 0, pure: false) { _ in isSyncing() })
  }

  private static let notSyncingFunction = DatabaseFunction("chronicle_is_syncing", argumentCount: 0, pure: false) { _ in
    false
  }

  private static let uuidFunction = DatabaseFunction("uuid", argumentCount: 0, pure: false) { _ in
    UUID().uuidString.lowercased()
  }
}
