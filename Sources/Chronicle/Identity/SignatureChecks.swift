import Dispatch
import Foundation

/// The signatures of a batch of received events, checked on other threads
/// while the caller goes on (a merge writes the batch meanwhile, inside a
/// transaction that commits only once ``results()`` admitted every event).
///
/// Checking an Ed25519 signature is pure computation over an event's bytes;
/// started before the merge, it runs on the cores the merge leaves idle
/// instead of ahead of it. The events are checked in chunks that any thread
/// takes in turn: helpers on the global queue, and the caller itself once it
/// asks for the results. So the results never wait for a helper that the
/// system has not started (a busy pool), only for chunks being checked.
final class SignatureChecks: @unchecked Sendable {
  /// Per event: the signer's key or the problem; nil for an unsigned (version 1) event.
  typealias Check = Result<[UInt8], EventSignature.Problem>?

  private let events: [[UInt8]]
  /// One slot per event, each written once, by the thread that took its chunk.
  private let checks: UnsafeMutableBufferPointer<Check>
  private static let chunkSize = 16
  private let chunkCount: Int
  /// Guards `nextChunk` and `finishedChunks`.
  private let progress = NSCondition()
  private var nextChunk = 0
  private var finishedChunks = 0

  /// Starts checking the signature of each of `events` (serialized, as received).
  init(_ events: [[UInt8]]) {
    self.events = events
    checks = .allocate(capacity: events.count)
    checks.initialize(repeating: nil)
    chunkCount = (events.count + Self.chunkSize - 1) / Self.chunkSize
    let helpers = min(chunkCount, max(ProcessInfo.processInfo.activeProcessorCount - 1, 1))
    for _ in 0..<helpers {
      DispatchQueue.global(qos: .userInitiated).async { [self] in checkChunks() }
    }
  }

  deinit {
    checks.deinitialize()
    checks.deallocate()
  }

  /// The checks, in the order of the events given; checks what is left
  /// itself, then waits for chunks that other threads are checking.
  func results() -> [Check] {
    checkChunks()
    progress.lock()
    while finishedChunks < chunkCount { progress.wait() }
    progress.unlock()
    return Array(checks)
  }

  /// Takes chunks and checks their events until none is left to take.
  private func checkChunks() {
    while true {
      progress.lock()
      let chunk = nextChunk
      nextChunk += 1
      progress.unlock()
      guard chunk < chunkCount else { return }
      let range = (chunk * Self.chunkSize)..<min((chunk + 1) * Self.chunkSize, events.count)
      for index in range {
        let bytes = events[index]
        checks[index] = bytes[4] >= 2 ? Result { () throws(EventSignature.Problem) in try EventSignature.verifiedSigner(of: bytes) } : nil
      }
      progress.lock()
      finishedChunks += 1
      if finishedChunks == chunkCount { progress.broadcast() }
      progress.unlock()
    }
  }
}
