import Foundation
import Synchronization

/// A `chronicle` process running beside the test: its output is collected as
/// it comes, so a test can wait for a line, then act (kill it, start another).
final class ChildProcess: Sendable {
  private let process: Process
  private let output = Mutex(Data())
  private let errors = Mutex(Data())

  init(_ arguments: [String]) throws {
    process = Process()
    process.executableURL = try ReplayCommandsTests.binary()
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    out.fileHandleForReading.readabilityHandler = { [weak self] handle in
      let data = handle.availableData
      self?.output.withLock { $0.append(data) }
    }
    err.fileHandleForReading.readabilityHandler = { [weak self] handle in
      let data = handle.availableData
      self?.errors.withLock { $0.append(data) }
    }
    try process.run()
  }

  var standardOutput: String { output.withLock { String(decoding: $0, as: UTF8.self) } }
  var standardError: String { errors.withLock { String(decoding: $0, as: UTF8.self) } }
  var isRunning: Bool { process.isRunning }

  /// Waits until stdout or stderr has a line containing `text`; returns it.
  /// Blocks the calling thread (polling every 5 ms) rather than awaiting, so
  /// a test that must act at once (kill the process) is not delayed by other
  /// tests holding the shared threads.
  func waitForLine(containing text: String, timeout: Duration = .seconds(30)) throws -> String {
    let deadline = ContinuousClock.now + timeout
    while true {
      for line in (standardOutput + "\n" + standardError).split(separator: "\n") where line.contains(text) { return String(line) }
      guard process.isRunning, ContinuousClock.now < deadline else { break }
      usleep(5_000)
    }
    throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "no line with '\(text)'; stdout: \(standardOutput) stderr: \(standardError)"])
  }

  /// Sends `signal` and waits for the process to end; returns its status.
  @discardableResult
  func stop(with signal: Int32 = SIGTERM) -> Int32 {
    if process.isRunning { kill(process.processIdentifier, signal) }
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// Waits for the process to end; returns its status.
  func wait() -> Int32 {
    process.waitUntilExit()
    return process.terminationStatus
  }

  deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}
