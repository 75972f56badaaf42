import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A ``BlobStore`` in a folder: each blob is one file named by its hash,
/// fanned out by its first two hex digits (`3f/3fa9…`). Writes go to a
/// temporary file that is flushed to disk and then renamed, so a crash or a
/// concurrent reader never sees a partial blob. Several processes may share
/// the folder (a synced folder between peers, for instance).
public struct FileBlobStore: BlobStore {
  /// The store's folder.
  public let folder: URL
  /// Whether each write is flushed to disk before it is renamed into place.
  public let flushesWrites: Bool

  /// A store in `folder`, created if needed.
  ///
  /// - Parameter flushesWrites: flush each blob to disk before renaming it
  ///   into place (the default). Without it, writes are faster, and a blob
  ///   written just before a power loss may be found damaged; an app that
  ///   verifies blobs when it reads them (as `filesync` does, removing and
  ///   fetching again a damaged one) can do without.
  public init(folder: URL, flushesWrites: Bool = true) throws {
    self.folder = folder
    self.flushesWrites = flushesWrites
    do {
      try FileManager.default.createDirectory(at: folder.appendingPathComponent(Self.partialFolder), withIntermediateDirectories: true)
    } catch {
      throw BlobError.storage(path: folder.path, reason: "cannot create the folder (\(error.localizedDescription))")
    }
  }

  static let partialFolder = ".partial"

  /// Where `hash` is (or would be) stored.
  public func url(of hash: BlobHash) -> URL {
    let hex = hash.hex
    return folder.appendingPathComponent(String(hex.prefix(2)), isDirectory: true).appendingPathComponent(hex)
  }

  public func contains(_ hash: BlobHash) throws -> Bool {
    FileManager.default.fileExists(atPath: url(of: hash).path)
  }

  public func read(_ hash: BlobHash) throws -> [UInt8]? {
    let url = url(of: hash)
    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
    do {
      return [UInt8](try Data(contentsOf: url))
    } catch {
      throw BlobError.storage(path: url.path, reason: "cannot read (\(error.localizedDescription))")
    }
  }

  public func write(_ bytes: [UInt8], as hash: BlobHash) throws {
    let actual = BlobHash(of: bytes)
    guard actual == hash else { throw BlobError.hashMismatch(expected: hash, actual: actual) }
    guard try !contains(hash) else { return }
    let destination = url(of: hash)
    let temporary = folder.appendingPathComponent(Self.partialFolder).appendingPathComponent(UUID().uuidString)
    do {
      try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Self.write(bytes, to: temporary.path, flushing: flushesWrites)
      guard rename(temporary.path, destination.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      throw BlobError.storage(path: destination.path, reason: "cannot write (\(error.localizedDescription))")
    }
  }

  /// Every blob in the store, in no particular order.
  public func allHashes() throws -> [BlobHash] {
    let manager = FileManager.default
    var hashes: [BlobHash] = []
    for fan in (try? manager.contentsOfDirectory(atPath: folder.path)) ?? [] where fan.utf8.count == 2 {
      for name in (try? manager.contentsOfDirectory(atPath: folder.appendingPathComponent(fan).path)) ?? [] {
        if let hash = BlobHash(hex: name) { hashes.append(hash) }
      }
    }
    return hashes
  }

  /// Removes `hash` (for pruning old content); removing a missing blob does nothing.
  public func remove(_ hash: BlobHash) throws {
    let url = url(of: hash)
    guard FileManager.default.fileExists(atPath: url.path) else { return }
    do {
      try FileManager.default.removeItem(at: url)
    } catch {
      throw BlobError.storage(path: url.path, reason: "cannot remove (\(error.localizedDescription))")
    }
  }

  /// Writes `bytes` to a new file at `path`, flushed to disk if `flushing`.
  static func write(_ bytes: [UInt8], to path: String, flushing: Bool) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer { close(descriptor) }
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { buffer in
        posixWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
      }
      if written < 0 {
        if errno == EINTR { continue }
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
      }
      offset += written
    }
    guard !flushing || fsync(descriptor) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
  }
}

/// `write(2)`, named apart from ``BlobStore/write(_:as:)``.
private func posixWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  write(descriptor, buffer, count)
}
