import Foundation

/// The signatures of a batch of received events, checked on other threads
/// while the caller goes on (a merge writes the batch meanwhile, inside a
/// transaction that commits only once ``results()`` admitted every event).
///
/// Checking an Ed25519 signature is pure computation over an event's bytes;
/// started before the merge, it runs on the cores the merge leaves idle
/// instead of ahead of it. The events are checked in chunks, each a
/// ``BackgroundWork``: a chunk no thread has begun when the results are
/// asked for is checked by the caller itself.
final class SignatureChecks: Sendable {
  /// Per event: the signer's key or the problem; nil for an unsigned (version 1) event.
  typealias Check = Result<[UInt8], EventSignature.Problem>?

  private static let chunkSize = 16
  private let chunks: [BackgroundWork<[Check]>]

  /// Starts checking the signature of each of `events` (as received), but
  /// of those whose signature was checked before they were decoded.
  init(_ events: [IncomingEvent]) {
    chunks = stride(from: 0, to: events.count, by: Self.chunkSize).map { start in
      let chunk = events[start..<min(start + Self.chunkSize, events.count)].map { ($0.encoded.bytes, $0.verifiedSigner) }
      return BackgroundWork {
        chunk.map { bytes, verified -> Check in
          if let verified { return .success(verified) }
          return bytes[4] >= 2 ? Result { () throws(EventSignature.Problem) in try EventSignature.verifiedSigner(of: bytes) } : nil
        }
      }
    }
  }

  /// The checks, in the order of the events given; checks what is left
  /// itself, then waits for chunks that other threads are checking.
  func results() throws -> [Check] {
    try chunks.flatMap { try $0.value() }
  }
}
