import ArgumentParser
import Chronicle
import ChronicleNetwork
import Dispatch
import Foundation
import Logging

struct Keygen: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Write a new group key for network sync to a file only its owner can read.",
    discussion: "Copy the file to every peer of the group over a secure channel; serve and sync read it with --key.")

  @Argument(help: "The key file to create (never overwritten).") var file: String

  func run() throws {
    try SyncKey.generate().write(to: URL(fileURLWithPath: file))
    print("wrote a new group key to \(file) (mode 600)")
  }
}

/// Options shared by `serve` and `sync --peer`.
struct NetworkOptions: ParsableArguments {
  @Option(help: "The group key file (chronicle keygen writes one). Keys are never given on the command line. A database in a group may leave it out: it then syncs with its group's members only, proven by their device keys (both sides without one).") var key: String?
  @Option(help: "Send at most this many bytes per second (suffixes k, m).") var rateLimit: String?
  @Option(help: "Seconds each frame may take to arrive before the peer is disconnected.") var timeout: Double = 60
  @Option(help: "The largest frame accepted from a peer (suffixes k, m, g); the same on every peer. Default 4m: events and blobs larger than a frame travel in parts.") var maxFrameSize: String?
  @Option(help: "The largest event accepted from a peer, in parts when over a frame (suffixes k, m, g). Default: the largest a database can write (1g).") var maxEventSize: String?
  @Option(help: "Log level: trace, debug, info, notice, warning, error.") var logLevel: String = "info"

  func configuration(label: String) throws -> NetworkSyncConfiguration {
    let syncKey = try key.map { try SyncKey(contentsOf: URL(fileURLWithPath: $0)) } ?? .groupMembersOnly
    var configuration = NetworkSyncConfiguration(key: syncKey, logger: try logger(label: label))
    configuration.frameTimeout = try frameTimeout()
    if let rateLimit { configuration.maxSendRate = try Self.bytes(rateLimit, option: "--rate-limit") }
    if let maxFrameSize {
      configuration.maxFrameSize = try Self.bytes(maxFrameSize, option: "--max-frame-size")
      guard configuration.maxFrameSize >= 64 << 10 else { throw ValidationError("--max-frame-size must be at least 64k") }
    }
    if let maxEventSize { configuration.maxEventSize = try Self.bytes(maxEventSize, option: "--max-event-size") }
    return configuration
  }

  func logger(label: String) throws -> Logger {
    guard let level = Logger.Level(rawValue: logLevel) else { throw ValidationError("unknown --log-level '\(logLevel)'") }
    var logger = Logger(label: label) { StreamLogHandler.standardError(label: $0) }
    logger.logLevel = level
    return logger
  }

  func frameTimeout() throws -> Duration {
    guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    return .milliseconds(Int64(timeout * 1000))
  }

  static func bytes(_ text: String, option: String) throws -> Int {
    guard let rate = NetworkSyncConfiguration.byteRate(text) else {
      throw ValidationError("invalid \(option) '\(text)': expected a number of bytes, like 500k or 2m")
    }
    return rate
  }
}

struct Serve: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Serve a database to the peers of its group over TCP until SIGINT or SIGTERM.",
    discussion: "Prints 'listening on HOST:PORT' when ready. Peers connect with: chronicle sync DB --peer HOST:PORT (--key FILE when the server was given one).")

  @Argument(help: "The SQLite file.") var database: String
  @Option(help: "The port to listen on (0 picks a free one).") var port: Int
  @Option(help: "The address to listen on (0.0.0.0 for every interface).") var host = "127.0.0.1"
  @Option(name: .customLong("allow-peer"), help: "Only let these peer ids in (repeatable); every holder of the key when omitted.") var allowedPeers: [String] = []
  @OptionGroup var network: NetworkOptions

  func run() async throws {
    var configuration = try network.configuration(label: "chronicle.serve")
    if !allowedPeers.isEmpty {
      configuration.allowedPeers = Set(try allowedPeers.map { text in
        guard let peer = PeerID(text) else { throw ValidationError("--allow-peer '\(text)' is not a peer id (a UUID, as chronicle peers prints)") }
        return peer
      })
    }
    let db = try Chronicle.open(path: database)
    let server = try await SyncServer.bind(db, host: host, port: port, configuration: configuration)
    // Signals are handled before readiness is announced: a SIGTERM sent right
    // after "listening on" is never lost between SIG_IGN and the handler.
    let signals = onTerminationSignals { server.shutdown() }
    print("listening on \(host):\(server.port)")
    fflush(nil)
    try await server.run()
    signals.forEach { $0.cancel() }
  }
}

/// Syncs with a server through `sync --peer`, with progress on stderr.
struct PeerSync {
  var database: String
  var address: String
  var network: NetworkOptions
  var showsProgress: Bool
  var json = false

  func run() async throws {
    let db = try Chronicle.open(path: database)
    let printer = NetworkProgressPrinter(alwaysPrints: showsProgress)
    let transport = try TCPTransport(address: address, configuration: try network.configuration(label: "chronicle.sync"), progress: printer.show)
    let report = try await transport.sync(db)
    printer.finish()
    var summary = SyncSummary(transport: "peer", address: address, sentEvents: report.sentEvents, merged: report.received)
    summary.remotePeer = report.remotePeer?.description
    summary.remoteApplied = report.remoteApplied
    try summary.report(json: json, database: database)
  }
}
