import ArgumentParser
import Chronicle
import ChronicleNetwork
import ChronicleRelay
import Foundation
import Logging

struct Relay: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run a relay: an always-on server the devices of any number of groups sync through (until SIGINT or SIGTERM).",
    discussion: """
      Prints 'relay listening on ws://HOST:PORT' when ready. Devices sync with: \
      chronicle sync DB --relay ws://HOST:PORT [--watch]. The relay stores events sealed \
      with each group's keys, which it never has, and admits only the devices of each group's member list. \
      Serve it behind a TLS-terminating proxy (devices then use wss://). GET /health and GET /metrics \
      (Prometheus, with --metrics-token-file) are on the same port. Connections are capped in all and \
      per address; one that is no member's session within --request-timeout is closed. \
      A group starts on the relay only with a creation token from its operator (chronicle relay token \
      create; the founder's device gives it with chronicle sync --relay URL --creation-token TOKEN), \
      unless --open-groups lets anyone start one.
      """,
    subcommands: [RelayToken.self])

  @Option(help: "The relay's SQLite store (created when missing), for a single relay process.") var data: String?
  @Option(help: "A PostgreSQL database to store in instead (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE), shared by any number of relay processes.") var postgres: String?
  @Option(help: "The address to listen on (0.0.0.0 for every interface).") var host = "127.0.0.1"
  @Option(help: "The port to listen on (0 picks a free one).") var port = 7440
  @Option(help: "The largest event a device may push, in bytes (suffixes k, m).") var maxEventSize = "64m"
  @Option(help: "The most bytes one group may store (suffixes k, m, g), or 'none'.") var groupQuota = "1g"
  @Option(help: "The most events one group may store, or 'none'.") var groupEventQuota = "1000000"
  @Option(help: "The most membership events one group may store (its member list's history).") var maxMembershipEvents = 10_000
  @Option(help: "The most bytes one device may push per second over all its connections (suffixes k, m), or 'none'; faster pushes are slowed, then refused.") var maxPushRate = "16m"
  @Option(help: "Seconds a store call may take before devices are told to retry (PostgreSQL restarting).") var storeTimeout: Double = 10
  @Option(help: "The most connections open at once; by default the process's open-file limit less 64.") var maxConnections: Int?
  @Option(help: "The most connections open at once from one IP address.") var maxConnectionsPerAddress = 128
  @Option(help: "Seconds a new connection has to become a member's session (an accepted hello); others are closed then.") var requestTimeout: Double = 15
  @Option(help: "A file holding the bearer token GET /metrics asks for; metrics are off without it.") var metricsTokenFile: String?
  @Flag(help: "Let any device start a group here, without a creation token (a relay on a trusted network).") var openGroups = false
  @Option(name: .customLong("name"), help: "A name devices address this relay by (HOST[:PORT], repeatable): hellos signed for another relay are refused. By default each connection's Host header; set it behind a proxy that rewrites that header.") var names: [String] = []
  @Option(help: "Log level: trace, debug, info, notice, warning, error.") var logLevel: String = "info"

  func run() async throws {
    guard let level = Logger.Level(rawValue: logLevel) else { throw ValidationError("unknown --log-level '\(logLevel)'") }
    var logger = Logger(label: "chronicle.relay") { StreamLogHandler.standardError(label: $0) }
    logger.logLevel = level
    let storage: RelayServerConfiguration.Storage
    switch (data, postgres) {
    case (let path?, nil): storage = .sqlite(path: path)
    case (nil, let url?): storage = .postgres(url: url)
    default: throw ValidationError("give exactly one of --data FILE (an embedded store) or --postgres URL (a shared one)")
    }
    var configuration = RelayServerConfiguration(storage: storage, logger: logger)
    configuration.host = host
    configuration.port = port
    configuration.maxEventBytes = try Self.size(maxEventSize, option: "--max-event-size")
    configuration.groupQuotaBytes = try Self.limit(groupQuota, option: "--group-quota", parse: { Self.size($0) })
    configuration.groupQuotaEvents = try Self.limit(groupEventQuota, option: "--group-event-quota", parse: { Int($0).flatMap { $0 > 0 ? $0 : nil } })
    guard maxMembershipEvents > 0 else { throw ValidationError("--max-membership-events must be positive") }
    configuration.maxMembershipEvents = maxMembershipEvents
    configuration.maxPushBytesPerSecond = try Self.limit(maxPushRate, option: "--max-push-rate", parse: { Self.size($0) })
    guard storeTimeout > 0, storeTimeout <= 3600 else { throw ValidationError("--store-timeout must be between 0 and 3600 seconds") }
    configuration.storeTimeout = .milliseconds(Int64(storeTimeout * 1000))
    if let maxConnections {
      guard maxConnections > 0 else { throw ValidationError("--max-connections must be positive") }
      configuration.maxConnections = maxConnections
    }
    guard maxConnectionsPerAddress > 0 else { throw ValidationError("--max-connections-per-address must be positive") }
    configuration.maxConnectionsPerAddress = maxConnectionsPerAddress
    guard requestTimeout > 0, requestTimeout <= 3600 else { throw ValidationError("--request-timeout must be between 0 and 3600 seconds") }
    configuration.requestTimeout = .milliseconds(Int64(requestTimeout * 1000))
    if let metricsTokenFile {
      let token = try String(contentsOfFile: metricsTokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
      guard token.count >= 16 else {
        throw ValidationError("the metrics token in \(metricsTokenFile) is \(token.count) characters: use at least 16 (for example: openssl rand -hex 32 > \(metricsTokenFile))")
      }
      configuration.metricsToken = token
    }
    configuration.openGroups = openGroups
    configuration.names = names
    configuration.stopsOnTerminationSignals = true
    let relay = try await RelayServer(configuration: configuration)
    let announce = Task {
      // When the relay cannot listen, run() below throws why.
      guard let port = try? await relay.port else { return }
      print("relay listening on ws://\(host):\(port)")
      fflush(nil)
    }
    defer { announce.cancel() }
    try await relay.run()
  }

  /// A byte count with an optional k, m or g suffix.
  static func size(_ text: String, option: String) throws -> Int {
    guard let bytes = size(text) else {
      throw ValidationError("invalid \(option) '\(text)': expected a positive number of bytes, like 500k, 64m or 2g")
    }
    return bytes
  }

  static func size(_ text: String) -> Int? { NetworkSyncConfiguration.byteRate(text) }

  /// A limit given as a number or `none` (nil: no limit).
  static func limit(_ text: String, option: String, parse: (String) -> Int?) throws -> Int? {
    if text.lowercased() == "none" { return nil }
    guard let value = parse(text) else {
      throw ValidationError("invalid \(option) '\(text)': expected a positive number (bytes take suffixes k, m, g) or 'none' for no limit")
    }
    return value
  }
}

/// `chronicle relay token create`: group creation tokens.
struct RelayToken: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "token", abstract: "Group creation tokens of a relay.", subcommands: [Create.self])

  /// Its store: `--data` or `--postgres`, given as to `chronicle relay`.
  @ParentCommand var relay: Relay

  struct Create: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Create a token that starts groups on the relay; prints it (the store keeps only its hash).",
      discussion: """
        chronicle relay token create (--data FILE | --postgres URL) [--groups N]. Give the token to the \
        person whose device founds the group: chronicle sync DB --relay URL --creation-token TOKEN. The relay need not be running; every relay process sharing the store honours it.
        """)

    @ParentCommand var token: RelayToken
    @Option(help: "How many groups the token may start.") var groups = 1

    func run() async throws {
      let storage: RelayServerConfiguration.Storage
      switch (token.relay.data, token.relay.postgres) {
      case (let path?, nil): storage = .sqlite(path: path)
      case (nil, let url?): storage = .postgres(url: url)
      default: throw ValidationError("give exactly one of --data FILE or --postgres URL: the store of the relay the token is for")
      }
      guard groups > 0 else { throw ValidationError("--groups must be 1 or more") }
      let logger = Logger(label: "chronicle.relay") { StreamLogHandler.standardError(label: $0) }
      let token = try await RelayServer.createGroupCreationToken(in: storage, groups: groups, logger: logger)
      print(token)
    }
  }
}

/// Syncs through a relay for `sync --relay`, once or (`--watch`) until stopped.
struct RelaySync {
  var database: String
  var url: String
  var network: NetworkOptions
  var watch: Bool
  var creationToken: String?
  var json = false

  func run() async throws {
    let db = try Chronicle.open(path: database)
    if network.key != nil {
      printError("note: --key is not used with --relay: events are sealed with the group's own keys, which each member is granted in its membership events")
    }
    var configuration = RelayConfiguration(logger: try network.logger(label: "chronicle.sync"))
    configuration.responseTimeout = try network.frameTimeout()
    configuration.creationToken = creationToken
    let transport = try RelayTransport(url: url, configuration: configuration)
    guard watch else {
      let report = try await transport.sync(db)
      var summary = SyncSummary(transport: "relay", address: url, sentEvents: report.sentEvents, merged: report.received)
      summary.unpushed = report.unpushed
      summary.unforwarded = report.unforwarded
      try summary.report(json: json, database: database)
      return
    }
    let watching = Task {
      try await transport.watch(db) { event in
        switch event {
        case .sent(let count) where count > 0: print("sent \(count) events")
        case .fetched(let report):
          if report.merged.appliedEvents > 0 { print("merged \(report.merged.appliedEvents) events (\(report.merged.rowChanges) row changes)") }
          _ = printRefused(report.merged.refused, database: database)
        case .failed(let message): printError("relay: \(message) (reconnecting)")
        default: break
        }
        fflush(nil)
      }
    }
    let signals = onTerminationSignals { watching.cancel() }
    print("watching through the relay at \(url) (SIGINT or SIGTERM stops)")
    fflush(nil)
    defer { signals.forEach { $0.cancel() } }
    do {
      try await watching.value
    } catch is CancellationError {
      print("stopped")
    }
  }
}
