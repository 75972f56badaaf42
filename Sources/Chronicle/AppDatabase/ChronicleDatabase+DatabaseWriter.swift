import GRDB

/// A ``ChronicleDatabase`` is a GRDB `DatabaseWriter`, so that it is what
/// SQLiteData apps pass around: `any DatabaseWriter` from `appDatabase()`,
/// `@Dependency(\.defaultDatabase)`, `DatabaseMigrator.migrate(_:)`,
/// `ValueObservation`.
///
/// `write` through `any DatabaseWriter` is captured as through
/// ``ChronicleDatabase/write(_:)``: Chronicle's `DatabaseWriter.write`
/// (which a file importing Chronicle calls in place of GRDB's) appends the
/// event before the commit. The methods below run on the underlying pool as
/// given: a transaction they open that writes tracked tables without an
/// event is refused at commit with ``ChronicleError/uncapturedWrite(tables:)``,
/// while schema changes (a migration's `CREATE TABLE`) and writes to tables
/// Chronicle does not track go through, and the next event records them.
extension ChronicleDatabase: DatabaseWriter {
  /// The GRDB configuration of the connections.
  public var configuration: Configuration { writer.configuration }

  /// Closes the connections (see GRDB's `DatabasePool.close()`): the
  /// database cannot be used afterwards. Fails, leaving it open, while
  /// another access runs.
  public func close() throws {
    let session = self.session
    writer.writeWithoutTransaction { _ in session.finalizeReadBackStatements() }
    try writer.close()
  }

  /// Interrupts what the connections are running (SQLite's `sqlite3_interrupt`).
  public func interrupt() { writer.interrupt() }

  public func asyncRead(_ value: @escaping @Sendable (Result<Database, Error>) -> Void) {
    writer.asyncRead(value)
  }

  @_disfavoredOverload
  public func unsafeRead<T>(_ value: (Database) throws -> T) throws -> T {
    try writer.unsafeRead(value)
  }

  public func unsafeRead<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
    try await writer.unsafeRead(value)
  }

  public func asyncUnsafeRead(_ value: @escaping @Sendable (Result<Database, Error>) -> Void) {
    writer.asyncUnsafeRead(value)
  }

  public func unsafeReentrantRead<T>(_ value: (Database) throws -> T) throws -> T {
    try writer.unsafeReentrantRead(value)
  }

  public func _add<Reducer: ValueReducer>(
    observation: ValueObservation<Reducer>,
    scheduling scheduler: some ValueObservationScheduler,
    onChange: @escaping @Sendable (Reducer.Value) -> Void
  ) -> AnyDatabaseCancellable {
    writer._add(observation: observation, scheduling: scheduler, onChange: onChange)
  }

  @_disfavoredOverload
  public func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) rethrows -> T {
    try writer.writeWithoutTransaction(updates)
  }

  public func writeWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
    try await writer.writeWithoutTransaction(updates)
  }

  @_disfavoredOverload
  public func barrierWriteWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
    try writer.barrierWriteWithoutTransaction(updates)
  }

  public func barrierWriteWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
    try await writer.barrierWriteWithoutTransaction(updates)
  }

  public func asyncBarrierWriteWithoutTransaction(_ updates: @escaping @Sendable (Result<Database, Error>) -> Void) {
    writer.asyncBarrierWriteWithoutTransaction(updates)
  }

  public func asyncWriteWithoutTransaction(_ updates: @escaping @Sendable (Database) -> Void) {
    writer.asyncWriteWithoutTransaction(updates)
  }

  public func unsafeReentrantWrite<T>(_ updates: (Database) throws -> T) rethrows -> T {
    try writer.unsafeReentrantWrite(updates)
  }

  public func spawnConcurrentRead(_ value: @escaping @Sendable (Result<Database, Error>) -> Void) {
    writer.spawnConcurrentRead(value)
  }
}
