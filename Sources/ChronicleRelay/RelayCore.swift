import Foundation

/// What every session of a relay shares: its store, settings, metrics, and
/// the hub that wakes watching connections.
final class RelayCore: Sendable {
  let store: any RelayStore
  let configuration: RelayServerConfiguration
  let metrics = RelayMetrics()
  let hub = GroupHub()
  let pushAllowances: PushAllowances

  init(store: any RelayStore, configuration: RelayServerConfiguration) {
    self.store = store
    self.configuration = configuration
    pushAllowances = PushAllowances(rate: configuration.maxPushBytesPerSecond, largestEvent: configuration.maxEventBytes)
  }
}
