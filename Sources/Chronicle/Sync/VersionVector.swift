import Foundation
import GRDB

/// For each origin peer, the highest sequence number up to which a log holds
/// every event of that peer without a gap. What a peer lacks is what lies
/// beyond the other's vector.
public struct VersionVector: Hashable, Sendable, CustomStringConvertible {
  public private(set) var sequences: [PeerID: UInt64]

  public init(_ sequences: [PeerID: UInt64] = [:]) {
    self.sequences = sequences.filter { $0.value > 0 }
  }

  /// The highest contiguous sequence of `origin` (0 when none).
  public subscript(origin: PeerID) -> UInt64 {
    get { sequences[origin] ?? 0 }
    set { sequences[origin] = newValue > 0 ? newValue : nil }
  }

  /// Whether the event `origin:sequence` is covered.
  public func contains(origin: PeerID, sequence: UInt64) -> Bool { sequence <= self[origin] }

  /// `peer:sequence` pairs sorted by peer, comma-separated (the CLI's `--since` form).
  public var description: String {
    sequences.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",")
  }

  /// Parses the ``description`` form: full peer UUIDs and sequences.
  public init(parsing text: String) throws {
    var sequences: [PeerID: UInt64] = [:]
    for part in text.split(separator: ",", omittingEmptySubsequences: true) {
      let pieces = part.split(separator: ":")
      guard pieces.count == 2, let peer = PeerID(String(pieces[0]).trimmingCharacters(in: .whitespaces)),
            let sequence = UInt64(pieces[1].trimmingCharacters(in: .whitespaces))
      else {
        throw SyncError.invalidVersionVector(text: String(part))
      }
      sequences[peer] = sequence
    }
    self.init(sequences)
  }

  /// The vector of the log in `db`.
  ///
  /// It starts from what the log is known to hold: a compacted log's
  /// baseline, and the checkpoint that merges and sealing save with the
  /// events they append (``saveCheckpoint(_:)``). From there each origin's
  /// sequences are walked in the `(origin, sequence)` index up to the first
  /// gap: a read costs the events appended since, not the log's length.
  ///
  /// Events refused here for good count as held: no peer sends them again.
  public static func read(_ db: Database) throws -> VersionVector {
    var sequences = (try LogBaseline.Header.read(db)?.vector ?? VersionVector()).sequences
    if try ChronicleMeta(db: db).exists(),
       let saved = try ChronicleMeta(db: db).value(.vectorCheckpoint), let checkpoint = try? VersionVector(parsing: saved) {
      sequences.merge(checkpoint.sequences, uniquingKeysWith: max)
    }
    // This device's own events have no gap (capture appends them in order,
    // and none comes from elsewhere): its latest sequence is its entry,
    // where walking them would read a long local history on every sync
    // until the first merge saves a checkpoint.
    let local = try db.tableExists("chronicle_peer")
      ? try Data.fetchOne(db, sql: "SELECT peer_id FROM chronicle_peer").flatMap { PeerID(bytes: $0) } : nil
    // Events refused for good count as held: no peer sends them again.
    let settled = try RefusedEvents(db: db).settledSequences()
    var originBytes = try EventLog.originBytes(db)
    if !settled.isEmpty {
      let known = Set(originBytes)
      originBytes += settled.keys.map { Data($0.bytes) }.filter { !known.contains($0) }
    }
    for originBytes in originBytes {
      guard let origin = PeerID(bytes: originBytes) else { continue }
      if origin == local {
        sequences[origin] = max(sequences[origin] ?? 0, try EventLog.lastSequence(db, origin: origin))
        continue
      }
      var expected = Int64(sequences[origin] ?? 0) + 1
      let refused = settled[origin] ?? []
      while true {
        try EventLog.scanSequences(db, originBytes: originBytes, from: expected) { sequence in
          guard sequence == expected else { return false }
          expected += 1
          return true
        }
        guard refused.contains(UInt64(expected)) else { break }
        while refused.contains(UInt64(expected)) { expected += 1 }
      }
      sequences[origin] = UInt64(expected - 1)
    }
    return VersionVector(sequences)
  }

  /// Saves the vector of the log in `db` as the checkpoint that reads start
  /// from. Called inside the transaction that appended the events it
  /// covers, so that it never claims an event a rollback took back; only
  /// compaction (whose baseline covers what it removes) and
  /// ``ChronicleDatabase/deleteLocalData()`` (which removes the checkpoint)
  /// remove events.
  /// Lowers the checkpoint's entry of `origin` below `sequence`: an event
  /// counted as held (a settled refusal) is no longer.
  static func lowerCheckpoint(_ db: Database, origin: PeerID, below sequence: UInt64) throws {
    let meta = ChronicleMeta(db: db)
    guard let saved = try meta.value(.vectorCheckpoint), var checkpoint = try? VersionVector(parsing: saved),
          checkpoint[origin] >= sequence else { return }
    checkpoint[origin] = sequence - 1
    try meta.set(.vectorCheckpoint, to: checkpoint.description)
  }

  static func saveCheckpoint(_ db: Database) throws {
    try ChronicleMeta(db: db).set(.vectorCheckpoint, to: try read(db).description)
  }
}
