import Dispatch
import Synchronization

/// Compresses the body of the event being captured while capture is still
/// writing it, into the same bytes as ``Zlib/compressBody(prefix:operations:level:)``.
///
/// Each time the operations grow past a whole ``Zlib/pieceSize`` with more
/// after it, the writer hands that piece over (``submitPieces(of:)``) and a
/// background queue deflates it, so a large transaction's compression runs
/// beside its read-back instead of after it. Small bodies are compressed in
/// one go at the end, with a deflate stream kept between events.
///
/// Confinement: ``submitPieces(of:)``, ``compress(prefix:operations:)`` and
/// ``discardPending()`` run on the writer connection's queue; only the piece
/// deflater and the finished pieces are touched by the background queue.
final class BodyCompressor: @unchecked Sendable {
  let level: Int32
  private let wholeBodyDeflater: Zlib.Deflater
  private let backgroundDeflater: Zlib.RawDeflater
  private lazy var foregroundDeflater = Zlib.RawDeflater(level: level)
  private let queue = DispatchQueue(label: "chronicle.event-compression")
  /// Deflated operation pieces, in order.
  private let finishedPieces = Mutex<[Zlib.DeflatedPiece]>([])
  /// Operations up to here have been handed to the background queue.
  private var submittedEnd = 0

  init(level: Int32) {
    self.level = level
    wholeBodyDeflater = Zlib.Deflater(level: level)
    backgroundDeflater = Zlib.RawDeflater(level: level)
  }

  /// The operation count past which ``submitPieces(of:)`` has work to do:
  /// callers check it before calling, which keeps the per-row cost to a comparison.
  var nextSubmission: Int { submittedEnd + Zlib.pieceSize }

  /// Hands every whole piece of `operations` that has more bytes after it to
  /// the background queue.
  func submitPieces(of operations: [UInt8]) {
    while operations.count > nextSubmission {
      let piece = Array(operations[submittedEnd..<(submittedEnd + Zlib.pieceSize)])
      submittedEnd += Zlib.pieceSize
      queue.async { [self] in
        let deflated = backgroundDeflater.compress(piece[...], isLast: false)
        finishedPieces.withLock { $0.append(deflated) }
      }
    }
  }

  /// The compressed body. Waits for the pieces still being deflated.
  func compress(prefix: [UInt8], operations: [UInt8]) -> [UInt8] {
    guard operations.count > Zlib.pieceSize else {
      discardPending()
      return wholeBodyDeflater.compress(prefix + operations)
    }
    submitPieces(of: operations)
    // The prefix and the last piece are deflated here while the queue finishes.
    let first = foregroundDeflater.compress(prefix[...], isLast: false)
    let last = foregroundDeflater.compress(operations[submittedEnd...], isLast: true)
    queue.sync {}
    let middle = finishedPieces.withLock { pieces in
      defer { pieces.removeAll() }
      return pieces
    }
    submittedEnd = 0
    return Zlib.assemble([first] + middle + [last], level: level)
  }

  /// Forgets the pieces of a body that will not be compressed (its
  /// transaction failed), after the background queue is done with them.
  func discardPending() {
    guard submittedEnd > 0 else { return }
    queue.sync {}
    finishedPieces.withLock { $0.removeAll() }
    submittedEnd = 0
  }
}
