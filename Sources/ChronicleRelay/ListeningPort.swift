import Foundation
import Synchronization

/// The port a server listens on, for tasks that wait for it: known once the
/// server listens, an error when the server ended before it did. A waiting
/// task that is cancelled stops waiting.
final class ListeningPort: Sendable {
  private enum State {
    case waiting([UUID: CheckedContinuation<Int, any Error>])
    case listening(Int)
    case failed(any Error)
  }
  private let state = Mutex<State>(.waiting([:]))

  /// The port, once the server listens; throws why it never will.
  var value: Int {
    get async throws {
      let id = UUID()
      return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
          let known = state.withLock { state -> Result<Int, any Error>? in
            switch state {
            case .listening(let port): return .success(port)
            case .failed(let error): return .failure(error)
            case .waiting(var waiters):
              if Task.isCancelled { return .failure(CancellationError()) }
              waiters[id] = continuation
              state = .waiting(waiters)
              return nil
            }
          }
          if let known { continuation.resume(with: known) }
        }
      } onCancel: {
        let waiter = state.withLock { state -> CheckedContinuation<Int, any Error>? in
          guard case .waiting(var waiters) = state, let waiter = waiters.removeValue(forKey: id) else { return nil }
          state = .waiting(waiters)
          return waiter
        }
        waiter?.resume(throwing: CancellationError())
      }
    }
  }

  /// The server listens on `port`: every waiting task gets it.
  func listening(on port: Int) { settle(.success(port)) }

  /// The server ended without listening: every waiting task gets `error`.
  /// Does nothing once the port is known; returns whether it was not.
  @discardableResult
  func failed(_ error: any Error) -> Bool { settle(.failure(error)) }

  @discardableResult
  private func settle(_ outcome: Result<Int, any Error>) -> Bool {
    let waiters = state.withLock { state -> [CheckedContinuation<Int, any Error>]? in
      guard case .waiting(let waiters) = state else { return nil }
      switch outcome {
      case .success(let port): state = .listening(port)
      case .failure(let error): state = .failed(error)
      }
      return Array(waiters.values)
    }
    guard let waiters else { return false }
    for waiter in waiters { waiter.resume(with: outcome) }
    return true
  }
}
