import Foundation
import GRDB
import Synchronization

/// Keeps a database in sync with its peers through a transport: sends this
/// peer's events, fetches and merges the others' (per-column last-write-wins
/// on hybrid logical clocks), on demand or on a timer.
///
/// ```swift
/// let sync = SyncEngine(for: database, transport: .directory(folder))
/// try await sync.syncChanges()
/// ```
public final class SyncEngine: Sendable {
  /// Something the engine did, for progress display and logging.
  public enum Event: Sendable {
    /// Events sent to the transport.
    case sent(count: Int)
    /// A fetch merged remote events.
    case fetched(FetchReport)
    /// A sync step failed; the database is as it was before the step.
    case failed(String)
  }

  public let database: ChronicleDatabase
  public let transport: any SyncTransport
  /// The tables this engine is for (informational: events carry every
  /// tracked table, and each peer applies the tables it has).
  public let tables: [String]

  private struct State {
    var task: Task<Void, Never>?
    var isSending = false
    var isFetching = false
    var continuations: [UUID: AsyncStream<Event>.Continuation] = [:]
  }
  private let state = Mutex(State())

  /// Creates an engine; nothing happens until ``start(every:)`` or a call to
  /// ``syncChanges()``.
  public init(for database: ChronicleDatabase, tables: [String] = [], transport: some SyncTransport) {
    self.database = database
    self.tables = tables
    self.transport = transport
  }

  /// Creates an engine for `@Dependency(\.defaultDatabase)` or what
  /// `appDatabase()` returns, as SQLiteData apps write
  /// `SyncEngine(for: $0.defaultDatabase, …)`; it must be a
  /// ``ChronicleDatabase`` (``defaultDatabase(path:configuration:)``), or
  /// this throws ``ChronicleError/notChronicleWriter(_:)``.
  public convenience init(for database: any DatabaseWriter, tables: [String] = [], transport: some SyncTransport) throws {
    guard let database = database as? ChronicleDatabase else {
      throw ChronicleError.notChronicleWriter("\(type(of: database))")
    }
    self.init(for: database, tables: tables, transport: transport)
  }

  /// Creates an engine for the tables of these types, as SQLiteData apps
  /// name them: `SyncEngine(for: $0.defaultDatabase, tables: Reminder.self, RemindersList.self, transport: …)`.
  public convenience init(
    for database: any DatabaseWriter, tables first: any Table.Type, _ rest: any Table.Type..., transport: some SyncTransport
  ) throws {
    try self.init(for: database, tables: ([first] + rest).map { $0.tableName }, transport: transport)
  }

  /// Whether the periodic sync loop is running.
  public var isRunning: Bool { state.withLock { $0.task != nil } }
  /// Whether events are being sent.
  public var isSendingChanges: Bool { state.withLock { $0.isSending } }
  /// Whether events are being fetched and merged.
  public var isFetchingChanges: Bool { state.withLock { $0.isFetching } }
  /// Whether a send or a fetch is in progress.
  public var isSynchronizing: Bool { state.withLock { $0.isSending || $0.isFetching } }

  /// A stream of what the engine does, from now on.
  public var events: AsyncStream<Event> {
    let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(256))
    let id = UUID()
    state.withLock { $0.continuations[id] = continuation }
    continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.continuations.removeValue(forKey: id) } }
    return stream
  }

  private func emit(_ event: Event) {
    for continuation in state.withLock({ Array($0.continuations.values) }) { continuation.yield(event) }
  }

  /// Sends this database's events that the transport lacks; returns how many.
  @discardableResult
  public func sendChanges() async throws -> Int {
    state.withLock { $0.isSending = true }
    defer { state.withLock { $0.isSending = false } }
    do {
      let count = try await transport.send(from: database)
      emit(.sent(count: count))
      return count
    } catch {
      emit(.failed("\(error)"))
      throw error
    }
  }

  /// Fetches and merges the events this database lacks.
  @discardableResult
  public func fetchChanges() async throws -> FetchReport {
    state.withLock { $0.isFetching = true }
    defer { state.withLock { $0.isFetching = false } }
    do {
      let report = try await transport.fetch(into: database)
      emit(.fetched(report))
      return report
    } catch {
      emit(.failed("\(error)"))
      throw error
    }
  }

  /// Sends, then fetches (over one connection when the transport can).
  @discardableResult
  public func syncChanges() async throws -> FetchReport {
    state.withLock {
      $0.isSending = true
      $0.isFetching = true
    }
    defer {
      state.withLock {
        $0.isSending = false
        $0.isFetching = false
      }
    }
    do {
      let (sent, fetched) = try await transport.exchange(with: database)
      emit(.sent(count: sent))
      emit(.fetched(fetched))
      return fetched
    } catch {
      emit(.failed("\(error)"))
      throw error
    }
  }

  /// Starts syncing every `interval` (until ``stop()``). Failures are reported
  /// on ``events`` and retried at the next tick.
  ///
  /// With a transport that can stay connected (``LiveSyncTransport``, such as
  /// a relay), the engine stays connected instead: this database's events
  /// are sent as they are written and the others' merged as they arrive;
  /// `interval` is not used.
  public func start(every interval: Duration = .seconds(5)) {
    state.withLock { state in
      guard state.task == nil else { return }
      if let live = transport as? any LiveSyncTransport {
        let database = self.database
        state.task = Task { [weak self] in
          do {
            try await live.watch(database) { [weak self] event in self?.emit(event) }
          } catch is CancellationError {
          } catch {
            self?.emit(.failed("\(error)"))
          }
        }
        return
      }
      state.task = Task { [weak self] in
        while !Task.isCancelled {
          guard let self else { return }
          _ = try? await self.syncChanges()
          try? await Task.sleep(for: interval)
        }
      }
    }
  }

  /// Stops the periodic sync loop (a step in progress finishes).
  public func stop() {
    state.withLock { state in
      state.task?.cancel()
      state.task = nil
    }
  }

  /// Stops the periodic sync loop (waiting for a step in progress), then deletes this peer's copy of the
  /// synced data (see ``ChronicleDatabase/deleteLocalData()``), for instance
  /// when the user leaves the group. Other peers keep theirs: the deletion
  /// is not an event. Calling ``start(every:)`` or ``syncChanges()`` later
  /// fetches the group's data again, under the database's new peer identity.
  public func deleteLocalData() async throws {
    let loop = state.withLock { state in
      defer { state.task = nil }
      state.task?.cancel()
      return state.task
    }
    await loop?.value  // a step in progress must not bring data back afterwards
    let database = self.database
    try await Task.detached { try database.deleteLocalData() }.value
  }

  deinit {
    state.withLock { state in
      state.task?.cancel()
      for continuation in state.continuations.values { continuation.finish() }
    }
  }
}
