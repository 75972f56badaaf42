import Synchronization

/// The observation a `load` of ``FetchAll``, ``FetchOne`` or ``Fetch``
/// started, to tie to the lifetime of a task, as SQLiteData's
/// `FetchSubscription` is:
///
/// ```swift
/// .task {
///   try? await $reminders.load(Reminder.where { !$0.isCompleted }).task
/// }
/// ```
///
/// Awaiting ``task`` suspends until the awaiting task is cancelled (a view
/// disappearing), or ``cancel()`` is called; the observation then stops,
/// the wrapper keeps its last value, and ``task`` throws
/// `CancellationError`. A later `load` observes again. Stopping concerns
/// only the observation this load started: once another load has replaced
/// it, stopping does nothing.
public struct FetchSubscription: Sendable {
  private let cancellation = Cancellation()
  private let stop: @Sendable () -> Void

  init(stop: @escaping @Sendable () -> Void) {
    self.stop = stop
  }

  /// Suspends until the current task is cancelled or ``cancel()`` is
  /// called, then stops the observation and throws `CancellationError`.
  public var task: Void {
    get async throws {
      await withTaskCancellationHandler {
        await cancellation.wait()
      } onCancel: {
        cancellation.cancel()
      }
      stop()
      throw CancellationError()
    }
  }

  /// Stops the observation now, and ends every wait on ``task``.
  public func cancel() {
    cancellation.cancel()
    stop()
  }
}

/// Once cancelled, resumes its waiters and every later one at once.
private final class Cancellation: Sendable {
  private struct State {
    var isCancelled = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }
  private let state = Mutex(State())

  func wait() async {
    await withCheckedContinuation { continuation in
      let cancelled = state.withLock { state in
        if !state.isCancelled { state.waiters.append(continuation) }
        return state.isCancelled
      }
      if cancelled { continuation.resume() }
    }
  }

  func cancel() {
    let waiters = state.withLock { state in
      defer {
        state.isCancelled = true
        state.waiters = []
      }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}
