import Dispatch

/// Runs long synchronous work on a dispatch thread and waits for it without
/// holding a thread of Swift's cooperative pool.
///
/// The pool has one thread per core (two on the CI machine), and Swift Testing
/// runs test functions on it in parallel: two seconds-long synchronous tests
/// side by side leave no thread for the async tests beside them, whose network
/// handshakes then time out. CPU-heavy tests go through this instead.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
  }
}
