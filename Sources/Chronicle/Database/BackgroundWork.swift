import Dispatch
import Foundation

/// Work started on another thread while the caller does something else
/// (two digests of two files, side by side). Whoever needs the result first
/// and finds the work not begun does it itself: the result never waits for
/// a thread the system has not started (a busy pool), only for work under way.
final class BackgroundWork<Value: Sendable>: @unchecked Sendable {
  private enum State {
    case pending
    case running
    case done(Result<Value, any Error>)
  }

  private let work: @Sendable () throws -> Value
  /// Guards `state`.
  private let condition = NSCondition()
  private var state = State.pending

  init(_ work: @escaping @Sendable () throws -> Value) {
    self.work = work
    DispatchQueue.global(qos: .userInitiated).async { [self] in runIfPending() }
  }

  /// The work's result (or error); does the work if no thread has begun it.
  func value() throws -> Value {
    runIfPending()
    condition.lock()
    defer { condition.unlock() }
    while true {
      if case .done(let result) = state { return try result.get() }
      condition.wait()
    }
  }

  private func runIfPending() {
    condition.lock()
    guard case .pending = state else {
      condition.unlock()
      return
    }
    state = .running
    condition.unlock()
    let result = Result { try work() }
    condition.lock()
    state = .done(result)
    condition.broadcast()
    condition.unlock()
  }
}
