import Chronicle
import Foundation

/// The two halves of a transfer: one side streams the events the other
/// lacks (offer, events, end), the other applies them in bounded batches
/// and answers with what it applied.
enum EventStreams {
  /// Sends `outgoing` and waits for the receiver's report; returns how
  /// many events were sent and how many the receiver applied.
  static func send(
    _ outgoing: OutgoingEvents, over connection: inout FramedConnection, configuration: NetworkSyncConfiguration,
    progress: (@Sendable (NetworkSyncProgress) -> Void)?
  ) async throws -> (sent: Int, applied: Int) {
    try await connection.send(.offer(events: outgoing.count, bytes: outgoing.bytes))
    let start = ContinuousClock.now
    var cursor = outgoing
    var sentEvents = 0, sentBytes = 0
    var pacer = SendPacer(rate: configuration.maxSendRate)
    let frameLimit = configuration.maxFrameSize - SessionCipher.overhead - 64
    while true {
      let (next, page) = try await offload { [cursor] in
        var next = cursor
        let page = try next.nextPage(maxEvents: 4096, maxBytes: configuration.frameBytes)
        return (next, page)
      }
      cursor = next
      guard let page else { break }
      for frame in try frames(page, limit: frameLimit) {
        try await connection.send(.events(frame))
        sentEvents += frame.count
        sentBytes += frame.reduce(0) { $0 + $1.count }
        progress?(NetworkSyncProgress(
          direction: .sending, events: sentEvents, totalEvents: outgoing.count, bytes: sentBytes, totalBytes: outgoing.bytes,
          elapsed: ContinuousClock.now - start))
        try await pacer.sent(frame.reduce(0) { $0 + $1.count })
      }
    }
    try await connection.send(.end)
    let answer = try await connection.receive("the applied report", within: configuration.frameTimeout)
    guard case .applied(let applied, _, _) = answer else { throw connection.unexpected(answer, waitingFor: "the applied report") }
    return (sentEvents, applied)
  }

  /// Splits a page into frames of at most `limit` bytes.
  private static func frames(_ page: [[UInt8]], limit: Int) throws -> [[[UInt8]]] {
    var frames: [[[UInt8]]] = [], current: [[UInt8]] = [], size = 0
    for event in page {
      let cost = event.count + 10
      guard cost <= limit else { throw NetworkSyncError.eventTooLarge(size: event.count, limit: limit) }
      if size + cost > limit, !current.isEmpty {
        frames.append(current)
        current = []
        size = 0
      }
      current.append(event)
      size += cost
    }
    if !current.isEmpty { frames.append(current) }
    return frames
  }

  /// Receives a stream and merges it into `database`, one transaction per
  /// batch; answers with what was applied. An event the database refuses
  /// (forged, from a newer schema, ...) rolls its batch back, is reported
  /// to the sender, and ends the session.
  static func receive(
    into database: ChronicleDatabase, over connection: inout FramedConnection, configuration: NetworkSyncConfiguration,
    progress: (@Sendable (NetworkSyncProgress) -> Void)?
  ) async throws -> MergeReport {
    let offer = try await connection.receive("an offer", within: configuration.frameTimeout)
    guard case .offer(let totalEvents, let totalBytes) = offer else { throw connection.unexpected(offer, waitingFor: "an offer") }
    let start = ContinuousClock.now
    let source = "tcp:\(connection.peerName)"
    var report = MergeReport()
    var pending: [[UInt8]] = [], pendingBytes = 0
    var receivedEvents = 0, receivedBytes = 0

    func apply(_ batch: [[UInt8]]) async throws {
      do {
        report.add(try await offload { try database.applyRemote(serializedEvents: batch, source: source) })
      } catch let error as SyncError {
        await connection.sendFailureQuietly("your events were refused: \(error)")
        throw error
      }
      progress?(NetworkSyncProgress(
        direction: .receiving, events: receivedEvents, totalEvents: totalEvents, bytes: receivedBytes, totalBytes: totalBytes,
        elapsed: ContinuousClock.now - start))
    }

    while true {
      let message = try await connection.receive("events", within: configuration.frameTimeout)
      switch message {
      case .events(let events):
        guard receivedEvents + events.count <= totalEvents else {
          throw connection.violation("more events than the \(totalEvents) it offered")
        }
        receivedEvents += events.count
        for event in events {
          pendingBytes += event.count
          receivedBytes += event.count
        }
        pending += events
        if pendingBytes >= configuration.applyBatchBytes || pending.count >= configuration.applyBatchEvents {
          try await apply(pending)
          pending = []
          pendingBytes = 0
        }
      case .end:
        guard receivedEvents == totalEvents else {
          throw connection.violation("the end of its stream after \(receivedEvents) of the \(totalEvents) events it offered")
        }
        if !pending.isEmpty { try await apply(pending) }
        try await connection.send(.applied(events: report.appliedEvents, duplicates: report.duplicateEvents, rowChanges: report.rowChanges))
        return report
      default:
        throw connection.unexpected(message, waitingFor: "events")
      }
    }
  }
}

extension MergeReport {
  mutating func add(_ batch: MergeReport) {
    appliedEvents += batch.appliedEvents
    duplicateEvents += batch.duplicateEvents
    rowChanges += batch.rowChanges
    parkedRows = batch.parkedRows
  }
}
