import Foundation
import GRDB

/// What a replay did.
public struct ReplayReport: Sendable {
  /// Events applied.
  public var eventCount: Int
  /// Row operations applied.
  public var rowChangeCount: Int
  /// Digests of the replayed tables.
  public var digests: [TableDigest]
}

extension ChronicleDatabase {
  /// Rebuilds the application tables from the log alone, into a new plain
  /// SQLite file at `path` (which must not exist), applying events up to and
  /// including log position `until` (all by default).
  ///
  /// The result holds the app's schema and rows, not Chronicle's tables: it is
  /// the state the log describes, for inspection or comparison.
  @discardableResult
  public func replay(into path: String, until: Int64? = nil) throws -> ReplayReport {
    guard !FileManager.default.fileExists(atPath: path) else {
      throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: path])
    }
    var configuration = Configuration()
    configuration.foreignKeysEnabled = false
    configuration.prepareDatabase { db in db.addChronicleFunctions() }
    let target = try DatabaseQueue(path: path, configuration: configuration)
    return try replay(into: target, until: until)
  }

  /// Replays the log into `target` (an empty database), as ``replay(into:until:)-(String,_)``.
  public func replay(into target: some DatabaseWriter, until: Int64? = nil) throws -> ReplayReport {
    let filter = EventFilter(positions: until.map { Int64.min...$0 })
    let applier = EventApplier()
    var events = 0, rows = 0
    try target.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA foreign_keys = OFF")
      try db.inTransaction {
        try log.forEach(filter) { stored in
          try applier.apply(stored.event, to: db)
          events += 1
          rows += stored.event.rowChangeCount
        }
        try applier.finish(db)
        return .commit
      }
    }
    let digests = try target.read { db in try TableDigest.compute(db) }
    return ReplayReport(eventCount: events, rowChangeCount: rows, digests: digests)
  }

  /// Digests of every application table in the live database.
  public func digests() throws -> [TableDigest] {
    try read { db in try TableDigest.compute(db) }
  }
}
