/// Keeps a sender under ``NetworkSyncConfiguration/maxSendRate``: after
/// each frame it sleeps until the bytes sent so far are due.
struct SendPacer {
  private let rate: Int?
  private let start = ContinuousClock.now
  private var sent = 0

  init(rate: Int?) { self.rate = rate }

  /// Records `bytes` as sent; waits when they came early.
  mutating func sent(_ bytes: Int) async throws {
    sent += bytes
    guard let rate, rate > 0 else { return }
    let due = Duration.seconds(Double(sent) / Double(rate)) - (ContinuousClock.now - start)
    if due > .zero { try await Task.sleep(for: due) }
  }
}
