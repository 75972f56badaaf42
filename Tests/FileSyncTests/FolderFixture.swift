import Chronicle
import Crypto
import Foundation
import Testing

import ChronicleTestSupport

@testable import FileSync

/// Peers' folders and a shared folder inside one temporary directory.
struct FolderFixture {
  let directory: TemporaryDirectory
  var shared: URL { directory.url.appendingPathComponent("shared") }

  init() throws { directory = try TemporaryDirectory() }

  /// A new synced folder named `name`.
  func peer(_ name: String) throws -> SyncedFolder {
    try SyncedFolder.create(at: directory.url.appendingPathComponent(name), name: name)
  }
}

/// Writes `text` (or bytes) at `path` in the folder, creating folders.
func write(_ content: String, at path: String, in folder: SyncedFolder) throws {
  try write(Array(content.utf8), at: path, in: folder)
}

func write(_ bytes: [UInt8], at path: String, in folder: SyncedFolder) throws {
  let url = folder.root.appendingPathComponent(path)
  try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
  try Data(bytes).write(to: url)
}

func read(_ path: String, in folder: SyncedFolder) throws -> String {
  try String(contentsOf: folder.root.appendingPathComponent(path), encoding: .utf8)
}

func remove(_ path: String, in folder: SyncedFolder) throws {
  try FileManager.default.removeItem(at: folder.root.appendingPathComponent(path))
}

func move(_ path: String, to newPath: String, in folder: SyncedFolder) throws {
  let destination = folder.root.appendingPathComponent(newPath)
  try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
  try FileManager.default.moveItem(at: folder.root.appendingPathComponent(path), to: destination)
}

/// Every regular file under `root` (filesync's state excluded) and the
/// SHA-256 of its content: two folders hold the same tree when these are equal.
func tree(_ root: URL) throws -> [String: String] {
  var result: [String: String] = [:]
  let manager = FileManager.default
  func visit(_ url: URL, _ relative: String) throws {
    for name in try manager.contentsOfDirectory(atPath: url.path) {
      if relative.isEmpty, name == ".filesync" { continue }
      let child = url.appendingPathComponent(name)
      let path = relative.isEmpty ? name : relative + "/" + name
      let values = try child.resourceValues(forKeys: [.isDirectoryKey, .isSymbolicLinkKey])
      if values.isSymbolicLink == true { result[path] = "symlink" }
      else if values.isDirectory == true { try visit(child, path) }
      else { result[path] = SHA256.hash(data: try Data(contentsOf: child)).map { String(format: "%02x", $0) }.joined() }
    }
  }
  try visit(root, "")
  return result
}

/// `count` bytes from a seeded generator (incompressible, reproducible).
func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
  var generator = SeededGenerator(seed: seed)
  var bytes = [UInt8]()
  bytes.reserveCapacity(count)
  while bytes.count < count {
    let word = generator.next()
    for shift in stride(from: 0, to: 64, by: 8) where bytes.count < count { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
  }
  return bytes
}

/// Lets the file system's clock move on, so an edit gets a new time.
func tick() { usleep(5_000) }
