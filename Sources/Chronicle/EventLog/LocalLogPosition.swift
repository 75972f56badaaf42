import Foundation
import GRDB

/// Where this peer's next event goes: its sequence number and the schema epoch
/// it starts from. Read from the log, so appending writes nothing else.
struct LocalLogPosition: Equatable {
  var nextSequence: UInt64
  var schemaEpoch: UInt64

  /// Reads the position after `origin`'s last event in the log.
  static func read(_ db: Database, origin: PeerID) throws -> LocalLogPosition {
    let row = try Row.fetchOne(
      db, sql: "SELECT sequence, schema_epoch FROM chronicle_events WHERE origin = ? ORDER BY sequence DESC LIMIT 1",
      arguments: [Data(origin.bytes)])
    guard let row else {
      // Every event of this peer was compacted away (or it has none yet).
      let baseline = try LogBaseline.Header.read(db)
      let floor = try ChronicleMeta(db: db).value(.epochFloor) ?? 0
      return LocalLogPosition(
        nextSequence: (baseline?.vector[origin] ?? 0) + 1,
        schemaEpoch: max(baseline.map { $0.vector[origin] > 0 ? $0.schemaEpoch : 0 } ?? 0, UInt64(floor)))
    }
    let sequence: Int64 = row[0]
    let epoch: Int64 = row[1]
    return LocalLogPosition(nextSequence: UInt64(sequence) + 1, schemaEpoch: UInt64(epoch))
  }

  /// The highest clock reading of any event in the log (local or received):
  /// where this peer's clock resumes.
  static func latestClock(_ db: Database) throws -> HLCTimestamp {
    let raw = try Int64.fetchOne(db, sql: "SELECT MAX(hlc) FROM chronicle_events") ?? 0
    let logged = HLCTimestamp(rawValue: UInt64(bitPattern: raw))
    return max(logged, try LogBaseline.Header.read(db)?.timestamp ?? .zero)
  }
}
