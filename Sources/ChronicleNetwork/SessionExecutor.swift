import Foundation
import NIOPosix

/// Runs sync sessions on threads of their own instead of the shared pool
/// that Swift concurrency (and, on Linux, Dispatch) runs everything else on,
/// so a session answers in time (handshake, frames, timeouts) even while the
/// app keeps that pool busy with synchronous work. Sessions mostly wait on
/// the network; their blocking database work goes through ``offload(_:)``.
final class SessionExecutor: TaskExecutor, @unchecked Sendable {
  static let shared = SessionExecutor(threads: 2)

  // Guarded by `condition`.
  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []
  private var next = 0

  private init(threads: Int) {
    for index in 0..<threads {
      let thread = Thread { [unowned self] in work() }
      thread.name = "chronicle.network.session-\(index)"
      thread.start()
    }
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  private func work() {
    while true {
      condition.lock()
      while next == jobs.count { condition.wait() }
      let job = jobs[next]
      next += 1
      if next == jobs.count {
        jobs.removeAll(keepingCapacity: true)
        next = 0
      }
      condition.unlock()
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}

/// Runs blocking database work on NIO's blocking-work threads, off both the
/// shared pool and the session threads.
package func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
  try await NIOThreadPool.singleton.runIfActive(work)
}
