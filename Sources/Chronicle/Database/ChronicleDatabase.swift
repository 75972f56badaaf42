import CChronicleSQLite
import Foundation
import GRDB
import Synchronization

/// A SQLite database in WAL mode whose writes are captured as events.
///
/// Write with ``write(_:)``: each transaction that changes tracked tables
/// appends exactly one event to the log, in the same transaction. Read with
/// ``read(_:)`` (readers run concurrently with the writer). The underlying
/// ``writer`` is there for GRDB features such as `ValueObservation`; a
/// transaction that writes tracked tables through it directly is refused at
/// commit with ``ChronicleError/uncapturedWrite(tables:)``.
public final class ChronicleDatabase: Sendable {
  /// The GRDB pool (one writer, concurrent readers).
  public let writer: DatabasePool
  /// This database's peer identity: the origin of the events it writes.
  /// It changes only through ``SyncEngine/deleteLocalData()``.
  public var peerID: PeerID { device.withLock { $0.peer } }
  /// This device: its peer id and signing key (nil when the key file is missing).
  let device: Mutex<DeviceState>
  /// The hybrid logical clock that stamps this peer's events.
  public let clock: HybridLogicalClock
  /// The file path.
  public let path: String
  let session: CaptureSession
  /// See ``ChronicleConfiguration/signsEvents``.
  let signsEvents: Bool
  /// See ``ChronicleConfiguration/mergeBatchRows``.
  let mergeBatchRows: Int
  /// See ``ChronicleConfiguration/rowFoldMinimumEvents``.
  let rowFoldMinimumEvents: Int
  /// See ``ChronicleConfiguration/bundleBatchEvents``.
  let bundleBatchEvents: Int

  init(path: String, peer: PeerIdentity, tables declared: [String], configuration: ChronicleConfiguration) throws {
    guard chronicle_preupdate_hook_available() == 1 else { throw ChronicleError.preupdateHookUnavailable }
    var grdb = configuration.database
    grdb.foreignKeysEnabled = true
    grdb.prepareDatabase { db in db.addChronicleFunctions() }
    if case .timeout = grdb.busyMode {} else { grdb.busyMode = .timeout(5) }
    let pool = try DatabasePool(path: path, configuration: grdb)

    var deviceKey: DeviceKey?
    let session = try pool.barrierWriteWithoutTransaction { db in
      // Only this connection may write tracked tables (GuardTriggers).
      try GuardTriggers.define(on: db)
      var loaded: CaptureSession?
      try db.inTransaction(.immediate) {
        try InternalSchema.migrate(db)
        let (peerID, key) = try Self.establishDevice(db, requested: peer, path: path)
        deviceKey = key
        let clock = HybridLogicalClock(
          lastReading: try LocalLogPosition.latestClock(db),
          maximumDrift: configuration.maximumClockDrift, wallClock: configuration.wallClock)
        let session = CaptureSession(
          connection: db.sqliteConnection!, peer: peerID, clock: clock, compressionLevel: configuration.compressionLevel)
        if key == nil {
          session.writeRefusal = .deviceKeyMissing(path: DeviceKey.fileURL(forDatabaseAt: path).path, peer: peerID)
        }
        try session.load(db)
        // Records what the log does not know yet: on first open, the schema and
        // rows already there; later, schema changes made while closed.
        _ = try session.appendEvent(db)
        // Guards missing where they were installed once: dropped by hand, so
        // writes may have bypassed Chronicle since (sending waits for adopt or rebuild).
        session.guardsTables = configuration.guardsTrackedTables
        if configuration.guardsTrackedTables {
          let wereGuarded = try UntrackedWrites.guardsWereInstalled(db)
          let unguarded = try session.ensureGuards(db)
          if wereGuarded && !unguarded.isEmpty { try UntrackedWrites.suspect(unguarded, db) }
          try UntrackedWrites.recordGuardsInstalled(db)
        } else {
          try session.removeGuards(db)
        }
        for name in declared { try Self.validateTracked(name, session: session, db) }
        loaded = session
        return .commit
      }
      let session = loaded!
      session.installHook()
      db.addSyncingFunction { [unowned session] in session.isSuspended }
      db.add(transactionObserver: CaptureGuard(session: session), extent: .databaseLifetime)
      return session
    }
    self.writer = pool
    self.device = Mutex(DeviceState(peer: session.peer, key: deviceKey))
    self.clock = session.clock
    self.path = path
    self.session = session
    self.signsEvents = configuration.signsEvents
    self.mergeBatchRows = configuration.mergeBatchRows
    self.rowFoldMinimumEvents = configuration.rowFoldMinimumEvents
    self.bundleBatchEvents = configuration.bundleBatchEvents
  }

  /// Runs `updates` in a write transaction and appends one event describing
  /// its changes to tracked tables (none when it changed nothing).
  ///
  /// If `updates` throws, the transaction rolls back and nothing is appended.
  public func write<T>(_ updates: (Database) throws -> T) throws -> T {
    return try writer.write { db in
      let value = try updates(db)
      _ = try appendLocalEvent(db)
      return value
    }
  }

  /// Like ``write(_:)``, and also returns the event it appended, if any.
  public func writeReturningEvent<T>(_ updates: (Database) throws -> T) throws -> (value: T, event: StoredEvent?) {
    return try writer.write { db in
      let value = try updates(db)
      return (value, try appendLocalEvent(db)?.stored())
    }
  }

  /// Like ``write(_:)``, and also says what it appended, if anything, without
  /// decoding the event (as ``writeReturningEvent(_:)`` does).
  public func writeSummarizingEvent<T>(_ updates: (Database) throws -> T) throws -> (value: T, appended: AppendedEventSummary?) {
    return try writer.write { db in
      let value = try updates(db)
      return (value, try appendLocalEvent(db)?.summary)
    }
  }

  /// Asynchronous ``write(_:)``.
  public func write<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
    return try await writer.write { db in
      let value = try updates(db)
      _ = try self.appendLocalEvent(db)
      return value
    }
  }

  /// Runs `value` in a read-only snapshot of the database.
  public func read<T>(_ value: (Database) throws -> T) throws -> T {
    try writer.read(value)
  }

  /// Asynchronous ``read(_:)``.
  public func read<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
    try await writer.read(value)
  }

  /// The tables whose writes are captured, sorted by name.
  public var trackedTables: [String] {
    get throws {
      try read { db in try TrackedTables.names(db) }
    }
  }

  /// Checks that each table is tracked. Tables created through Chronicle (and
  /// those present at first open) are tracked automatically when they are
  /// STRICT and have a primary key; for any other table this throws the error
  /// that names the problem and its fix.
  public func track(_ tables: String...) throws {
    let session = self.session
    try writer.write { db in
      for name in tables { try Self.validateTracked(name, session: session, db) }
    }
  }

  /// The event log of this database.
  public var log: EventLog { EventLog(reader: writer) }

  private static func validateTracked(_ name: String, session: CaptureSession, _ db: Database) throws {
    if session.tables[name] != nil { return }
    guard let shape = try TableShape.read(db, table: name) else { throw ChronicleError.noSuchTable(name) }
    try shape.validateTrackable()
    // Trackable but not tracked: only a table created behind Chronicle's back
    // and not logged yet. Log it now.
    _ = try session.appendEvent(db)
    guard session.tables[name] != nil else { throw ChronicleError.noSuchTable(name) }
  }
}
