import Foundation

/// A way to exchange events with other peers. The engine asks it to send
/// this database's news and to fetch and merge the others'.
public protocol SyncTransport: Sendable {
  /// Sends the events the other side lacks; returns how many.
  func send(from database: ChronicleDatabase) async throws -> Int
  /// Fetches the events this database lacks and merges them.
  func fetch(into database: ChronicleDatabase) async throws -> FetchReport
  /// Sends, then fetches. Transports that can do both in one exchange (one
  /// network connection) override the default, which calls the two in turn.
  func exchange(with database: ChronicleDatabase) async throws -> (sent: Int, fetched: FetchReport)
}

extension SyncTransport {
  /// Sends, then fetches, in two calls.
  public func exchange(with database: ChronicleDatabase) async throws -> (sent: Int, fetched: FetchReport) {
    let sent = try await send(from: database)
    return (sent, try await fetch(into: database))
  }
}

/// A transport that can stay connected: it sends this database's events as
/// they are written and merges the others' as they arrive, instead of
/// syncing on a timer. ``SyncEngine/start(every:)`` uses ``watch(_:report:)``
/// for such a transport.
public protocol LiveSyncTransport: SyncTransport {
  /// Syncs, then stays connected, reconnecting after failures (each one
  /// reported, then retried with a growing delay) until the task is cancelled.
  ///
  /// - Throws: only for problems retrying cannot fix (a setting, a missing
  ///   key file), and `CancellationError` when cancelled.
  func watch(_ database: ChronicleDatabase, report: @escaping @Sendable (SyncEngine.Event) -> Void) async throws
}

/// What a fetch did. Problems with one source (a corrupt file) are reported
/// here and do not stop the others.
public struct FetchReport: Sendable {
  /// The merges, summed over sources.
  public var merged = MergeReport()
  /// Sources applied, each as one transaction.
  public var appliedSources: [String] = []
  /// Sources skipped for now because they are still being written.
  public var incompleteSources: [String] = []
  /// Sources rejected, with the reason; nothing of them was applied.
  public var rejected: [SyncError] = []

  public init() {}

  mutating func add(_ report: MergeReport, source: String) {
    merged.add(report)
    appliedSources.append(source)
  }
}

extension SyncTransport where Self == MemoryTransport {
  /// Exchanges events directly with another database in this process.
  public static func memory(_ peer: ChronicleDatabase) -> MemoryTransport { MemoryTransport(peer: peer) }
}

extension SyncTransport where Self == DirectoryTransport {
  /// Exchanges events through a shared folder.
  public static func directory(_ folder: URL) -> DirectoryTransport { DirectoryTransport(folder: folder) }
}

/// Exchanges events with another database in the same process: both sides
/// compare version vectors and ship what the other lacks (relayed events
/// included). For tests, and for apps that hold two databases.
///
/// Events move in batches of at most ``maxBatchEvents`` events or about
/// ``maxBatchBytes``, each merged in a transaction of its own (as the TCP
/// transport does): memory stays bounded however much is missing, and an
/// error keeps the batches merged before it.
public struct MemoryTransport: SyncTransport {
  public let peer: ChronicleDatabase
  /// The most events one batch holds (10,000).
  public var maxBatchEvents = 10_000
  /// About the most bytes one batch holds (1 MiB, as TCP's batches: see
  /// ``DirectoryTransport/maxSegmentBytes``); a batch holds at least one event.
  public var maxBatchBytes = 1 << 20

  public init(peer: ChronicleDatabase) { self.peer = peer }

  public func send(from database: ChronicleDatabase) async throws -> Int {
    try move(from: database, to: peer).events
  }

  public func fetch(into database: ChronicleDatabase) async throws -> FetchReport {
    let source = "memory:\(peer.peerID.shortDescription)"
    var report = FetchReport()
    report.add(try move(from: peer, to: database).merged, source: source)
    return report
  }

  /// Merges into `target`, batch by batch, what `source` holds beyond it.
  private func move(from source: ChronicleDatabase, to target: ChronicleDatabase) throws -> (events: Int, merged: MergeReport) {
    let name = "memory:\(source.peerID.shortDescription)"
    var outgoing = try OutgoingEvents(from: source, beyond: target.versionVector())
    var events = 0
    var merged = MergeReport()
    while let batch = try outgoing.nextPage(maxEvents: maxBatchEvents, maxBytes: maxBatchBytes) {
      merged.add(try target.applyRemote(serializedEvents: batch, source: name))
      events += batch.count
    }
    return (events, merged)
  }
}
