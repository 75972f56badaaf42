import Foundation
import NIOCore
import Synchronization

/// Decides which TCP connections a relay keeps: at most
/// ``RelayServerConfiguration/maxConnections`` open in all and
/// ``RelayServerConfiguration/maxConnectionsPerAddress`` from one address,
/// and none that the relay has not answered within
/// ``RelayServerConfiguration/requestTimeout`` (an idle socket, a request sent
/// a byte at a time, bytes that are no HTTP).
///
/// When every slot is taken, a new connection takes the slot of the oldest
/// connection still waiting for its first answer: sockets opened and left
/// idle can delay a member's device by at most the request timeout, never
/// lock it out. Connections the relay has answered (a WebSocket it upgraded,
/// a member's live pull) are never evicted for a newcomer.
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
    /// Admitted connections the relay has not answered yet, the ones a newcomer may evict.
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
      if state.byAddress[address, default: 0] >= limits.perAddress { return (.tooManyFromAddress(address), nil) }
      var evicted: (any Channel)?
      if state.open >= limits.total {
        guard let oldest = state.waiting.min(by: { $0.value.arrival < $1.value.arrival }) else { return (.full, nil) }
        state.waiting[oldest.key] = nil
        state.released.insert(oldest.key)
        state.release(address: oldest.value.address)
        evicted = oldest.value.channel
      }
      state.open += 1
      state.byAddress[address, default: 0] += 1
      state.arrivals += 1
      state.waiting[ObjectIdentifier(channel)] = Waiting(arrival: state.arrivals, address: address, channel: channel)
      return (nil, evicted)
    }
    if let evicted {
      metrics.refused("evicted_unanswered")
      evicted.close(promise: nil)
    }
    switch refusal {
    case .full: metrics.refused("connections_full")
    case .tooManyFromAddress: metrics.refused("connections_per_address")
    case nil: break
    }
    return refusal
  }

  /// The relay answered `channel`: it keeps its slot until it closes.
  func answered(_ channel: any Channel) {
    state.withLock { _ = $0.waiting.removeValue(forKey: ObjectIdentifier(channel)) }
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
