import ChronicleNetwork

/// A connection's allowance of pushed bytes: refills at `rate` bytes per
/// second up to a few seconds' worth (and always enough for one largest
/// event), so bursts pass and a sustained flood is refused.
struct PushRateLimit {
  let rate: Int
  let capacity: Double
  private var available: Double
  private var refilled = ContinuousClock.now

  init(rate: Int, largestEvent: Int) {
    self.rate = rate
    capacity = Double(max(rate * 4, largestEvent + (1 << 20)))
    available = capacity
  }

  /// Takes `bytes` from the allowance; when there is not enough, takes
  /// nothing and returns how long until there is.
  mutating func take(_ bytes: Int) -> Duration? {
    let now = ContinuousClock.now
    available = min(capacity, available + (now - refilled).seconds * Double(rate))
    refilled = now
    guard Double(bytes) <= available else {
      return .milliseconds(Int(((Double(bytes) - available) / Double(rate) * 1000).rounded(.up)))
    }
    available -= Double(bytes)
    return nil
  }
}
