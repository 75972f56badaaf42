import Foundation
import Synchronization

/// Wakes the connections watching a group when events are stored in it.
final class GroupHub: Sendable {
  private let watchers = Mutex<[UUID: [UUID: AsyncStream<Void>.Continuation]]>([:])

  /// A signal each time `group` stores events, from now until the stream's consumer stops.
  func watch(_ group: UUID) -> AsyncStream<Void> {
    let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let id = UUID()
    watchers.withLock { $0[group, default: [:]][id] = continuation }
    continuation.onTermination = { [weak self] _ in
      self?.watchers.withLock { watchers in
        watchers[group]?[id] = nil
        if watchers[group]?.isEmpty == true { watchers[group] = nil }
      }
    }
    return stream
  }

  /// Wakes the watchers of `group`; of every group when nil.
  func notify(_ group: UUID?) {
    let woken = watchers.withLock { watchers in
      group.map { Array((watchers[$0] ?? [:]).values) } ?? watchers.values.flatMap(\.values)
    }
    for continuation in woken { continuation.yield() }
  }

  /// Ends every watch (the relay is stopping).
  func finishAll() {
    for continuation in watchers.withLock({ $0.values.flatMap(\.values) }) { continuation.finish() }
  }
}
