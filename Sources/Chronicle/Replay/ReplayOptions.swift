/// How to replay a log.
public struct ReplayOptions: Sendable {
  /// Stop after this point; nil replays the whole log.
  public var until: HistoryPoint?
  /// Replay only the rows of these tables (and of the tables they reference
  /// through foreign keys, which their rows need); nil replays every table.
  /// The other tables are left out of the result.
  public var tables: Set<String>?
  /// Whether an event that cannot be applied stops the replay (the default),
  /// or is skipped, rolled back on its own, and listed in the report.
  public var isStrict = true
  /// Whether the result is a Chronicle database (the replayed log, its merge
  /// state and the tables, openable with `Chronicle.open` and the tools), or
  /// only the application's tables. A replay of some ``tables`` always gives
  /// only the tables.
  public var keepsLog = true
  /// Whether the report carries the digest of every replayed table (a hash
  /// of every row: skip it when nothing will compare them).
  public var computesDigests = true
  /// Called now and then with how far the replay got, for progress bars.
  public var progress: (@Sendable (ReplayProgress) -> Void)?

  public init(
    until: HistoryPoint? = nil, tables: Set<String>? = nil, isStrict: Bool = true, keepsLog: Bool = true,
    computesDigests: Bool = true, progress: (@Sendable (ReplayProgress) -> Void)? = nil
  ) {
    self.until = until
    self.tables = tables
    self.isStrict = isStrict
    self.keepsLog = keepsLog
    self.computesDigests = computesDigests
    self.progress = progress
  }
}

/// How far a long replay got.
public struct ReplayProgress: Sendable {
  /// Events read from the log so far.
  public var eventsRead: Int
  /// Events the log holds in the replayed range.
  public var totalEvents: Int
  /// Row changes applied so far.
  public var rowChanges: Int
}

/// An event a lenient replay could not apply.
public struct ReplayFailure: Sendable, Hashable {
  /// Log position.
  public var position: Int64
  public var event: EventID
  /// Why it could not be applied.
  public var reason: String
}

/// What a replay did.
public struct ReplayReport: Sendable {
  /// Events applied.
  public var eventCount: Int
  /// Row operations applied.
  public var rowChangeCount: Int
  /// The last event applied, if any.
  public var lastEvent: EventID?
  /// Events skipped by a lenient replay (never any in a strict one).
  public var failures: [ReplayFailure]
  /// Digests of the replayed tables (empty unless ``ReplayOptions/computesDigests``).
  public var digests: [TableDigest]
}
