import Metrics
import Prometheus

/// What a relay counts, exported at `GET /metrics` in Prometheus's text format.
final class RelayMetrics: Sendable {
  let registry = PrometheusCollectorRegistry()
  let connections: Meter
  let eventsIn: Metrics.Counter
  let eventsOut: Metrics.Counter
  let bytesIn: Metrics.Counter
  let bytesOut: Metrics.Counter
  /// Pushes held back to slow a device to the relay's push rate.
  let pushesDelayed: Metrics.Counter
  private let factory: PrometheusMetricsFactory

  init() {
    factory = PrometheusMetricsFactory(registry: registry)
    connections = Meter(label: "chronicle_relay_connections", factory: factory)
    eventsIn = Metrics.Counter(label: "chronicle_relay_events_in_total", factory: factory)
    eventsOut = Metrics.Counter(label: "chronicle_relay_events_out_total", factory: factory)
    bytesIn = Metrics.Counter(label: "chronicle_relay_bytes_in_total", factory: factory)
    bytesOut = Metrics.Counter(label: "chronicle_relay_bytes_out_total", factory: factory)
    pushesDelayed = Metrics.Counter(label: "chronicle_relay_pushes_delayed_total", factory: factory)
  }

  /// Counts a refusal, by its kind (`not_a_member`, `bad_signature`, `quota`, ...).
  func refused(_ reason: String) {
    Metrics.Counter(label: "chronicle_relay_refusals_total", dimensions: [("reason", reason)], factory: factory).increment()
  }

  /// The metrics in Prometheus's text format.
  var text: String { registry.emitToString() }
}
