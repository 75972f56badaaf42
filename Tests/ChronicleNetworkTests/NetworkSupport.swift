import Chronicle
import Foundation
import Logging
import NIOPosix
import Synchronization

import ChronicleTestSupport

@testable import ChronicleNetwork

/// A peer with an `items` table.
func makePeer(_ directory: TemporaryDirectory, _ name: String) throws -> ChronicleDatabase {
  let database = try Chronicle.open(path: directory.path("\(name).sqlite"))
  try database.write { db in
    try db.execute(sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, title TEXT NOT NULL, count INTEGER NOT NULL DEFAULT 0) STRICT")
  }
  return database
}

/// Writes `count` rows, one transaction (one event) each, with ids from `first`.
func writeItems(_ database: ChronicleDatabase, from first: Int, count: Int, perEvent: Int = 1) throws {
  for start in stride(from: first, to: first + count, by: perEvent) {
    try database.write { db in
      for id in start..<min(start + perEvent, first + count) {
        try db.execute(sql: "INSERT INTO items (id, title) VALUES (?, ?)", arguments: [id, "item \(id) written by \(database.peerID.shortDescription)"])
      }
    }
  }
}

extension ChronicleDatabase {
  func itemDigest() throws -> TableDigest? { try digests().first { $0.table == "items" } }
  func eventCount() throws -> Int { try log.count() }
  /// What a test checks to see that nothing changed: the log and the rows.
  func fingerprint() throws -> String { "\(try eventCount()) events, \(String(describing: try itemDigest()))" }
}

/// Copies a database file as a file-sync tool or `cp` would (the WAL
/// checkpointed first, so the copy holds everything, peer id included).
func copyFile(of database: ChronicleDatabase, to path: String) throws {
  _ = try database.writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
  try FileManager.default.copyItem(atPath: database.path, toPath: path)
}

/// A shared key and short timeouts, logging into `logs` when given.
func testConfiguration(key: SyncKey, logs: LogRecorder? = nil) -> NetworkSyncConfiguration {
  var configuration = NetworkSyncConfiguration(key: key, logger: logs?.logger ?? Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
  configuration.handshakeTimeout = .seconds(5)
  configuration.frameTimeout = .seconds(10)
  return configuration
}

/// ``testConfiguration(key:logs:)`` with a minute for the handshake and
/// each frame: for tests that check what a refusal says, which a loaded
/// machine must not turn into a timeout.
func patientConfiguration(key: SyncKey) -> NetworkSyncConfiguration {
  var configuration = testConfiguration(key: key)
  configuration.handshakeTimeout = .seconds(60)
  configuration.frameTimeout = .seconds(60)
  return configuration
}

/// Starts a server on a free loopback port; stops it when `body` returns.
func withServer<T>(
  _ database: ChronicleDatabase, configuration: NetworkSyncConfiguration, maxConnections: Int = 64, blobs: (any BlobStore)? = nil,
  _ body: (SyncServer) async throws -> T
) async throws -> T {
  let server = try await SyncServer.bind(
    database, host: "127.0.0.1", port: 0, configuration: configuration, maxConnections: maxConnections, blobs: blobs)
  // Started on the sessions' threads: the shared pool may be busy with other tests.
  let running = Task(executorPreference: SessionExecutor.shared) { try await server.run() }
  do {
    let result = try await body(server)
    server.shutdown(gracePeriod: .seconds(1))
    try await running.value
    return result
  } catch {
    server.shutdown(gracePeriod: .zero)
    _ = try? await running.value
    throw error
  }
}

/// Connects to a server on loopback and authenticates as `database`, then
/// runs `body` on the session: for tests that speak the protocol by hand
/// (what a hostile client sends, what the server answers it).
func withAuthenticatedSession(
  port: Int, as database: ChronicleDatabase, configuration: NetworkSyncConfiguration,
  _ body: @escaping @Sendable (inout FramedConnection) async throws -> Void
) async throws {
  let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
    .connect(host: "127.0.0.1", port: port) { channel in SyncChannel.wrap(channel, address: "server") }
  try await channel.run(writeTimeout: configuration.frameTimeout) { connection in
    _ = try await Handshake.client(&connection, database: database, configuration: configuration)
    try await body(&connection)
  }
}

/// Collects log messages, to check what a server reported.
final class LogRecorder: Sendable {
  private let entries = Mutex<[(Logger.Level, String)]>([])

  var logger: Logger {
    Logger(label: "test") { _ in Handler(recorder: self) }
  }

  func messages(atLeast level: Logger.Level) -> [String] {
    entries.withLock { $0.filter { $0.0 >= level }.map(\.1) }
  }

  fileprivate func record(_ level: Logger.Level, _ text: String) { entries.withLock { $0.append((level, text)) } }

  struct Handler: LogHandler {
    let recorder: LogRecorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      let all = metadata.merging(event.metadata ?? [:]) { $1 }
      recorder.record(event.level, "\(event.message) " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
    }
  }
}

/// Waits until `condition` holds (polling), or fails after `timeout`.
func eventually(timeout: Duration = .seconds(10), _ condition: () throws -> Bool) async throws -> Bool {
  let deadline = ContinuousClock.now + timeout
  while ContinuousClock.now < deadline {
    if try condition() { return true }
    try await Task.sleep(for: .milliseconds(20))
  }
  return try condition()
}

/// Forgets which rows each of the peer's own events changed, as in a file
/// written before capture kept that index: a merge of older events then
/// reads the peer's history into merge state whole.
func forgetRowTouches(_ directory: TemporaryDirectory, _ name: String) throws {
  try DatabaseQueue(path: directory.path("\(name).sqlite")).write { db in try db.execute(sql: "UPDATE chronicle_event_tables SET row_hashes = NULL") }
}
