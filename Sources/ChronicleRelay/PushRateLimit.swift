import Chronicle
import Foundation
import Synchronization

/// A device's allowance of pushed bytes: refills at `rate` bytes per second
/// up to a few seconds' worth (and always enough for one largest event), so
/// bursts pass at once, a steady push over the rate is slowed to it, and a
/// flood is refused.
struct PushRateLimit {
  let rate: Int
  let capacity: Double
  private var available: Double
  private var refilled: ContinuousClock.Instant

  init(rate: Int, largestEvent: Int, now: ContinuousClock.Instant = .now) {
    self.rate = rate
    capacity = Double(max(rate * 4, largestEvent + (1 << 20)))
    available = capacity
    refilled = now
  }

  /// What ``reserve(_:within:now:)`` decided.
  enum Decision: Equatable {
    /// The bytes are taken; the push may be stored after this wait (zero: at once).
    case after(Duration)
    /// The push would wait past the limit; nothing is taken. It could pass in this long.
    case refused(retryIn: Duration)
  }

  /// Takes `bytes` from the allowance when they fit in it, or will within
  /// `maxDelay` (the allowance then owes them, and later pushes wait longer).
  mutating func reserve(_ bytes: Int, within maxDelay: Duration, now: ContinuousClock.Instant = .now) -> Decision {
    refill(now)
    let shortfall = Double(bytes) - available
    guard shortfall > 0 else {
      available -= Double(bytes)
      return .after(.zero)
    }
    let wait = Duration.milliseconds(Int64((shortfall / Double(rate) * 1000).rounded(.up)))
    guard wait <= maxDelay else { return .refused(retryIn: wait) }
    available -= Double(bytes)
    return .after(wait)
  }

  /// Whether the allowance is whole again (it can be forgotten).
  mutating func isFull(_ now: ContinuousClock.Instant) -> Bool {
    refill(now)
    return available >= capacity
  }

  private mutating func refill(_ now: ContinuousClock.Instant) {
    if now > refilled {
      available = min(capacity, available + (now - refilled).seconds * Double(rate))
      refilled = now
    }
  }
}

/// Every device's push allowance on this relay process, shared by all its
/// connections: a device opening more connections gets no more bandwidth.
final class PushAllowances: Sendable {
  private struct Device: Hashable {
    var group: UUID
    var device: PeerID
  }
  private let rate: Int?
  private let largestEvent: Int
  private let allowances = Mutex<[Device: PushRateLimit]>([:])
  /// Beyond this many devices tracked, whole allowances are forgotten.
  private static let pruneAbove = 4_096

  init(rate: Int?, largestEvent: Int) {
    self.rate = rate
    self.largestEvent = largestEvent
  }

  /// Reserves `bytes` of `device`'s allowance in `group` (see
  /// ``PushRateLimit/reserve(_:within:now:)``); no limit when the relay has no rate.
  func reserve(_ bytes: Int, by device: PeerID, in group: UUID, within maxDelay: Duration) -> PushRateLimit.Decision {
    guard let rate else { return .after(.zero) }
    let now = ContinuousClock.now
    return allowances.withLock { allowances in
      if allowances.count > Self.pruneAbove {
        allowances = allowances.filter { _, allowance in
          var allowance = allowance
          return !allowance.isFull(now)
        }
      }
      let key = Device(group: group, device: device)
      var allowance = allowances[key] ?? PushRateLimit(rate: rate, largestEvent: largestEvent, now: now)
      let decision = allowance.reserve(bytes, within: maxDelay, now: now)
      allowances[key] = allowance
      return decision
    }
  }
}
