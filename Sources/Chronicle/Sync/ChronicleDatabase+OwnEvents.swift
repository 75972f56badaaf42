import Foundation
import GRDB

extension ChronicleDatabase {
  /// This device's events after `sequence`, in order, signed: at most
  /// `maxEvents`, stopping at the first that reaches `maxBytes` (at least one
  /// when there is one). What a relay client pushes as the device writes.
  package func ownEvents(after sequence: UInt64, maxEvents: Int, maxBytes: Int) throws -> [(sequence: UInt64, bytes: [UInt8])] {
    try sealOwnEvents()
    return try read { db in
      var page: [(sequence: UInt64, bytes: [UInt8])] = [], size = 0
      // Events committed since the sealing above wait for the next page.
      let end = try firstUnsealedOwnSequence(db).map { Int64($0) } ?? .max
      guard sequence < UInt64(Int64.max), Int64(sequence) + 1 < end else { return page }
      let first = Int64(sequence) + 1
      try EventLog.scanSequenceRange(db, origin: peerID, sequences: first..<end, limit: max(1, maxEvents)) { record in
        guard let payload = record.payload else { return true }
        page.append((record.sequence, Array(payload)))
        size += payload.count
        return size < maxBytes
      }
      return page
    }
  }

  /// Throws ``SyncError/compactedAway(origin:needed:baseline:)`` when a
  /// peer at `vector` lacks events of `origin` that this log compacted into
  /// its baseline: they cannot be sent.
  func requireCovered(_ vector: VersionVector, origin: PeerID) throws {
    try writer.read { db in try LogBaseline.requireCovered(vector, origin: origin, in: db) }
  }

  /// The highest sequence of this device's events in the log (0 when none).
  package func lastOwnSequence() throws -> UInt64 {
    try read { db in
      try EventLog.lastSequence(db, origin: peerID)
    }
  }

  /// A signal each time a transaction of this process adds events to the
  /// log, and every `pollInterval` (for events written by other processes,
  /// which this process cannot observe). Ends when the consuming task ends.
  package func logGrowth(pollInterval: Duration) -> AsyncStream<Void> {
    let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let observation = DatabaseRegionObservation(tracking: GRDB.Table<Row>("chronicle_events"))
    let cancellable = observation.start(in: writer, onError: { _ in }, onChange: { _ in continuation.yield() })
    let poll = Task {
      while !Task.isCancelled {
        try? await Task.sleep(for: pollInterval)
        continuation.yield()
      }
    }
    continuation.onTermination = { _ in
      cancellable.cancel()
      poll.cancel()
    }
    return stream
  }
}
