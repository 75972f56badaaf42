import Dispatch
import GRDB
import Observation
import Synchronization

/// The live value behind ``FetchAll``, ``FetchOne`` and ``Fetch``: the
/// result of a fetch, fetched again whenever a transaction commits a change
/// to what it reads (GRDB's `ValueObservation`), including changes written
/// by a sync.
///
/// It is `Observable`: reading ``value``, ``loadError`` or ``isLoading``
/// inside `withObservationTracking` (or a SwiftUI view) registers for its
/// changes. A new value equal to the current one (when the value is
/// `Equatable`) notifies nobody.
final class FetchObservation<Value: Sendable>: Observable, Sendable {
  private struct State {
    var value: Value
    var loadError: (any Error)?
    var isLoading = false
    /// Counts observations started; values of a replaced one are dropped.
    var generation = 0
    var cancellable: AnyDatabaseCancellable?
    /// The caller of ``load(_:)`` waiting for the first value (given the
    /// observation's generation).
    var waiter: CheckedContinuation<Int, any Error>?
  }

  private let registrar = ObservationRegistrar()
  private let state: Mutex<State>
  private let reader: any DatabaseReader
  private let queue = DispatchQueue(label: "Chronicle.FetchObservation")
  /// Where values are delivered, when the wrapper was given a scheduler
  /// (`.async(onQueue: .main)`, `.mainActor`, `.immediate`, `.task`);
  /// otherwise on `queue`, the first one synchronously.
  private let scheduler: (any ValueObservationScheduler)?

  init(initialValue: Value, reader: any DatabaseReader, scheduler: (any ValueObservationScheduler)? = nil) {
    self.state = Mutex(State(value: initialValue))
    self.reader = reader
    self.scheduler = scheduler
  }

  deinit {
    let (cancellable, waiter) = state.withLock { state in
      defer { state.cancellable = nil; state.waiter = nil }
      return (state.cancellable, state.waiter)
    }
    cancellable?.cancel()
    waiter?.resume(throwing: CancellationError())
  }

  /// The latest value fetched (or the initial value, before the first fetch).
  var value: Value {
    registrar.access(self, keyPath: \.value)
    return state.withLock { $0.value }
  }

  /// The error of the last fetch, nil once a fetch succeeds. The observation
  /// stops at an error; ``load(_:)`` starts it again.
  var loadError: (any Error)? {
    registrar.access(self, keyPath: \.loadError)
    return state.withLock { $0.loadError }
  }

  /// True from the start of an observation to its first value or error.
  var isLoading: Bool {
    registrar.access(self, keyPath: \.isLoading)
    return state.withLock { $0.isLoading }
  }

  /// Starts observing `fetch`, replacing the current observation; the first
  /// value is fetched before this returns.
  func start(_ fetch: @escaping @Sendable (Database) throws -> Value) {
    begin(fetch, waiter: nil)
  }

  /// Starts observing `fetch`, replacing the current observation, and
  /// returns once its first value is there, with a subscription that can
  /// stop this observation; throws the first fetch's error.
  func load(_ fetch: @escaping @Sendable (Database) throws -> Value) async throws -> FetchSubscription {
    let generation = try await withCheckedThrowingContinuation { continuation in
      begin(fetch, waiter: continuation)
    }
    return FetchSubscription { [weak self] in self?.stop(generation: generation) }
  }

  /// Stops the observation `generation` started, if it is still the
  /// current one: the value stays as last fetched, and no change is
  /// fetched until the next load.
  func stop(generation: Int) {
    let stopped = state.withLock { state -> (cancellable: AnyDatabaseCancellable?, waiter: CheckedContinuation<Int, any Error>?)? in
      guard state.generation == generation else { return nil }
      defer {
        state.generation += 1
        state.cancellable = nil
        state.waiter = nil
      }
      return (state.cancellable, state.waiter)
    }
    guard let stopped else { return }
    stopped.cancellable?.cancel()
    stopped.waiter?.resume(throwing: CancellationError())
    setLoading(false)
  }

  private func begin(_ fetch: @escaping @Sendable (Database) throws -> Value, waiter: CheckedContinuation<Int, any Error>?) {
    let (generation, replaced, replacedWaiter) = state.withLock { state in
      defer {
        state.generation += 1
        state.cancellable = nil
        state.waiter = waiter
      }
      return (state.generation + 1, state.cancellable, state.waiter)
    }
    replaced?.cancel()
    replacedWaiter?.resume(throwing: CancellationError())
    setLoading(true)

    func observe(scheduling scheduler: some ValueObservationScheduler) -> AnyDatabaseCancellable {
      ValueObservation.tracking(fetch).start(
        in: reader, scheduling: scheduler,
        onError: { [weak self] error in self?.receive(.failure(error), generation: generation) },
        onChange: { [weak self] value in self?.receive(.success(value), generation: generation) })
    }
    let cancellable: AnyDatabaseCancellable
    if let scheduler {
      cancellable = observe(scheduling: scheduler)
    } else {
      cancellable = observe(scheduling: FetchScheduler(queue: queue, deliversFirstValueImmediately: waiter == nil))
    }
    let stale = state.withLock { state in
      guard state.generation == generation else { return true }
      state.cancellable = cancellable
      return false
    }
    if stale { cancellable.cancel() }
  }

  private func receive(_ result: Result<Value, any Error>, generation: Int) {
    let current = state.withLock { state -> (value: Value, waiter: CheckedContinuation<Int, any Error>?)? in
      guard state.generation == generation else { return nil }
      defer { state.waiter = nil }
      return (state.value, state.waiter)
    }
    guard let current else { return }
    switch result {
    case .success(let value):
      if !isKnownEqual(current.value, value) {
        registrar.withMutation(of: self, keyPath: \.value) {
          state.withLock { state in
            if state.generation == generation { state.value = value }
          }
        }
      }
      setLoadError(nil)
      setLoading(false)
      current.waiter?.resume(returning: generation)
    case .failure(let error):
      setLoadError(error)
      setLoading(false)
      current.waiter?.resume(throwing: error)
    }
  }

  private func setLoading(_ isLoading: Bool) {
    guard state.withLock({ $0.isLoading != isLoading }) else { return }
    registrar.withMutation(of: self, keyPath: \.isLoading) {
      state.withLock { $0.isLoading = isLoading }
    }
  }

  private func setLoadError(_ error: (any Error)?) {
    guard error != nil || state.withLock({ $0.loadError != nil }) else { return }
    registrar.withMutation(of: self, keyPath: \.loadError) {
      state.withLock { $0.loadError = error }
    }
  }
}
