import ArgumentParser
import Chronicle
import Foundation

struct Sync: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Sync with the other peers: through a shared folder, with a peer serving over TCP (chronicle serve), or through a relay (chronicle relay).")

  @Argument(help: "The SQLite file.") var database: String
  @Option(help: "The shared folder (each peer writes its own subfolder).") var folder: String?
  @Option(help: "A peer running chronicle serve, as HOST:PORT.") var peer: String?
  @Option(help: "A relay (chronicle relay), as ws://HOST:PORT or wss://HOST.") var relay: String?
  @Option(help: "With --relay: a group creation token from the relay's operator, for the founder's device to start the group there.") var creationToken: String?
  @Flag(help: "With --relay: stay connected, sending writes as they happen and merging the group's as they arrive, until SIGINT or SIGTERM.") var watch = false
  @Flag(help: "Print progress lines on stderr even when it is not a terminal.") var progress = false
  @Option(help: "With --folder: seconds a file may stay shorter than its header declares (still arriving) before it is reported as damaged.") var damagedAfter: Double = 60
  @Flag(help: "Print what the sync did as one JSON object (not with --watch).") var json = false
  @OptionGroup var network: NetworkOptions

  func validate() throws {
    guard [folder, peer, relay].compactMap({ $0 }).count == 1 else {
      throw ValidationError("give exactly one of --folder DIR, --peer HOST:PORT or --relay URL")
    }
    if watch, relay == nil { throw ValidationError("--watch works with --relay only") }
    if watch, json { throw ValidationError("--json reports one sync: it does not work with --watch") }
    if creationToken != nil, relay == nil { throw ValidationError("--creation-token works with --relay only") }
    guard damagedAfter >= 0 else { throw ValidationError("--damaged-after must be 0 or more seconds") }
  }

  func run() async {
    if let relay {
      do {
        try await RelaySync(database: database, url: relay, network: network, watch: watch, creationToken: creationToken, json: json).run()
      } catch {
        fail(error)
      }
      return
    }
    if let peer {
      do {
        try await PeerSync(database: database, address: peer, network: network, showsProgress: progress, json: json).run()
      } catch {
        fail(error)
      }
      return
    }
    guard let folder else { return }
    do {
      let db = try Chronicle.open(path: database)
      let transport = DirectoryTransport(folder: URL(fileURLWithPath: folder), damagedAfter: .milliseconds(Int64(damagedAfter * 1000)))
      let engine = SyncEngine(for: db, transport: transport)
      let sent = try await engine.sendChanges()
      let report = try await engine.fetchChanges()
      var summary = SyncSummary(transport: "folder", address: folder, sentEvents: sent, merged: report.merged)
      summary.files = report.appliedSources.count
      summary.skippedFiles = report.incompleteSources.count
      summary.rejected = report.rejected.map { "\($0)" }
      try summary.report(json: json, database: database)
    } catch let exit as ExitCode {
      Foundation.exit(exit.rawValue)
    } catch {
      fail(error)
    }
  }
}

struct Peers: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "List the peers whose events this log holds, with its version vector.")

  @Argument(help: "The SQLite file.") var database: String

  func run() {
    reportingErrors {
      let db = try ChronicleArchive(path: database)
      let vector = try db.versionVector()
      let rows = try db.read { db in
        try Row.fetchAll(db, sql: "SELECT origin, COUNT(*), MAX(sequence), MAX(hlc) FROM chronicle_events GROUP BY origin ORDER BY origin")
      }
      print("peer                                  events  contiguous  highest  last write")
      for row in rows {
        guard let peer = PeerID(bytes: row[0] as Data) else { continue }
        let last = HLCTimestamp(rawValue: UInt64(bitPattern: row[3] as Int64))
        let highest: Int64 = row[2]
        let missing = highest - (row[1] as Int64)
        let gap = missing > 0 ? "  (\(missing) missing below highest)" : ""
        print("\(peer)\(peer == db.peerID ? "*" : " ") \(String(row[1] as Int64).leftPadded(6))  \(String(vector[peer]).leftPadded(10))  \(String(highest).leftPadded(7))  \(last)\(gap)")
      }
      print("version vector: \(vector)")
    }
  }
}

struct Export: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Write the events beyond a version vector into a bundle file, for manual transfer.")

  @Argument(help: "The SQLite file.") var database: String
  @Option(help: "Only events beyond this vector (PEER-UUID:SEQUENCE,...); all when omitted.") var since: String?
  @Option(help: "The bundle file to write.") var out: String

  func run() {
    reportingErrors {
      let db = try Chronicle.open(path: database)
      let vector = try since.map { try VersionVector(parsing: $0) } ?? VersionVector()
      let count = try db.exportBundle(beyond: vector, to: URL(fileURLWithPath: out))
      print("exported \(count) events to \(out)")
    }
  }
}

struct Import: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Merge the events of a bundle file (all of them but those refused, which chronicle refused lists).")

  @Argument(help: "The SQLite file.") var database: String
  @Argument(help: "The bundle file.") var file: String
  @Flag(help: "Print what the import did as one JSON object.") var json = false

  func run() {
    reportingErrors {
      let db = try Chronicle.open(path: database)
      let report = try db.applyRemote(bundle: [UInt8](Data(contentsOf: URL(fileURLWithPath: file))), source: file)
      try SyncSummary(transport: "bundle", address: file, merged: report).report(json: json, database: database)
    }
  }
}

struct Parked: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "List rows kept out of their table until their insert or their parent arrives.")

  @Argument(help: "The SQLite file.") var database: String

  func run() {
    reportingErrors {
      let db = try ChronicleArchive(path: database)
      let rows = try db.parkedRows()
      for row in rows {
        let values = row.values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        print("\(row.table) \(row.key.map(\.description).joined(separator: ",")) [\(row.reason)] \(values)")
      }
      print("\(rows.count) parked rows")
    }
  }
}

extension String {
  func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
