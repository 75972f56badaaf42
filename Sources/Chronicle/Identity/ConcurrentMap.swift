import Dispatch

extension Array where Element: Sendable {
  /// `transform` of every element, computed on all cores, in order. For
  /// CPU-bound work on independent elements (signing, checking signatures).
  package func concurrentMap<T: Sendable>(_ transform: @Sendable (Element) -> T) -> [T] {
    guard count > 1 else { return map(transform) }
    let slices = Swift.min(count, 64)
    let results = UnsafeMutableBufferPointer<T>.allocate(capacity: count)
    defer { results.deallocate() }
    nonisolated(unsafe) let output = results
    withoutActuallyEscaping(transform) { transform in
      self.withUnsafeBufferPointer { input in
        nonisolated(unsafe) let input = input
        DispatchQueue.concurrentPerform(iterations: slices) { slice in
          // Each slice writes its own range of the output: no overlap.
          let range = (slice * input.count / slices)..<((slice + 1) * input.count / slices)
          for index in range { (output.baseAddress! + index).initialize(to: transform(input[index])) }
        }
      }
    }
    let array = Array<T>(results)
    _ = results.deinitialize()
    return array
  }
}
