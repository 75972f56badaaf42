import Foundation
import NIOCore
import Synchronization

/// Decides which TCP connections a relay keeps: at most
/// ``RelayServerConfiguration/maxConnections`` open in all and
/// ``RelayServerConfiguration/maxConnectionsPerAddress`` from one address,
/// and none that has not become an admitted device session within
/// ``RelayServerConfiguration/requestTimeout`` (an idle socket, a request
/// sent a byte at a time, bytes that are no HTTP, a WebSocket that never
/// proves a member, an HTTP client keeping its connection after an answer).
///
/// When every slot is taken, or every slot of the newcomer's address, a new
/// connection takes the slot of the oldest connection that is not an
/// admitted session yet: sockets opened by anyone delay a member's device by
/// at most the request timeout, never lock it out. Admitted sessions (a
/// member syncing or watching) are never evicted for a newcomer.
final class ConnectionGuard: Sendable {
  struct Limits: Sendable {
    var total: Int
    var perAddress: Int
    var requestTimeout: Duration
  }

  /// Why a connection was not kept.
  enum Refusal: Equatable {
    case tooManyFromAddress(String)
    case full
  }

  let limits: Limits
  private let metrics: RelayMetrics

  private struct Waiting {
    var arrival: UInt64
    var address: String
    var channel: any Channel
  }

  private struct State {
    var open = 0
    var byAddress: [String: Int] = [:]
    /// Connections that are no admitted device session yet: the ones a newcomer may evict.
    var waiting: [ObjectIdentifier: Waiting] = [:]
    /// Evicted connections not closed yet: their slot is already free.
    var released: Set<ObjectIdentifier> = []
    var arrivals: UInt64 = 0

    mutating func release(address: String) {
      open -= 1
      let left = byAddress[address, default: 1] - 1
      byAddress[address] = left > 0 ? left : nil
    }
  }

  private let state = Mutex(State())

  init(limits: Limits, metrics: RelayMetrics) {
    self.limits = limits
    self.metrics = metrics
  }

  /// Counts `channel` in, or says why not. The connection whose slot it
  /// takes, if any, is closed here.
  func admit(_ channel: any Channel, address: String) -> Refusal? {
    let (refusal, evicted) = state.withLock { state -> (Refusal?, (any Channel)?) in
      var evicted: (any Channel)?
      func evictOldest(from address: String?) -> Bool {
        let candidates = state.waiting.filter { address == nil || $0.value.address == address }
        guard let oldest = candidates.min(by: { $0.value.arrival < $1.value.arrival }) else { return false }
        state.waiting[oldest.key] = nil
        state.released.insert(oldest.key)
        state.release(address: oldest.value.address)
        evicted = oldest.value.channel
        return true
      }
      if state.byAddress[address, default: 0] >= limits.perAddress {
        guard evictOldest(from: address) else { return (.tooManyFromAddress(address), nil) }
      } else if state.open >= limits.total {
        guard evictOldest(from: nil) else { return (.full, nil) }
      }
      state.open += 1
      state.byAddress[address, default: 0] += 1
      state.arrivals += 1
      state.waiting[ObjectIdentifier(channel)] = Waiting(arrival: state.arrivals, address: address, channel: channel)
      return (nil, evicted)
    }
    if let evicted {
      metrics.refused("evicted_unadmitted")
      evicted.close(promise: nil)
    }
    switch refusal {
    case .full: metrics.refused("connections_full")
    case .tooManyFromAddress: metrics.refused("connections_per_address")
    case nil: break
    }
    return refusal
  }

  /// `channel` is an admitted device session: it keeps its slot until it
  /// closes. False when it was evicted meanwhile (it is closing).
  @discardableResult
  func admitted(_ channel: any Channel) -> Bool {
    state.withLock { $0.waiting.removeValue(forKey: ObjectIdentifier(channel)) != nil }
  }

  /// Whether `channel` is still waiting to become an admitted session.
  func isWaiting(_ channel: any Channel) -> Bool {
    state.withLock { $0.waiting[ObjectIdentifier(channel)] != nil }
  }

  /// `channel`, admitted from `address`, closed.
  func closed(_ channel: any Channel, address: String) {
    state.withLock { state in
      let id = ObjectIdentifier(channel)
      if state.released.remove(id) != nil { return }
      state.waiting[id] = nil
      state.release(address: address)
    }
  }

  /// A connection closed for not being answered in time.
  func timedOut() { metrics.refused("request_timeout") }

  /// Connections open now (evicted ones not counted), for tests and metrics.
  var openConnections: Int { state.withLock { $0.open } }
}
