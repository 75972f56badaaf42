import Chronicle
import ChronicleNetwork
import Foundation
import Synchronization

/// A store whose every call answers within a time limit: a store that hangs
/// (PostgreSQL restarting, its connections being re-established) makes the
/// relay tell devices to retry, instead of holding them until their own
/// timeouts. A call that runs late may still complete; appends are
/// idempotent, so the device's retry finds its events stored.
struct DeadlineRelayStore: RelayStore {
  let base: any RelayStore
  let limit: Duration

  /// A store call that missed its deadline.
  struct Unavailable: Error, CustomStringConvertible {
    var limit: Duration
    var description: String { "the relay's store did not answer within \(limit)" }
  }

  private func bounded<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let limit = self.limit
    let outcome = Outcome<T>()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        outcome.set(continuation)
        let work = Task { outcome.finish(with: await Result(catching: operation)) }
        let timer = Task {
          try? await Task.sleep(for: limit)
          outcome.finish(with: .failure(Unavailable(limit: limit)))
        }
        outcome.onFinish {
          work.cancel()
          timer.cancel()
        }
      }
    } onCancel: {
      outcome.finish(with: .failure(CancellationError()))
    }
  }

  func membershipEvents(of group: UUID) async throws -> [[UInt8]] { try await bounded { try await base.membershipEvents(of: group) } }
  func addMembershipEvents(_ events: [MembershipEvent], to group: UUID) async throws {
    try await bounded { try await base.addMembershipEvents(events, to: group) }
  }
  func vector(of group: UUID) async throws -> VersionVector { try await bounded { try await base.vector(of: group) } }
  func append(_ events: [SealedEvent], origin: PeerID, to group: UUID, quota: GroupQuota) async throws -> AppendOutcome {
    try await bounded { try await base.append(events, origin: origin, to: group, quota: quota) }
  }
  func lastPosition(of group: UUID) async throws -> Int64 { try await bounded { try await base.lastPosition(of: group) } }
  func position(before vector: VersionVector, in group: UUID) async throws -> Int64? {
    try await bounded { try await base.position(before: vector, in: group) }
  }
  func events(of group: UUID, after position: Int64, through last: Int64?, limit: Int, maxBytes: Int) async throws -> [PositionedEvent] {
    try await bounded { try await base.events(of: group, after: position, through: last, limit: limit, maxBytes: maxBytes) }
  }
  func addCreationToken(hash: [UInt8], groups: Int) async throws {
    try await bounded { try await base.addCreationToken(hash: hash, groups: groups) }
  }
  func spendCreationToken(hash: [UInt8]) async throws -> Bool { try await bounded { try await base.spendCreationToken(hash: hash) } }
  func usage(of group: UUID) async throws -> (events: Int, bytes: Int) {
    let usage = try await bounded { let (events, bytes) = try await base.usage(of: group); return [events, bytes] }
    return (usage[0], usage[1])
  }
  func routes(of origin: PeerID, from: UInt64, through: UInt64, in group: UUID, limit: Int) async throws -> [StoredEventRoute] {
    try await bounded { try await base.routes(of: origin, from: from, through: through, in: group, limit: limit) }
  }
  func observeChanges(_ onChange: @escaping @Sendable (StoreChange) -> Void) async throws { try await base.observeChanges(onChange) }
  func close() async throws { try await base.close() }
}

/// The first of several racing results, delivered once.
private final class Outcome<T: Sendable>: Sendable {
  private struct State {
    var continuation: CheckedContinuation<T, any Error>?
    var early: Result<T, any Error>?
    var done = false
    var onFinish: [@Sendable () -> Void] = []
  }
  private let state = Mutex(State())

  func set(_ continuation: CheckedContinuation<T, any Error>) {
    let early = state.withLock { state -> Result<T, any Error>? in
      if let early = state.early { return early }
      state.continuation = continuation
      return nil
    }
    if let early { continuation.resume(with: early) }
  }

  func onFinish(_ action: @escaping @Sendable () -> Void) {
    let finished = state.withLock { state -> Bool in
      if state.done { return true }
      state.onFinish.append(action)
      return false
    }
    if finished { action() }
  }

  func finish(with result: Result<T, any Error>) {
    let (continuation, actions) = state.withLock { state -> (CheckedContinuation<T, any Error>?, [@Sendable () -> Void]) in
      guard !state.done else { return (nil, []) }
      state.done = true
      defer {
        state.continuation = nil
        state.onFinish = []
      }
      if state.continuation == nil { state.early = result }
      return (state.continuation, state.onFinish)
    }
    continuation?.resume(with: result)
    actions.forEach { $0() }
  }
}

extension Result where Failure == any Error {
  fileprivate init(catching body: () async throws -> Success) async {
    do { self = .success(try await body()) } catch { self = .failure(error) }
  }
}
