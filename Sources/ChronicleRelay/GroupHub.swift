import Foundation
import Synchronization

/// Wakes the connections watching a group when events are stored in it.
final class GroupHub: Sendable {
  private let watchers = Mutex<[UUID: [UUID: AsyncStream<Void>.Continuation]]>([:])
  /// Per group, how many times its member list changed (``membershipChanged(_:)``),
  /// and for every group, how many times anything may have changed unseen.
  private let generations = Mutex<(groups: [UUID: Int], everything: Int)>(([:], 0))

  /// A number that changes each time `group`'s member list may have changed.
  func membershipGeneration(_ group: UUID) -> Int {
    generations.withLock { ($0.groups[group] ?? 0) &+ $0.everything }
  }

  /// Handles what the store reports.
  func handle(_ change: StoreChange) {
    switch change {
    case .appended(let group):
      notify(group)
    case .membership(let group):
      generations.withLock { $0.groups[group, default: 0] &+= 1 }
      notify(group)
    case .unknown:
      generations.withLock { $0.everything &+= 1 }
      notify(nil)
    }
  }

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
