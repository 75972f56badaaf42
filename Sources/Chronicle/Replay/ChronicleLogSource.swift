import Foundation
import GRDB

/// A Chronicle database whose log and tables the tools read: a live
/// ``ChronicleDatabase``, or a ``ChronicleArchive`` opened read-only.
///
/// Replay, step, blame and verify are written once, against this protocol.
public protocol ChronicleLogSource: Sendable {
  /// The file path.
  var path: String { get }
  /// The peer whose local writes the log records as its own events.
  var peerID: PeerID { get }
  /// The event log.
  var log: EventLog { get }
  /// Runs `value` in a read-only snapshot of the database.
  func read<T>(_ value: (Database) throws -> T) throws -> T
}

extension ChronicleDatabase: ChronicleLogSource {}

extension ChronicleLogSource {
  /// Digests of the application tables as the database holds them now.
  ///
  /// - Parameter tables: the tables to digest; by default every application
  ///   table (tracked or not).
  public func digests(tables: [String]? = nil) throws -> [TableDigest] {
    try read { db in try TableDigest.compute(db, tables: tables) }
  }

  /// The tables whose writes the log records, sorted by name.
  public func loggedTables() throws -> [String] {
    try read { db in try TrackedTables.names(db) }
  }
}
