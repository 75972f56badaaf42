import Foundation
import GRDB

/// Files of a SQLite database that the tools create and remove.
enum DatabaseFiles {
  /// Removes a database file and its journal, WAL and shared-memory files,
  /// ignoring those that are not there.
  static func remove(_ path: String) {
    for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
  }
}
