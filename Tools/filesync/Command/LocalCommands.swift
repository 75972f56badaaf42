import ArgumentParser
import Chronicle
import ChronicleNetwork
import FileSync
import Foundation

struct Init: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Make a folder a synced folder (it keeps its state in FOLDER/.filesync).")

  @OptionGroup var folder: FolderArgument
  @Option(help: "This peer's name, shown in conflict copies (default: the host name).") var name: String?

  func run() throws {
    let synced = try SyncedFolder.create(at: folder.url, name: name)
    print("initialized \(synced.root.path) as peer '\(synced.name)' (\(synced.database.peerID))")
    print("next: filesync scan \(folder.folder), then filesync serve or filesync sync")
  }
}

struct Scan: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Record what changed in the folder since the last scan (additions, edits, renames, deletions).")

  @OptionGroup var folder: FolderArgument

  func run() throws {
    let synced = try folder.open()
    let report = try synced.exclusively { try synced.scan() }
    Printer.scan(report)
  }
}

struct Status: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Show files, content still to come, unscanned changes, conflicts and refused paths.")

  @OptionGroup var folder: FolderArgument

  func run() throws {
    let synced = try folder.open()
    let status = try synced.status()
    print("folder \(synced.root.path), peer '\(status.name)' (\(status.peer))")
    print("\(status.files) files, \(Printer.bytes(status.bytes))")
    print("peers in the index: \(status.versionVector.sequences.count) (\(status.versionVector.sequences.values.reduce(0, +)) events)")
    Printer.list("waiting for content", status.waitingForContent)
    Printer.list("changed since the last scan", status.changedSinceScan)
    Printer.list("conflict copies", status.conflicts.map(\.copyPath))
    Printer.list("refused paths", status.refused.map { "\(Printer.shown($0.path)): \($0.reason)" })
  }
}

struct History: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Show who changed a file and when, from the synced log.")

  @Argument(help: "A file in a synced folder (it may be deleted).") var path: String

  func run() throws {
    let (synced, relative) = try FolderLocator.locate(path)
    for entry in try synced.history(of: relative) {
      let version = entry.version
      var what = version.change.rawValue
      if let movedTo = entry.movedTo { what = "renamed to \(movedTo)" }
      else if version.change == .renamed, let from = version.detail { what = "renamed from \(from)" }
      else if version.change == .conflictCopy { what = "conflict copy" }
      else if version.change == .restored { what = "restored" }
      var line = "\(Printer.time(version.recordedAt))  \(version.peerName.padding(toLength: 12, withPad: " ", startingAt: 0)) \(what.padding(toLength: 10, withPad: " ", startingAt: 0))"
      if entry.movedTo == nil, let hash = version.contentHash {
        line += "  \(Printer.bytes(version.size).padding(toLength: 10, withPad: " ", startingAt: 0)) \(hash.prefix(12))"
        if !entry.isRestorable { line += "  (content not stored here)" }
      }
      if entry.isCurrent { line += "  <- current" }
      print(line)
    }
  }
}

struct Restore: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Bring back the version a file had at a time, as a new version (synced like any edit).",
    discussion: "TIME is UTC: 2026-11-21 14:03:22, 2026-11-21T14:03:22.500Z, or milliseconds since 1970. `filesync history PATH` lists the times.")

  @Argument(help: "A file in a synced folder (it may be deleted).") var path: String
  @Option(help: "The time whose version to restore.") var at: String

  func run() throws {
    let (synced, relative) = try FolderLocator.locate(path)
    guard let time = Printer.parseTime(at) else {
      throw ValidationError("cannot read the time '\(at)': use UTC like 2026-11-21 14:03:22 or milliseconds since 1970")
    }
    let restored = try synced.restore(relative, at: time)
    if restored.isDeletion {
      print("\(relative) was deleted at that time: removed it again")
    } else {
      print("restored \(relative) to its version of \(Printer.time(time)) (\(Printer.bytes(restored.size)), \(restored.contentHash!.prefix(12)))")
    }
  }
}

struct Keygen: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Write a new group key to a file only its owner can read; copy it to every peer.")

  @Argument(help: "The key file to create (never overwritten).") var file: String

  func run() throws {
    try SyncKey.generate().write(to: URL(fileURLWithPath: file))
    print("wrote a new group key to \(file) (mode 600)")
  }
}

/// Finds the synced folder holding a path.
enum FolderLocator {
  static func locate(_ path: String) throws -> (SyncedFolder, String) {
    let url = URL(fileURLWithPath: path).standardizedFileURL
    var folder = url.deletingLastPathComponent()
    var relative = [url.lastPathComponent]
    while true {
      if FileManager.default.fileExists(atPath: folder.appendingPathComponent(".filesync/local.sqlite").path) {
        return (try SyncedFolder.open(at: folder), relative.joined(separator: "/"))
      }
      guard folder.path != "/" else { break }
      relative.insert(folder.lastPathComponent, at: 0)
      folder = folder.deletingLastPathComponent()
    }
    throw ValidationError("\(path) is not inside a synced folder (none of its parents has .filesync): run filesync init FOLDER first")
  }
}
