import ChronicleNetwork
import Foundation
import Synchronization

/// Shows a network sync's progress on stderr: events/s, bytes, time left.
/// Redrawn in place on a terminal; with `--progress`, one line per update
/// (at most one a second, and the last) for logs and scripts.
final class NetworkProgressPrinter: Sendable {
  private let isTerminal = isatty(STDERR_FILENO) != 0
  private let alwaysPrints: Bool
  private let last = Mutex<ContinuousClock.Instant?>(nil)

  init(alwaysPrints: Bool) { self.alwaysPrints = alwaysPrints }

  var show: @Sendable (NetworkSyncProgress) -> Void {
    { [self] progress in draw(progress) }
  }

  private func draw(_ progress: NetworkSyncProgress) {
    guard isTerminal || alwaysPrints else { return }
    let now = ContinuousClock.now
    let isLast = progress.events == progress.totalEvents
    let due = last.withLock { last -> Bool in
      if let last, now - last < (isTerminal ? .milliseconds(100) : .seconds(1)), !isLast, !alwaysPrints { return false }
      last = now
      return true
    }
    guard due else { return }
    let left = progress.estimatedTimeLeft.map { String(format: ", %.0f s left", $0.seconds) } ?? ""
    let line =
      progress.direction == .preparing
      ? "preparing to merge: \(progress.events)/\(progress.totalEvents) events of history read into merge state"
      : "\(progress.direction.rawValue) \(progress.events)/\(progress.totalEvents) events, "
        + "\(Self.size(progress.bytes))/\(Self.size(progress.totalBytes)), \(String(format: "%.0f", progress.eventsPerSecond)) events/s\(left)"
    FileHandle.standardError.write(Data((isTerminal && !alwaysPrints ? "\r\(line)\u{1B}[K" : line + "\n").utf8))
  }

  func finish() {
    if isTerminal && !alwaysPrints { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
  }

  static func size(_ bytes: Int) -> String {
    bytes >= 1 << 20 ? String(format: "%.1f MiB", Double(bytes) / 1_048_576) : bytes >= 1 << 10 ? String(format: "%.1f KiB", Double(bytes) / 1024) : "\(bytes) B"
  }
}

extension Duration {
  var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
