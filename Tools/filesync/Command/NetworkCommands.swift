import ArgumentParser
import Chronicle
import ChronicleNetwork
import Dispatch
import FileSync
import Foundation
import Logging
import Synchronization

/// Options of `serve` and `sync --peer`.
struct NetworkOptions: ParsableArguments {
  @Option(help: "The group key file (filesync keygen writes one; copy it to every peer).") var key: String?
  @Option(help: "Send at most this many bytes per second (suffixes k, m).") var rateLimit: String?
  @Option(help: "Log level: trace, debug, info, notice, warning, error.") var logLevel: String = "notice"

  func configuration(label: String) throws -> NetworkSyncConfiguration {
    guard let key else { throw ValidationError("--key FILE is required: the group key file (create one with filesync keygen FILE)") }
    guard let level = Logger.Level(rawValue: logLevel) else { throw ValidationError("unknown --log-level '\(logLevel)'") }
    var logger = Logger(label: label) { StreamLogHandler.standardError(label: $0) }
    logger.logLevel = level
    var configuration = NetworkSyncConfiguration(key: try SyncKey(contentsOf: URL(fileURLWithPath: key)), logger: logger)
    if let rateLimit {
      guard let rate = NetworkSyncConfiguration.byteRate(rateLimit) else {
        throw ValidationError("invalid --rate-limit '\(rateLimit)': expected bytes per second, like 500k or 2m")
      }
      configuration.maxSendRate = rate
    }
    return configuration
  }
}

struct Sync: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Scan, exchange the index and the missing contents with a peer, and update the folder.",
    discussion: "Give either --peer HOST:PORT with --key FILE (a filesync serve peer), or --folder SHARED (a folder every peer can reach).")

  @OptionGroup var folder: FolderArgument
  @Option(help: "A filesync serve peer, HOST:PORT.") var peer: String?
  @Option(name: .customLong("folder"), help: "A shared folder to sync through.") var shared: String?
  @Flag(help: "Print chunk transfer progress lines.") var progress = false
  @OptionGroup var network: NetworkOptions

  func validate() throws {
    guard (peer == nil) != (shared == nil) else { throw ValidationError("give exactly one of --peer HOST:PORT or --folder SHARED") }
  }

  func run() async throws {
    let synced = try folder.open()
    let report: FileSyncReport
    if let peer {
      let transport = try TCPTransport(address: peer, configuration: try network.configuration(label: "filesync.sync"))
      let showsProgress = progress
      report = try await synced.sync(with: transport) { transfer in
        if showsProgress { printError("received \(transfer.stored) chunks, \(Printer.bytes(transfer.bytes))") }
      }
    } else {
      report = try await synced.sync(through: URL(fileURLWithPath: shared!))
    }
    Printer.sync(report)
    // Refused input is said on stderr and in the exit status, as chronicle sync does.
    if !report.rejected.isEmpty { throw ExitCode(1) }
  }
}

struct Serve: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Serve the folder to its peers over TCP until SIGINT or SIGTERM, rescanning and updating it every few seconds.",
    discussion: "Prints 'listening on HOST:PORT' when ready. Peers sync with: filesync sync FOLDER --peer HOST:PORT --key FILE.")

  @OptionGroup var folder: FolderArgument
  @Option(help: "The port to listen on (0 picks a free one).") var port: Int
  @Option(help: "The address to listen on (0.0.0.0 for every interface).") var host = "127.0.0.1"
  @Option(help: "Seconds between rescans of the folder.") var interval: Double = 2
  @OptionGroup var network: NetworkOptions

  func run() async throws {
    guard interval > 0 else { throw ValidationError("--interval must be positive") }
    let synced = try folder.open()
    let configuration = try network.configuration(label: "filesync.serve")
    let server = try await SyncServer.bind(synced.database, host: host, port: port, configuration: configuration, blobs: synced.objects)
    let stop = StopSignal()
    let signals = [SIGINT, SIGTERM].map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler {
        stop.fire()
        server.shutdown()
      }
      source.resume()
      return source
    }
    // Announced once the signals are handled, so a SIGTERM right after it is not lost.
    print("listening on \(host):\(server.port)")
    fflush(nil)
    let period = interval
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await server.run() }
      group.addTask {
        while !stop.isFired && !Task.isCancelled {
          do {
            let round = try synced.refresh()
            Printer.refresh(round.scan, round.conflicts, round.materialized)
          } catch {
            printError("error: \(error)")
          }
          try? await Task.sleep(for: .milliseconds(Int64(period * 1000)))
        }
      }
      // When the server stops (on a signal), the refresh loop stops too,
      // without waiting out its interval.
      try await group.next()
      group.cancelAll()
      try await group.waitForAll()
    }
    signals.forEach { $0.cancel() }
  }
}

/// Set once by a signal handler, read by the refresh loop.
final class StopSignal: Sendable {
  private let fired = Mutex(false)
  var isFired: Bool { fired.withLock { $0 } }
  func fire() { fired.withLock { $0 = true } }
}
