import Chronicle
import Foundation
import Synchronization

/// The two halves of a transfer: one side streams the events the other
/// lacks (offer, events, end), the other applies them in bounded batches
/// and answers with what it applied.
enum EventStreams {
  /// Sends `outgoing` and waits for the receiver's report; returns how
  /// many events were sent and how many the receiver applied.
  static func send(
    _ outgoing: OutgoingEvents, answering wants: [RouteWant] = [], over connection: inout FramedConnection,
    configuration: NetworkSyncConfiguration, progress: (@Sendable (NetworkSyncProgress) -> Void)?
  ) async throws -> (sent: Int, applied: Int) {
    // Every version spoken (from WireMessage.oldestProtocolVersion, 5) names
    // the oldest clock and waits for the receiver to be ready.
    try await connection.send(.offer(events: outgoing.count, bytes: outgoing.bytes, oldest: outgoing.oldestTimestamp))
    try await waitUntilReady(over: &connection, configuration: configuration, progress: progress)
    // Routes of events the receiver holds and would forward, that it asked for.
    if connection.protocolVersion >= 6, !wants.isEmpty {
      let answered = try await offload { [outgoing] in try outgoing.routes(answering: wants) }
      if !answered.isEmpty { try await connection.send(.routes(answered)) }
    }
    let start = ContinuousClock.now
    var cursor = outgoing
    var sentEvents = 0, sentBytes = 0
    var pacer = SendPacer(rate: configuration.maxSendRate)
    let frameLimit = configuration.maxFrameSize - SessionCipher.overhead - 64
    while true {
      let carriesRoutes = connection.protocolVersion >= 6
      let (next, identified, routes) = try await offload { [cursor] in
        var next = cursor
        let page = try next.nextIdentifiedPage(maxEvents: WireMessage.maxEventsPerMessage, maxBytes: configuration.frameBytes)
        let routes = carriesRoutes ? try page.map { try next.routes(for: $0.map(\.id)) } ?? [] : []
        return (next, page, routes)
      }
      cursor = next
      guard let page = identified?.map(\.bytes) else { break }
      // Their origins' signatures for relays first: the receiver keeps them
      // to forward the events to a relay.
      if !routes.isEmpty { try await connection.send(.routes(routes)) }
      for piece in try pieces(page, frameLimit: frameLimit, maxEventSize: configuration.maxEventSize) {
        let size: Int
        switch piece {
        case .frame(let frame):
          try await connection.send(.events(frame))
          size = frame.reduce(0) { $0 + $1.count }
        case .large(let event):
          // An event over the frame limit goes in parts, each a frame.
          var offset = 0
          while offset < event.count {
            let end = min(offset + frameLimit, event.count)
            try await connection.send(.eventPart(total: event.count, bytes: Array(event[offset..<end])))
            try await pacer.sent(end - offset)
            offset = end
          }
          size = event.count
        }
        sentEvents += piece.eventCount
        sentBytes += size
        progress?(NetworkSyncProgress(
          direction: .sending, events: sentEvents, totalEvents: outgoing.count, bytes: sentBytes, totalBytes: outgoing.bytes,
          elapsed: ContinuousClock.now - start))
        if case .frame = piece { try await pacer.sent(size) }
      }
    }
    try await connection.send(.end)
    let answer = try await connection.receive("the applied report", within: configuration.frameTimeout)
    guard case .applied(let applied, _, _) = answer else { throw connection.unexpected(answer, waitingFor: "the applied report") }
    return (sentEvents, applied)
  }

  /// Waits for the receiver's `ready`, through the `working` reports it sends
  /// while it prepares its merge state.
  private static func waitUntilReady(
    over connection: inout FramedConnection, configuration: NetworkSyncConfiguration, progress: (@Sendable (NetworkSyncProgress) -> Void)?
  ) async throws {
    let start = ContinuousClock.now
    while true {
      let message = try await connection.receive("the receiving side to be ready", within: configuration.frameTimeout)
      switch message {
      case .ready:
        return
      case .working(let folded, let total):
        guard folded <= total else { throw connection.violation("a preparation report of \(folded) events of \(total)") }
        progress?(NetworkSyncProgress(
          direction: .preparing, events: folded, totalEvents: total, bytes: 0, totalBytes: 0, elapsed: ContinuousClock.now - start))
      default:
        throw connection.unexpected(message, waitingFor: "the receiving side to be ready")
      }
    }
  }

  /// Brings `database`'s merge state up to date before events arrive (its
  /// own events from the oldest of theirs on, when the offer names it),
  /// telling the sender how far it is every `workingInterval`, then tells
  /// it to send. (Otherwise the first merge would read the whole history
  /// while the sender waits for a batch to be taken, in silence.)
  private static func prepare(
    _ database: ChronicleDatabase, since oldest: HLCTimestamp?, over connection: inout FramedConnection,
    configuration: NetworkSyncConfiguration, progress: (@Sendable (NetworkSyncProgress) -> Void)?
  ) async throws {
    let start = ContinuousClock.now
    let folded = Mutex((folded: 0, total: 0))
    let isDone = Mutex(false)
    let work = Task {
      defer { isDone.withLock { $0 = true } }
      return try await offload {
        try database.prepareMergeState(since: oldest) { done, total in
          folded.withLock { $0 = (done, total) }
          progress?(NetworkSyncProgress(
            direction: .preparing, events: done, totalEvents: total, bytes: 0, totalBytes: 0, elapsed: ContinuousClock.now - start))
        }
      }
    }
    // Polled: awaiting the task's value would hold this task until the end.
    var reported = start
    while !isDone.withLock({ $0 }) {
      try await Task.sleep(for: .milliseconds(20))
      guard ContinuousClock.now - reported >= configuration.workingInterval, !isDone.withLock({ $0 }) else { continue }
      let (done, total) = folded.withLock { $0 }
      try await connection.send(.working(folded: done, total: total))
      reported = ContinuousClock.now
    }
    do {
      _ = try await work.value
    } catch {
      await connection.sendFailureQuietly("it could not prepare its merge state: \(error)")
      throw error
    }
    try await connection.send(.ready)
  }

  /// What a page is sent as: frames of whole events, and events too large
  /// for a frame, each sent in parts.
  enum Piece {
    case frame([[UInt8]])
    case large([UInt8])

    var eventCount: Int {
      switch self {
      case .frame(let events): events.count
      case .large: 1
      }
    }
  }

  /// Splits a page into frames of at most `frameLimit` bytes, in order, and
  /// sets apart each event too large for one.
  static func pieces(_ page: [[UInt8]], frameLimit: Int, maxEventSize: Int) throws -> [Piece] {
    var pieces: [Piece] = [], current: [[UInt8]] = [], size = 0
    for event in page {
      let cost = event.count + 10
      if size + cost > frameLimit, !current.isEmpty {
        pieces.append(.frame(current))
        current = []
        size = 0
      }
      guard cost <= frameLimit else {
        guard event.count <= maxEventSize else { throw NetworkSyncError.eventTooLarge(size: event.count, limit: maxEventSize) }
        pieces.append(.large(event))
        continue
      }
      current.append(event)
      size += cost
    }
    if !current.isEmpty { pieces.append(.frame(current)) }
    return pieces
  }

  /// The most routes a receiver holds before the events they are for are
  /// applied (a sender sends a page's, at most 4,096, before its events).
  static let maxPendingRoutes = 16_384

  /// Receives a stream and merges it into `database`, one transaction per
  /// batch; answers with what was applied. An event the database refuses
  /// (forged, unsigned, from a device revoked before it, ...) is recorded
  /// there and logged, and the rest applies; an error that stops the batch
  /// (a newer schema, a trigger that writes while merging, ...) rolls it
  /// back, is reported to the sender, and ends the session. Routes come
  /// from members only (`takesRoutes`): a route is kept unchecked until it
  /// is forwarded, and the first one held for an event stays, so a
  /// stranger's would keep the genuine one out.
  static func receive(
    into database: ChronicleDatabase, over connection: inout FramedConnection, configuration: NetworkSyncConfiguration,
    takesRoutes: Bool = true, progress: (@Sendable (NetworkSyncProgress) -> Void)?
  ) async throws -> MergeReport {
    let offer = try await connection.receive("an offer", within: configuration.frameTimeout)
    guard case .offer(let totalEvents, let totalBytes, let oldest) = offer else { throw connection.unexpected(offer, waitingFor: "an offer") }
    // Events all newer than local history not folded yet merge ahead of
    // it: no preparation (an offer without its oldest clock may need one).
    if totalEvents > 0, try await offload({ try database.mergeNeedsPreparation(forEventsFrom: oldest) }) {
      try await prepare(database, since: oldest, over: &connection, configuration: configuration, progress: progress)
    } else {
      try await connection.send(.ready)
    }
    let start = ContinuousClock.now
    let source = "tcp:\(connection.peerName)"
    var report = MergeReport()
    var pending: [[UInt8]] = [], pendingBytes = 0
    var receivedEvents = 0, receivedBytes = 0
    /// An event arriving in parts, until it is whole.
    var partial: (total: Int, bytes: [UInt8])?

    var pendingRoutes: [StoredEventRoute] = []

    func apply(_ batch: [[UInt8]]) async throws {
      do {
        let routes = pendingRoutes
        pendingRoutes = []
        let merged = try await offload {
          let merged = batch.isEmpty ? MergeReport() : try database.applyRemote(serializedEvents: batch, source: source)
          try database.saveEventRoutes(routes)
          return merged
        }
        if !merged.refused.isEmpty {
          configuration.logger.warning(
            "refused events", metadata: ["from": "\(source)", "count": "\(merged.refused.count)", "first": "\(merged.refused[0])"])
        }
        report.add(merged)
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
        guard partial == nil else { throw connection.violation("new events before the event it was sending in parts was whole") }
        guard receivedEvents + events.count <= totalEvents else {
          throw connection.violation("more events than the \(totalEvents) it offered")
        }
        receivedEvents += events.count
        for event in events {
          pendingBytes += event.count
          receivedBytes += event.count
        }
        pending += events
      case .routes(let routes):
        // Kept once their events are applied (only routes of held events are).
        if takesRoutes { pendingRoutes += routes.prefix(max(0, Self.maxPendingRoutes - pendingRoutes.count)) }
        continue
      case .eventPart(let total, let bytes):
        let continuing = partial != nil
        var event = partial ?? (total, [])
        partial = nil  // so that appending does not copy the bytes so far
        if !continuing {
          guard receivedEvents < totalEvents else { throw connection.violation("more events than the \(totalEvents) it offered") }
          guard total <= configuration.maxEventSize else {
            throw connection.violation("an event of \(total) bytes, over this side's limit of \(configuration.maxEventSize) (maxEventSize)")
          }
          // Not the whole declared size at once: a peer's claim alone must not allocate it.
          event.bytes.reserveCapacity(min(total, 16 << 20))
        }
        guard total == event.total, !bytes.isEmpty, event.bytes.count + bytes.count <= total else {
          throw connection.violation("a part of an event that does not continue it (\(bytes.count) bytes at \(event.bytes.count) of \(event.total))")
        }
        event.bytes += bytes
        receivedBytes += bytes.count
        guard event.bytes.count == total else {
          partial = event
          continue
        }
        partial = nil
        receivedEvents += 1
        pendingBytes += total
        pending.append(event.bytes)
      case .end:
        guard partial == nil else { throw connection.violation("the end of its stream inside an event it was sending in parts") }
        guard receivedEvents == totalEvents else {
          throw connection.violation("the end of its stream after \(receivedEvents) of the \(totalEvents) events it offered")
        }
        if !pending.isEmpty || !pendingRoutes.isEmpty { try await apply(pending) }
        try await connection.send(.applied(events: report.appliedEvents, duplicates: report.duplicateEvents, rowChanges: report.rowChanges))
        return report
      default:
        throw connection.unexpected(message, waitingFor: "events")
      }
      if pendingBytes >= configuration.applyBatchBytes || pending.count >= configuration.applyBatchEvents {
        try await apply(pending)
        pending = []
        pendingBytes = 0
      }
    }
  }
}
