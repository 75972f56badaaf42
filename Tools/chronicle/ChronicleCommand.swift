import ArgumentParser
import Chronicle
import Foundation

@main
struct ChronicleCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "chronicle",
    abstract: "Inspect and drive Chronicle databases: SQLite files whose every write is an event.",
    subcommands: [Init.self, SQL.self, Log.self, Show.self, Sync.self, Peers.self, Export.self, Import.self, Parked.self, Demo.self])
}

/// Prints `error` to stderr and exits with status 1. (Usage errors exit with
/// status 64 through ArgumentParser.)
func fail(_ error: Error) -> Never {
  FileHandle.standardError.write(Data("error: \(error)\n".utf8))
  exit(1)
}

/// Runs `body`, turning any error into a message on stderr and a non-zero exit.
func reportingErrors(_ body: () throws -> Void) {
  do { try body() } catch { fail(error) }
}
