import Foundation
import Synchronization

/// A hybrid logical clock (Kulkarni et al.): readings follow physical time when
/// it moves forward, never go backwards when it does not, and are strictly
/// increasing on one peer.
///
/// Chronicle persists the last reading in the database, so readings stay
/// monotonic across restarts even when the wall clock was set back in between.
public final class HybridLogicalClock: Sendable {
  /// How far ahead of our wall clock a remote reading may be before it is
  /// refused as drift.
  public let maximumDrift: Duration
  private let wallClock: @Sendable () -> UInt64
  private let last: Mutex<HLCTimestamp>

  /// Creates a clock that starts after `lastReading`.
  ///
  /// - Parameters:
  ///   - lastReading: the last reading handed out before (persisted).
  ///   - maximumDrift: remote readings further ahead than this are refused.
  ///   - wallClock: milliseconds since 1970; injectable for tests.
  public init(
    lastReading: HLCTimestamp = .zero,
    maximumDrift: Duration = .seconds(300),
    wallClock: @escaping @Sendable () -> UInt64 = HybridLogicalClock.systemMilliseconds
  ) {
    self.last = Mutex(lastReading)
    self.maximumDrift = maximumDrift
    self.wallClock = wallClock
  }

  /// The system wall clock in milliseconds since 1970.
  public static let systemMilliseconds: @Sendable () -> UInt64 = {
    UInt64(max(0, Date().timeIntervalSince1970 * 1000))
  }

  /// The last reading handed out.
  public var lastReading: HLCTimestamp { last.withLock { $0 } }

  /// The wall clock's reading, unmoved by received clocks: what decides
  /// whether an invitation is still valid on this device.
  package var wallTime: Date { Date(timeIntervalSince1970: Double(wallClock()) / 1000) }

  /// A new reading for a local event: greater than every reading before.
  public func now() -> HLCTimestamp {
    let physical = wallClock()
    return last.withLock { last in
      last = Self.successor(of: last, physical: physical)
      return last
    }
  }

  /// Merges a reading received from another peer, so that later local readings
  /// order after it. Refuses readings too far ahead of the local wall clock.
  @discardableResult
  public func receive(_ remote: HLCTimestamp) throws(ClockDriftError) -> HLCTimestamp {
    let physical = wallClock()
    let limit = physical + UInt64(maximumDrift.components.seconds * 1000)
    guard remote.milliseconds <= limit else {
      throw ClockDriftError(remote: remote, localMilliseconds: physical, maximumDrift: maximumDrift)
    }
    return last.withLock { last in
      let newest = max(last, remote)
      last = Self.successor(of: newest, physical: physical)
      return last
    }
  }

  private static func successor(of previous: HLCTimestamp, physical: UInt64) -> HLCTimestamp {
    let physical = min(physical, (1 << 48) - 1)
    if physical > previous.milliseconds {
      return HLCTimestamp(milliseconds: physical, counter: 0)
    }
    if previous.counter == UInt16.max {
      // Counter exhausted within one millisecond: borrow the next millisecond.
      return HLCTimestamp(milliseconds: previous.milliseconds + 1, counter: 0)
    }
    return HLCTimestamp(milliseconds: previous.milliseconds, counter: previous.counter + 1)
  }
}

/// A remote clock reading too far ahead of the local wall clock.
public struct ClockDriftError: Error, Sendable, CustomStringConvertible {
  public var remote: HLCTimestamp
  public var localMilliseconds: UInt64
  public var maximumDrift: Duration

  public var description: String {
    let ahead = Double(remote.milliseconds) / 1000 - Double(localMilliseconds) / 1000
    return "remote clock reading \(remote) is \(Int(ahead)) s ahead of this machine's clock "
      + "(limit \(maximumDrift)); check the system time on both peers"
  }
}
