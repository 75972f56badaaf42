import Foundation
import GRDB

/// GRDB's `DatabaseMigrator` on a ``ChronicleDatabase`` (in place of GRDB's
/// `migrate` in every file that imports Chronicle): each migration commits
/// with an event, so its schema changes and the rows it writes reach the
/// other peers, and `eraseDatabaseOnSchemaChange` compares the app's schema
/// only (Chronicle's own tables and triggers are no change of the
/// migrations, and GRDB's check would erase the database at every launch).
///
/// On any other writer these are GRDB's.
extension DatabaseMigrator {
  /// Runs the migrations not applied yet (GRDB's `migrate(_:)`); on a
  /// ``ChronicleDatabase``, each one commits with the event of its changes.
  public func migrate(_ writer: any DatabaseWriter) throws {
    guard let database = writer as? ChronicleDatabase else { return try self.GRDB::migrate(writer) }
    guard let last = migrations.last else { return }
    try database.migrate(with: self, upTo: last)
  }

  /// Runs the migrations not applied yet up to `targetIdentifier` (GRDB's
  /// `migrate(_:upTo:)`); on a ``ChronicleDatabase``, each one commits with
  /// the event of its changes.
  public func migrate(_ writer: any DatabaseWriter, upTo targetIdentifier: String) throws {
    guard let database = writer as? ChronicleDatabase else {
      return try self.GRDB::migrate(writer, upTo: targetIdentifier)
    }
    try database.migrate(with: self, upTo: targetIdentifier)
  }
}

extension ChronicleDatabase {
  /// The SQL function that the migrations' trigger calls.
  private static let migrationEventFunction = "chronicle_migration_event"

  func migrate(with migrator: DatabaseMigrator, upTo target: String) throws {
    var migrator = migrator
    if migrator.eraseDatabaseOnSchemaChange {
      migrator.eraseDatabaseOnSchemaChange = false
      if try read({ try migrator.hasSchemaChanges($0) }) { try deleteLocalData(erasingSchema: true) }
    }
    // A migration's transaction ends with GRDB's insert into
    // grdb_migrations: a trigger there appends the event just before the
    // commit, in the transaction, as `write` does at its end. The trigger
    // (TEMP: the writer connection's own) stays for later migrations, and
    // goes with the table when the database is erased.
    let function = DatabaseFunction(Self.migrationEventFunction, argumentCount: 0, pure: false) { [weak self] _ in
      guard let self else { return nil }
      try self.writer.unsafeReentrantWrite { db in _ = try self.appendLocalEvent(db) }
      return nil
    }
    try writer.writeWithoutTransaction { db in
      db.add(function: function)
      try db.execute(sql: """
        CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        CREATE TEMP TRIGGER IF NOT EXISTS \(Self.migrationEventFunction)
        AFTER INSERT ON main.grdb_migrations BEGIN SELECT \(Self.migrationEventFunction)(); END;
        """)
    }
    try migrator.GRDB::migrate(writer, upTo: target)
  }
}

extension DatabaseMigrator {
  /// Whether the migrations changed since they were applied (GRDB's
  /// `hasSchemaChanges(_:)`): a migration applied that is no longer
  /// registered, or a schema unlike the one the applied migrations give a
  /// new database. In a Chronicle database, the app's schema only.
  public func hasSchemaChanges(_ db: Database) throws -> Bool {
    guard try db.tableExists("chronicle_peer") else { return try self.GRDB::hasSchemaChanges(db) }
    let applied = try appliedIdentifiers(db)
    guard applied.isSubset(of: migrations) else { return true }
    guard let lastApplied = migrations.last(where: applied.contains) else { return false }
    var configuration = db.configuration
    configuration.readonly = false
    configuration.targetQueue = nil
    configuration.writeTargetQueue = nil
    configuration.label = "Chronicle.DatabaseMigrator.schemaCheck"
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-migrations-\(UUID().uuidString).db")
    defer { try? FileManager.default.removeItem(at: file) }
    let scratch = try DatabaseQueue(path: file.path, configuration: configuration)
    var migrator = self
    migrator.eraseDatabaseOnSchemaChange = false
    try migrator.GRDB::migrate(scratch, upTo: lastApplied)
    return try scratch.read(AppSchemaObject.all) != AppSchemaObject.all(db)
  }

  /// GRDB's `asyncMigrate(_:completion:)`; on a ``ChronicleDatabase``, as
  /// ``migrate(_:)`` does, off the caller's thread.
  public func asyncMigrate(_ writer: any DatabaseWriter, completion: @escaping @Sendable (Result<Database, Error>) -> Void) {
    guard let database = writer as? ChronicleDatabase else { return self.GRDB::asyncMigrate(writer, completion: completion) }
    let migrator = self
    DispatchQueue.global().async {
      do {
        try migrator.migrate(database)
        database.asyncBarrierWriteWithoutTransaction(completion)
      } catch {
        completion(.failure(error))
      }
    }
  }
}
