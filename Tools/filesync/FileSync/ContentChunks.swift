import Chronicle
import Crypto
import Foundation

/// File contents as content-addressed chunks: a file is split into chunks of
/// ``chunkSize`` bytes, each stored as a blob under its SHA-256; the content
/// is named by the SHA-256 of the whole file. Memory stays bounded by one
/// chunk, whatever the file's size.
enum ContentChunks {
  static let chunkSize = 1 << 20

  /// A file's content as stored: its hash, size and chunk list.
  struct Stored {
    var record: ContentRecord
    var status: FileStat
  }

  /// Reads the file at `url` chunk by chunk, storing each chunk in `store`.
  /// Returns `nil` when the file changed while it was read (it is being
  /// written: the next scan takes it).
  static func store(fileAt url: URL, into store: some BlobStore) throws -> Stored? {
    guard let before = FileStat.of(url.path), before.kind == .regular else { return nil }
    let handle: FileHandle
    do {
      handle = try FileHandle(forReadingFrom: url)
    } catch {
      throw FileSyncError.io(path: url.path, reason: "cannot read (\(error.localizedDescription))")
    }
    defer { try? handle.close() }
    var whole = SHA256()
    var chunks = Data()
    var size = 0
    while true {
      let piece: Data
      do {
        piece = try handle.read(upToCount: chunkSize) ?? Data()
      } catch {
        throw FileSyncError.io(path: url.path, reason: "cannot read (\(error.localizedDescription))")
      }
      if piece.isEmpty { break }
      whole.update(data: piece)
      let bytes = [UInt8](piece)
      let hash = BlobHash(of: bytes)
      try store.write(bytes, as: hash)
      chunks.append(contentsOf: hash.bytes)
      size += bytes.count
    }
    guard let after = FileStat.of(url.path), after == before, size == before.size else { return nil }
    let hash = BlobHash(bytes: Array(whole.finalize()))!
    return Stored(record: ContentRecord(hash: hash.hex, size: size, chunks: chunks), status: after)
  }

  /// The SHA-256 (hex) of the file at `url`, read in chunks; `nil` when unreadable.
  static func hash(fileAt url: URL) -> String? {
    guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
    defer { try? handle.close() }
    var whole = SHA256()
    while true {
      let piece: Data
      do {
        piece = try handle.read(upToCount: chunkSize) ?? Data()
      } catch {
        return nil
      }
      if piece.isEmpty { break }
      whole.update(data: piece)
    }
    return BlobHash(bytes: Array(whole.finalize()))!.hex
  }

  /// Whether every chunk of `content` is in `store`.
  static func isComplete(_ content: ContentRecord, in store: some BlobStore) throws -> Bool {
    try content.chunkHashes.allSatisfy { try store.contains($0) }
  }

  /// Writes `content` to a new file at `temporary`, verifying every chunk and
  /// the whole; on any mismatch the file is removed and an error thrown (a
  /// corrupt chunk is also removed from the store, so it is fetched again).
  static func assemble(_ content: ContentRecord, from store: FileBlobStore, to temporary: URL) throws {
    guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
      throw FileSyncError.io(path: temporary.path, reason: "cannot create a temporary file")
    }
    do {
      let handle = try FileHandle(forWritingTo: temporary)
      defer { try? handle.close() }
      var whole = SHA256()
      for chunk in content.chunkHashes {
        guard let bytes = try store.read(chunk) else {
          throw FileSyncError.io(path: temporary.path, reason: "chunk \(chunk.hex.prefix(12)) is missing")
        }
        guard BlobHash(of: bytes) == chunk else {
          try? store.remove(chunk)
          throw FileSyncError.io(path: store.url(of: chunk).path, reason: "stored chunk is corrupt; removed, it will be fetched again")
        }
        whole.update(data: bytes)
        try handle.write(contentsOf: bytes)
      }
      try handle.synchronize()
      let hash = BlobHash(bytes: Array(whole.finalize()))!
      guard hash.hex == content.hash, FileStat.of(temporary.path)?.size == content.size else {
        throw FileSyncError.io(path: temporary.path, reason: "assembled content does not match its hash \(content.hash.prefix(12))")
      }
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      if let error = error as? FileSyncError { throw error }
      throw FileSyncError.io(path: temporary.path, reason: "\(error.localizedDescription)")
    }
  }
}
