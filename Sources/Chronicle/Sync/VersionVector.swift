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
  public static func read(_ db: Database) throws -> VersionVector {
    // A compacted log starts from its baseline's vector.
    let base = try LogBaseline.read(db)?.vector ?? VersionVector()
    var sequences = base.sequences
    for range in try EventLog.sequenceRanges(db) {
      guard let origin = PeerID(bytes: range.originBytes) else { continue }
      let start = Int64(base[origin]) + 1
      if range.minimum == start && range.maximum - range.minimum + 1 == range.count {
        sequences[origin] = UInt64(range.maximum)
        continue
      }
      // A gap (events received out of order): walk to its start.
      var expected = start
      try EventLog.scanSequences(db, originBytes: range.originBytes, from: start) { sequence in
        guard sequence == expected else { return false }
        expected += 1
        return true
      }
      sequences[origin] = UInt64(expected - 1)
    }
    return VersionVector(sequences)
  }
}
