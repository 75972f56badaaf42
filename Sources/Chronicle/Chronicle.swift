@_exported import ChronicleQuery
@_exported import Dependencies
@_exported import GRDB

/// The query builder's ``ChronicleQuery/TableAlias``, a table read under an
/// ``ChronicleQuery/AliasName`` (GRDB has a class of the same name).
public typealias TableAlias<Base: ChronicleQuery.Table, Name: AliasName> = ChronicleQuery.TableAlias<Base, Name>

/// The query builder's ``ChronicleQuery/Table`` protocol, what `@Table`
/// types conform to (GRDB has a `Table` struct; this one is the builder's).
public typealias Table = ChronicleQuery.Table

/// The query builder's ``ChronicleQuery/FTS5`` protocol, for full-text
/// search tables (GRDB's `FTS5` struct, which configures tokenizers, is
/// `GRDB.FTS5`).
public typealias FTS5 = ChronicleQuery.FTS5

/// A statement that yields rows of `QueryValue`: upstream's name for the
/// query builder's ``ChronicleQuery/QueryStatement``, so that
/// `some Statement<Reminder>` reads as in SQLiteData apps (GRDB's prepared
/// statement class is `GRDB.Statement`).
public typealias Statement<QueryValue> = ChronicleQuery.QueryStatement<QueryValue>

/// Chronicle: SQLite databases whose every write transaction is also an event
/// in an append-only log, so that the log can be synced, replayed and audited.
///
/// Start with ``Chronicle/open(path:tables:configuration:)``.
public enum Chronicle {
  /// Opens (creating if needed) a Chronicle database at `path`.
  ///
  /// The first open installs Chronicle's tables (`chronicle_*`), gives the
  /// database its device (an Ed25519 key beside the file, and the peer id
  /// derived from it), and adopts the tables already there: every STRICT
  /// table with a primary key is tracked from then on, and its rows are
  /// recorded in a first event, so the log describes the database from its start.
  ///
  /// A database from before device keys keeps its peer id and gets a key
  /// that signs its events from its next one on.
  ///
  /// - Parameters:
  ///   - path: the SQLite file.
  ///   - tables: tables the app expects to be tracked; each must exist, be
  ///     STRICT and have a primary key, or opening fails with an error naming it.
  ///   - configuration: capture and clock settings.
  public static func open(
    path: String, tables: [String] = [], configuration: ChronicleConfiguration = ChronicleConfiguration()
  ) throws -> ChronicleDatabase {
    try ChronicleDatabase(path: path, peer: .generate, tables: tables, configuration: configuration)
  }

  /// ``open(path:tables:configuration:)`` under a peer id the caller picks:
  /// for tests, which need ids they know in advance. Such an id is not
  /// derived from the device's key, so the devices of a group refuse it.
  package static func open(
    path: String, peer: PeerIdentity, tables: [String] = [],
    configuration: ChronicleConfiguration = ChronicleConfiguration()
  ) throws -> ChronicleDatabase {
    try ChronicleDatabase(path: path, peer: peer, tables: tables, configuration: configuration)
  }
}

/// Which peer identity a database opens with (tests only pick one).
package enum PeerIdentity: Sendable {
  /// The identity stored in the database, or the one derived from a new
  /// device key for a new database.
  case generate
  /// This identity; opening a database that belongs to another peer fails.
  case fixed(PeerID)
}

/// Settings of a ``ChronicleDatabase``.
public struct ChronicleConfiguration: Sendable {
  /// zlib level of event bodies, 1 (fastest, the default: capture is on the
  /// write path) to 9 (smallest).
  public var compressionLevel: Int32 = 1
  /// How far ahead of the local clock a remote clock reading may be.
  public var maximumClockDrift: Duration = .seconds(300)
  /// The wall clock, in milliseconds since 1970 (tests inject their own).
  public var wallClock: @Sendable () -> UInt64 = HybridLogicalClock.systemMilliseconds
  /// GRDB settings of the underlying connections. Foreign keys are always on.
  public var database = Configuration()
  /// Whether tracked tables refuse writes from connections that are not
  /// Chronicle's (the `sqlite3` shell, another library), which no event would
  /// carry to other peers: guard triggers, at a cost of a trigger check per
  /// row Chronicle writes (README, Benchmarks). Turn it off only when nothing
  /// but Chronicle ever writes the file: the guards are then dropped, and
  /// writes from other tools are neither refused nor detected
  /// (`chronicle verify` still finds them, `chronicle adopt` keeps them).
  public var guardsTrackedTables = true
  /// Whether events are signed before they leave and received ones checked.
  /// Only chronicle-bench turns this off, to measure what signatures cost;
  /// peers that do not sign cannot sync with peers that do.
  package var signsEvents = true
  /// Rows a merge holds in memory before writing them (``MergeBatch``):
  /// tests make it small, so that batches flush midway.
  package var mergeBatchRows = MergeBatch.defaultCapacity
  /// Own events in range below which a merge of older writes folds them
  /// whole rather than by the rows it receives (``TouchedRowFold``): tests
  /// make it 1, so that short histories fold by rows too.
  package var rowFoldMinimumEvents = TouchedRowFold.minimumEvents
  /// Events of a bundle decoded and merged at once
  /// (``ChronicleDatabase/applyRemote(bundle:source:)``): tests make it
  /// small, so that a short bundle merges in several batches.
  package var bundleBatchEvents = 1_000

  public init() {}
}
