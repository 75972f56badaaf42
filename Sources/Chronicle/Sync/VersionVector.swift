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
    let rows = try Row.fetchAll(db, sql: "SELECT origin, MAX(sequence), COUNT(*), MIN(sequence) FROM chronicle_events GROUP BY origin")
    for row in rows {
      guard let origin = PeerID(bytes: row[0] as Data) else { continue }
      let maximum: Int64 = row[1], count: Int64 = row[2], minimum: Int64 = row[3]
      let start = Int64(base[origin]) + 1
      if minimum == start && maximum - minimum + 1 == count {
        sequences[origin] = UInt64(maximum)
        continue
      }
      // A gap (events received out of order): walk to its start.
      var expected = start
      let cursor = try Int64.fetchCursor(
        db, sql: "SELECT sequence FROM chronicle_events WHERE origin = ? AND sequence >= ? ORDER BY sequence", arguments: [row[0] as Data, start])
      while let sequence = try cursor.next(), sequence == expected { expected += 1 }
      sequences[origin] = UInt64(expected - 1)
    }
    return VersionVector(sequences)
  }
}
