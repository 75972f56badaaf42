import Chronicle
import Foundation
import Synchronization

/// A one-line progress bar on stderr, drawn only when stderr is a terminal
/// (scripts and CI logs get no control characters).
final class ProgressBar: Sendable {
  private let label: String
  private let isEnabled: Bool
  private let lastDraw = Mutex<ContinuousClock.Instant?>(nil)

  init(_ label: String, enabled: Bool = true) {
    self.label = label
    self.isEnabled = enabled && isatty(STDERR_FILENO) != 0
  }

  /// Draws `done` of `total` (at most ten times a second).
  func update(done: Int, total: Int, detail: String = "") {
    guard isEnabled else { return }
    let now = ContinuousClock.now
    let due = lastDraw.withLock { last -> Bool in
      if let last, now - last < .milliseconds(100), done < total { return false }
      last = now
      return true
    }
    guard due else { return }
    let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
    let width = 30
    let filled = Int(fraction * Double(width))
    let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
    FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(Int(fraction * 100))% \(done)/\(total) \(detail)\u{1B}[K".utf8))
  }

  /// The replay callback that draws this bar.
  var replayProgress: @Sendable (ReplayProgress) -> Void {
    { [self] progress in update(done: progress.eventsRead, total: progress.totalEvents, detail: "events, \(progress.rowChanges) row changes") }
  }

  /// Clears the line.
  func finish() {
    guard isEnabled else { return }
    FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
  }
}
