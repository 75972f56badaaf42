import Foundation

/// Runs long synchronous work on a thread of its own and waits for it
/// without holding a thread of Swift's cooperative pool.
///
/// The pool has one thread per core (two on the CI machine), and Swift Testing
/// runs test functions on it in parallel: two seconds-long synchronous tests
/// side by side leave no thread for the async tests beside them, whose network
/// handshakes then time out. CPU-heavy tests go through this instead.
///
/// A `Thread`, not `DispatchQueue.global()`: on Linux the cooperative pool
/// *is* dispatch's global default-QoS pool, so work sent there takes the very
/// threads it was meant to spare. In one full run the ten convergence batches
/// held them for 83 s, and no other test finished before they did. And one
/// such thread at a time: ten CPU-bound threads on two cores would leave the
/// network event loops a twelfth of a core each, and timeouts would fire.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    let thread = Thread {
      heavyWork.wait()
      defer { heavyWork.signal() }
      continuation.resume(with: Result { try body() })
    }
    thread.stackSize = 8 << 20  // a main thread's: deep SQLite and decoder stacks
    thread.start()
  }
}

/// One CPU-heavy test body at a time, leaving the other cores to the rest.
private let heavyWork = DispatchSemaphore(value: 1)
