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
  func waitForLine(containing text: String, timeout: Duration = .seconds(30)) async throws -> String {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      for line in (standardOutput + "\n" + standardError).split(separator: "\n") where line.contains(text) { return String(line) }
      if !process.isRunning { break }
      try await Task.sleep(for: .milliseconds(10))
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
