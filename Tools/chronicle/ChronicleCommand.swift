import ArgumentParser
import Chronicle
import ChronicleNetwork
import Dispatch
import Foundation

@main
struct ChronicleCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "chronicle",
    abstract: "Inspect and drive Chronicle databases: SQLite files whose every write is an event.",
    discussion: """
      Exit status: 0 success; 1 a difference or a failed check was found (diff, verify, \
      a replay that stopped at an event it cannot apply, rejected sync input); 2 usage or input error.
      """,
    subcommands: [
      Init.self, SQL.self, Log.self, Show.self, Replay.self, Step.self, Diff.self, Blame.self, Verify.self, Rebuild.self, Adopt.self, MigrateKeys.self, Compact.self, Clone.self,
      Sync.self, Keygen.self, Serve.self, Relay.self, Peers.self, Export.self, Import.self, Parked.self, Refused.self, Demo.self,
      Identity.self, Group.self, Invite.self, Join.self, Members.self, Role.self, Revoke.self, Rekey.self,
    ])

  /// Parses and runs the command, mapping every way out to the exit statuses above.
  static func main() async {
    do {
      var command = try parseAsRoot()
      if var asyncCommand = command as? AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
    } catch {
      exitReporting(error)
    }
  }
}

/// Exit statuses of the tool.
enum ExitStatus {
  static let success: Int32 = 0
  /// A difference or failed check was found.
  static let finding: Int32 = 1
  /// Bad usage or input.
  static let inputError: Int32 = 2

  static func of(_ error: Error) -> Int32 {
    switch error {
    case let code as ExitCode: code.rawValue
    case ChronicleError.replayFailed, ChronicleError.corruptEvent, ChronicleError.rebuildFailed, ChronicleError.untrackedWritesSuspected: finding
    // Rejected sync input, however it came (import, folder, peer).
    case let error as SyncError where error.isRefusedInput: finding
    case RelayError.unreadableEvent: finding
    default: inputError
    }
  }
}

/// Prints `error` (help and usage as ArgumentParser words them) and exits
/// with its status.
func exitReporting(_ error: Error) -> Never {
  if error is ExitCode { exit(ExitStatus.of(error)) }
  if ChronicleCommand.exitCode(for: error) == .success { ChronicleCommand.exit(withError: error) }  // --help, --version
  let message = error is ChronicleError ? "error: \(error)" : ChronicleCommand.fullMessage(for: error)
  FileHandle.standardError.write(Data((message.hasPrefix("error") || message.hasPrefix("Error") ? message : "error: \(message)").utf8 + [10]))
  exit(ExitStatus.of(error))
}

/// Prints `error` to stderr and exits with its status.
func fail(_ error: Error) -> Never {
  exitReporting(error)
}

/// Runs `body`, turning any error into a message on stderr and its exit status.
func reportingErrors(_ body: () throws -> Void) {
  do { try body() } catch { fail(error) }
}

/// Prints a line to stderr.
func printError(_ line: String) {
  FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Runs `action` on SIGINT or SIGTERM until the returned sources are
/// cancelled. Installed before a command announces it is ready, so a signal
/// sent right after the announcement is never lost.
func onTerminationSignals(_ action: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
  [SIGINT, SIGTERM].map { number in
    signal(number, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
    source.setEventHandler(handler: action)
    source.resume()
    return source
  }
}
