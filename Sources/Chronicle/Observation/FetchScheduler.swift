import Dispatch
import GRDB

/// How ``FetchObservation`` schedules GRDB's value observation: the first
/// value either synchronously, on the thread that starts the observation (so
/// a fetch wrapper holds data as soon as it is created), or on `queue`; every
/// later value on `queue`, a serial queue, in order.
///
/// GRDB's own `.immediate` scheduler also fetches synchronously, but only on
/// the main thread, which a command-line program or a server may never run.
struct FetchScheduler: ValueObservationScheduler {
  let queue: DispatchQueue
  let deliversFirstValueImmediately: Bool

  func immediateInitialValue() -> Bool { deliversFirstValueImmediately }

  func schedule(_ action: @escaping @Sendable () -> Void) {
    queue.async(execute: action)
  }
}
