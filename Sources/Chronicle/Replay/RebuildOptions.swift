/// How to rebuild a database's tables from its log.
public struct RebuildOptions: Sendable {
  /// The app's conversions and upcasters, for migrations that need code.
  public var upcasters: Upcasters
  /// Build and verify, report what would change, and leave the tables as they are.
  public var isDryRun: Bool
  /// Adopt the live rows instead of replacing them: where they differ from
  /// the rebuilt ones (writes made outside Chronicle), record the
  /// difference as one new event, which every peer then gets. `chronicle adopt`.
  public var adoptsLiveRows: Bool
  /// Events applied per transaction of the shadow database (and checkpoint).
  public var eventsPerCheckpoint: Int
  /// Called now and then with how far the rebuild got.
  public var progress: (@Sendable (ReplayProgress) -> Void)?
  /// Stops (as an interruption would) after this many events: for tests of resuming.
  var stopsAfterEvents: Int?

  public init(
    upcasters: Upcasters = Upcasters(), isDryRun: Bool = false, adoptsLiveRows: Bool = false, eventsPerCheckpoint: Int = 500,
    progress: (@Sendable (ReplayProgress) -> Void)? = nil
  ) {
    self.upcasters = upcasters
    self.isDryRun = isDryRun
    self.adoptsLiveRows = adoptsLiveRows
    self.eventsPerCheckpoint = max(1, eventsPerCheckpoint)
    self.progress = progress
  }
}

/// What a rebuild did.
public struct RebuildReport: Sendable {
  /// Events applied by this run (after the checkpoint it resumed from).
  public var eventCount: Int
  /// Row operations applied by this run, after upcasting.
  public var rowChangeCount: Int
  /// The log position an interrupted rebuild resumed after, if it did.
  public var resumedAfter: Int64?
  /// Each tracked table, live (before the swap) against rebuilt.
  public var tables: [VerificationReport.TableCheck]
  /// Rows that the rebuild changes (live first, rebuilt second), when any.
  public var differences: DatabaseDiff?
  /// Whether the rebuilt tables replaced the live ones.
  public var swapped: Bool
  /// With ``RebuildOptions/adoptsLiveRows``: the event that records how the
  /// live rows differed (`nil` when they did not).
  public var adoptedEvent: StoredEvent?
}

/// A rebuild stopped before the end, on purpose (tests) or by an error; its
/// checkpoint stays for the next run.
struct RebuildInterrupted: Error {}
