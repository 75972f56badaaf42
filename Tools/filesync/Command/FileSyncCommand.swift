import ArgumentParser
import Chronicle
import FileSync
import Foundation

@main
struct FileSyncCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "filesync",
    abstract: "Keep a folder in sync between peers, on Chronicle: the file index travels as events, contents as verified chunks.",
    discussion: """
      Start with `filesync init FOLDER --name NAME` on each peer, then `filesync serve` on one and \
      `filesync sync --peer HOST:PORT` on the others (or `filesync sync --folder SHARED` through a shared folder).
      Exit status: 0 success; 1 a peer's input was refused (each refusal named on stderr; the rest was applied); \
      2 usage or input error, or a failed sync.
      """,
    subcommands: [Init.self, Scan.self, Status.self, Sync.self, Serve.self, History.self, Restore.self, Keygen.self])

  static func main() async {
    do {
      var command = try parseAsRoot()
      if var asyncCommand = command as? AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
    } catch {
      if error is ExitCode || exitCode(for: error) == .success { exit(withError: error) }
      let message = error is ValidationError || error is CleanExit ? fullMessage(for: error) : "\(error)"
      FileHandle.standardError.write(Data(((message.lowercased().hasPrefix("error") ? "" : "error: ") + message + "\n").utf8))
      // A peer's events refused (over TCP the session ends on them) exit as refused input.
      if let error = error as? SyncError, error.isRefusedInput { Foundation.exit(1) }
      Foundation.exit(2)
    }
  }
}

/// The folder argument most commands take.
struct FolderArgument: ParsableArguments {
  @Argument(help: "The synced folder (default: the current directory).") var folder: String = "."

  var url: URL { URL(fileURLWithPath: folder).standardizedFileURL }

  func open() throws -> SyncedFolder { try SyncedFolder.open(at: url) }
}

/// Prints a line to stderr.
func printError(_ line: String) {
  FileHandle.standardError.write(Data((line + "\n").utf8))
}
