import Chronicle
import Foundation
import NIOCore
import Synchronization
import WSCore

/// One side of a relay connection: sends and receives ``RelayMessage``s
/// over a WebSocket, and closes the connection when the other side keeps
/// it waiting past a deadline (``expect(_:within:)``).
package final class RelayLink: Sendable {
  /// Who is on the other side, for errors ("relay ws://host:port", "device 1a2b3c4d").
  package let peerName: String
  private let outbound: WebSocketOutboundWriter
  private struct Wait {
    var what = "the next message"
    var limit: Duration?
    var deadline: ContinuousClock.Instant?
    var timedOut: (what: String, limit: Duration)?
  }
  private let wait = Mutex(Wait())
  private let counters = Mutex((sent: 0, received: 0))
  private let sending = SendTurns()

  package init(peerName: String, outbound: WebSocketOutboundWriter) {
    self.peerName = peerName
    self.outbound = outbound
  }

  /// Bytes sent and received in messages so far.
  package var bytes: (sent: Int, received: Int) { counters.withLock { $0 } }

  /// Sends one message. Messages sent from several tasks go out one after
  /// the other, never with their frames interleaved.
  package func send(_ message: RelayMessage) async throws {
    let bytes = message.encoded()
    counters.withLock { $0.sent += bytes.count }
    await sending.acquire()
    do {
      try await outbound.writeBinaryMessage(ByteBuffer(bytes: bytes))
      await sending.release()
    } catch {
      await sending.release()
      throw error
    }
  }

  /// From now on, the other side must send `what` within `limit`
  /// (nil: no deadline, as while waiting for live events).
  package func expect(_ what: String, within limit: Duration?) {
    wait.withLock {
      $0.what = what
      $0.limit = limit
      $0.deadline = limit.map { ContinuousClock.now + $0 }
    }
  }

  /// The next message, of at most `maxSize` bytes; nil when the connection
  /// ended (for a missed deadline: throws ``Timeout``).
  package func receive(_ frames: inout WebSocketInboundStream.AsyncIterator, maxSize: Int) async throws -> RelayMessage? {
    let next: WebSocketMessage?
    do {
      next = try await frames.nextMessage(maxSize: maxSize)
    } catch {
      if let timeout = timedOut { throw Timeout(what: timeout.what, limit: timeout.limit) }
      // WSCore reports an oversized message with an error type it does not export.
      if String(describing: error).contains("messageTooLarge") { throw TooLarge(limit: maxSize) }
      throw error
    }
    guard let next else {
      if let timeout = timedOut { throw Timeout(what: timeout.what, limit: timeout.limit) }
      return nil
    }
    guard case .binary(let buffer) = next else { throw Malformed(reason: "a text message (the protocol is binary)") }
    let bytes = Array(buffer.readableBytesView)
    counters.withLock { $0.received += bytes.count }
    do {
      return try RelayMessage(decoding: bytes)
    } catch {
      throw Malformed(reason: "\(error)")
    }
  }

  /// The deadline that was missed, if one was.
  package var timedOut: (what: String, limit: Duration)? {
    wait.withLock { $0.timedOut }
  }

  /// Watches the deadline until cancelled; closes the connection when it passes.
  package func watchDeadlines() async {
    while !Task.isCancelled {
      try? await Task.sleep(for: .milliseconds(200))
      let missed = wait.withLock { state -> Bool in
        guard let deadline = state.deadline, let limit = state.limit, state.timedOut == nil, ContinuousClock.now > deadline else { return false }
        state.timedOut = (state.what, limit)
        return true
      }
      if missed {
        try? await outbound.close(.goingAway, reason: "timed out")
        return
      }
    }
  }

  /// Ends the connection with a failure message the other side can show.
  package func fail(_ message: String, retryable: Bool) async {
    try? await send(.failure(message, retryable: retryable))
    try? await outbound.close(.normalClosure, reason: nil)
  }

  package func close() async {
    try? await outbound.close(.normalClosure, reason: nil)
  }

  /// A missed deadline.
  package struct Timeout: Error {
    package var what: String
    package var limit: Duration
  }

  /// A message longer than the receiver accepts.
  package struct TooLarge: Error, CustomStringConvertible {
    package var limit: Int
    package var description: String { "a message of more than \(limit) bytes" }
  }

  /// A message that is not one of the protocol's.
  package struct Malformed: Error, CustomStringConvertible {
    package var reason: String
    package var description: String { reason }
  }
}

/// Turns at sending: one message at a time, in the order they asked.
private actor SendTurns {
  private var busy = false
  private var waiting: [CheckedContinuation<Void, Never>] = []

  func acquire() async {
    guard busy else {
      busy = true
      return
    }
    await withCheckedContinuation { waiting.append($0) }
  }

  func release() {
    if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
  }
}
