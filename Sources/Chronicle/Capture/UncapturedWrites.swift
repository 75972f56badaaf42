import GRDB

/// Writes that append no event: applying history the log already holds
/// (merge, rebuild, compaction) or repairing a projection. Capture owns the
/// switch; other folders run their steps through
/// ``CaptureSession/uncaptured(_:foreignKeysOff:_:)``.
struct UncapturedWrites {
  fileprivate let session: CaptureSession

  /// The first tracked table a trigger wrote during the step so far: a write
  /// that no event describes (a merge refuses it, inside its transaction).
  var tableWrittenByTrigger: String? { session.tableWrittenByTriggerWhileSuspended }
}

extension CaptureSession {
  /// Runs `body` with capture off: its writes to tracked tables append no
  /// event. With `foreignKeysOff`, foreign keys are off for the step (no
  /// cascades: rows arrive in any order) and back on after it; call it
  /// outside a transaction then, as SQLite ignores the pragma inside one.
  /// With `guardsSkipped`, the guard triggers do not run for the step when
  /// no other trigger exists (``GuardTriggers/skipped(_:_:)``): for steps
  /// that write many rows.
  func uncaptured<T>(
    _ db: Database, foreignKeysOff: Bool = false, guardsSkipped: Bool = false, _ body: (UncapturedWrites) throws -> T
  ) throws -> T {
    if foreignKeysOff { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
    defer { if foreignKeysOff { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
    let wasSuspended = isSuspended
    isSuspended = true
    defer { isSuspended = wasSuspended }
    if guardsSkipped { return try GuardTriggers.skipped(db) { try body(UncapturedWrites(session: self)) } }
    return try body(UncapturedWrites(session: self))
  }
}
