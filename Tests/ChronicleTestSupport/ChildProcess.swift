import Foundation
import Synchronization

/// A tool process running beside the test: its output is collected as it
/// comes, so a test can wait for a line, then act (kill it, start another).
///
/// stdout and stderr go to files read on demand, not to pipes with a
/// `readabilityHandler`: Foundation on Linux can crash in libdispatch
/// (`_dispatch_event_loop_drain`) when such a pipe is torn down as the
/// process ends (swift-corelibs-foundation #5507), which took a whole
/// `swift test` run down with it.
public final class ChildProcess: Sendable {
  private let process: Process
  private let outputFile: URL
  private let errorFile: URL

  /// Starts `tool` (a product SwiftPM built beside the test bundle) with `arguments`.
  public init(_ tool: String, _ arguments: [String]) throws {
    process = Process()
    process.executableURL = try Self.builtProduct(tool)
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-child-\(UUID().uuidString)")
    outputFile = base.appendingPathExtension("out")
    errorFile = base.appendingPathExtension("err")
    let out = try Self.emptyFile(outputFile), err = try Self.emptyFile(errorFile)
    process.standardOutput = out
    process.standardError = err
    defer {
      // The child holds its own descriptors; this process needs none.
      try? out.close()
      try? err.close()
    }
    try process.run()
  }

  private static func emptyFile(_ url: URL) throws -> FileHandle {
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
    }
    return try FileHandle(forWritingTo: url)
  }

  public var standardOutput: String { Self.contents(of: outputFile) }
  public var standardError: String { Self.contents(of: errorFile) }

  private static func contents(of file: URL) -> String {
    String(decoding: (try? Data(contentsOf: file)) ?? Data(), as: UTF8.self)
  }

  public var isRunning: Bool { process.isRunning }
  public var processIdentifier: Int32 { process.processIdentifier }

  /// Waits until stdout or stderr has a line containing `text`; returns it.
  /// Blocks the calling thread (polling every 5 ms) rather than awaiting, so
  /// a test that must act at once (kill the process) is not delayed by other
  /// tests holding the shared threads.
  public func waitForLine(containing text: String, timeout: Duration = .seconds(30)) throws -> String {
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
  public func stop(with signal: Int32 = SIGTERM) -> Int32 {
    if process.isRunning { kill(process.processIdentifier, signal) }
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// Waits for the process to end; returns its status.
  public func wait() -> Int32 {
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// The executable `name` SwiftPM built beside the test bundle.
  public static func builtProduct(_ name: String) throws -> URL {
    let places = [
      URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
      Bundle.main.bundleURL.deletingLastPathComponent(),
      Bundle.main.bundleURL,
    ]
    for place in places {
      let candidate = place.appendingPathComponent(name)
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "\(name) beside \(places.map(\.path))"])
  }

  /// Runs `tool` to its end; returns its status and output.
  public static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
    let process = Process()
    process.executableURL = try builtProduct(tool)
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    // stderr is read on another thread, so neither pipe can fill up and block the tool.
    let errorData = Mutex(Data())
    let reader = Thread { errorData.withLock { $0 = errors.fileHandleForReading.readDataToEndOfFile() } }
    reader.start()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while reader.isExecuting || !reader.isFinished { usleep(1_000) }
    return (process.terminationStatus, String(decoding: out, as: UTF8.self), errorData.withLock { String(decoding: $0, as: UTF8.self) })
  }

  deinit {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    try? FileManager.default.removeItem(at: outputFile)
    try? FileManager.default.removeItem(at: errorFile)
  }
}
