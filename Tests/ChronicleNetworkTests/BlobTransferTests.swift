import Chronicle
import Foundation
import Logging
import Testing

import ChronicleTestSupport

@testable import ChronicleNetwork

/// A store that reads back wrong bytes for every blob: damaged, or lying.
struct LyingBlobStore: BlobStore {
  let real: FileBlobStore
  func contains(_ hash: BlobHash) throws -> Bool { try real.contains(hash) }
  func read(_ hash: BlobHash) throws -> [UInt8]? { try real.read(hash).map { $0 + [0] } }
  func write(_ bytes: [UInt8], as hash: BlobHash) throws { try real.write(bytes, as: hash) }
}

@Suite("Blobs beside the events")
struct BlobTransferTests {
  @Test func aFileBlobStoreVerifiesWhatItStores() throws {
    let directory = try TemporaryDirectory()
    let store = try FileBlobStore(folder: directory.url.appendingPathComponent("blobs"))
    let bytes = Array("content".utf8)
    let hash = BlobHash(of: bytes)
    #expect(BlobHash(hex: hash.hex) == hash && BlobHash(hex: hash.hex.uppercased()) == hash)
    #expect(BlobHash(hex: "xyz") == nil && BlobHash(bytes: [1, 2]) == nil)
    #expect(throws: BlobError.hashMismatch(expected: hash, actual: BlobHash(of: bytes + [1]))) { try store.write(bytes + [1], as: hash) }
    #expect(try !store.contains(hash))
    try store.write(bytes, as: hash)
    try store.write(bytes, as: hash)  // again: nothing happens
    #expect(try store.read(hash) == bytes)
    #expect(try store.allHashes() == [hash])
    #expect(try store.missing([hash, BlobHash(of: [9]), hash]) == [BlobHash(of: [9])])
    let other = try FileBlobStore(folder: directory.url.appendingPathComponent("other"))
    let copied = try store.copy([hash, BlobHash(of: [9])], to: other)
    #expect(copied.stored == 1 && copied.bytes == bytes.count && copied.unavailable == [BlobHash(of: [9])])
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.appendingPathComponent("blobs/.partial").path).isEmpty)
  }

  @Test func blobsGoBothWaysAndOnlyTheMissingOnesMove() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server"), client = try makePeer(directory, "client")
    let serverBlobs = try FileBlobStore(folder: directory.url.appendingPathComponent("server-blobs"))
    let clientBlobs = try FileBlobStore(folder: directory.url.appendingPathComponent("client-blobs"))
    let onServer = (0..<5).map { Array("server \($0)".utf8) }, onClient = (0..<3).map { Array("client \($0)".utf8) }
    for bytes in onServer { try serverBlobs.write(bytes, as: BlobHash(of: bytes)) }
    for bytes in onClient { try clientBlobs.write(bytes, as: BlobHash(of: bytes)) }
    try clientBlobs.write(onServer[0], as: BlobHash(of: onServer[0]))
    let configuration = NetworkSyncConfiguration(key: .generate())
    let server_ = try await SyncServer.bind(server, host: "127.0.0.1", port: 0, configuration: configuration, blobs: serverBlobs)
    let running = Task(executorPreference: SessionExecutor.shared) { try await server_.run() }
    let transport = TCPTransport(host: "127.0.0.1", port: server_.port, configuration: configuration)
    let absent = BlobHash(of: Array("nowhere".utf8))

    let fetched = try await transport.fetchBlobs(onServer.map { BlobHash(of: $0) } + [absent], into: clientBlobs, as: client)
    #expect(fetched.stored == 4 && fetched.unavailable == [absent])
    for bytes in onServer { #expect(try clientBlobs.read(BlobHash(of: bytes)) == bytes) }
    let sent = try await transport.sendBlobs(onClient.map { BlobHash(of: $0) } + [BlobHash(of: onServer[1]), absent], from: clientBlobs, as: client)
    #expect(sent.stored == 3 && sent.unavailable == [absent])
    for bytes in onClient { #expect(try serverBlobs.read(BlobHash(of: bytes)) == bytes) }
    // Nothing left to move: no connection at all for a fetch.
    #expect(try await transport.fetchBlobs(onServer.map { BlobHash(of: $0) }, into: clientBlobs, as: client) == BlobTransferReport())
    #expect(try await transport.sendBlobs(onClient.map { BlobHash(of: $0) }, from: clientBlobs, as: client).stored == 0)
    server_.shutdown(gracePeriod: .seconds(1))
    try await running.value
  }

  /// Frames stay small (they bound what a session buffers); blobs larger
  /// than a frame travel in parts, both ways, beside small ones, and a blob
  /// over the receiver's limit is refused before anything is stored.
  @Test func blobsLargerThanAFrameTravelInParts() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server"), client = try makePeer(directory, "client")
    let serverBlobs = try FileBlobStore(folder: directory.url.appendingPathComponent("server-blobs"))
    let clientBlobs = try FileBlobStore(folder: directory.url.appendingPathComponent("client-blobs"))
    var random = SeededGenerator(seed: 7)
    func blob(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) } }
    // 64 KiB frames: 200 KB takes 4 parts, 64 KiB exactly takes 2, 10 bytes one frame.
    let onServer = [blob(200_000), blob(64 << 10), blob(10)], onClient = [blob(150_000), blob(3)]
    for bytes in onServer { try serverBlobs.write(bytes, as: BlobHash(of: bytes)) }
    for bytes in onClient { try clientBlobs.write(bytes, as: BlobHash(of: bytes)) }
    var configuration = NetworkSyncConfiguration(key: .generate())
    configuration.maxFrameSize = 64 << 10
    configuration.maxBlobSize = 180_000
    try await withServer(server, configuration: configuration, blobs: serverBlobs) { running in
      var clientConfiguration = configuration
      clientConfiguration.maxBlobSize = 1 << 20
      let transport = TCPTransport(host: "127.0.0.1", port: running.port, configuration: clientConfiguration)
      let fetched = try await transport.fetchBlobs(onServer.map { BlobHash(of: $0) }, into: clientBlobs, as: client)
      #expect(fetched.stored == 3 && fetched.bytes == 200_000 + (64 << 10) + 10)
      for bytes in onServer { #expect(try clientBlobs.read(BlobHash(of: bytes)) == bytes) }
      let sent = try await transport.sendBlobs(onClient.map { BlobHash(of: $0) }, from: clientBlobs, as: client)
      #expect(sent.stored == 2)
      for bytes in onClient { #expect(try serverBlobs.read(BlobHash(of: bytes)) == bytes) }

      // Over the server's 180,000-byte limit: refused by name, not stored.
      let large = blob(190_000)
      try clientBlobs.write(large, as: BlobHash(of: large))
      await #expect {
        _ = try await transport.sendBlobs([BlobHash(of: large)], from: clientBlobs, as: client)
      } throws: { error in
        "\(error)".contains("maxBlobSize")
      }
      #expect(try !serverBlobs.contains(BlobHash(of: large)))
    }
  }

  @Test func forgedBlobsAreRefusedAndNotStored() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server"), client = try makePeer(directory, "client")
    let real = try FileBlobStore(folder: directory.url.appendingPathComponent("server-blobs"))
    let bytes = Array("genuine".utf8)
    try real.write(bytes, as: BlobHash(of: bytes))
    let clientBlobs = try FileBlobStore(folder: directory.url.appendingPathComponent("client-blobs"))
    let configuration = NetworkSyncConfiguration(key: .generate())
    let lying = try await SyncServer.bind(server, host: "127.0.0.1", port: 0, configuration: configuration, blobs: LyingBlobStore(real: real))
    let running = Task(executorPreference: SessionExecutor.shared) { try await lying.run() }
    let transport = TCPTransport(host: "127.0.0.1", port: lying.port, configuration: configuration)
    // A damaged blob is not served: the client learns it is unavailable there.
    let fetched = try await transport.fetchBlobs([BlobHash(of: bytes)], into: clientBlobs, as: client)
    #expect(fetched.stored == 0 && fetched.unavailable == [BlobHash(of: bytes)])
    #expect(try clientBlobs.allHashes().isEmpty)
    // Nor copied from a damaged store.
    #expect(try LyingBlobStore(real: real).copy([BlobHash(of: bytes)], to: clientBlobs).unavailable == [BlobHash(of: bytes)])

    // A client pushing bytes under another hash is cut off; the server stores nothing.
    let liar = LyingBlobStore(real: clientBlobs)
    let other = Array("client's".utf8)
    try clientBlobs.write(other, as: BlobHash(of: other))
    await #expect {
      try await transport.sendBlobs([BlobHash(of: other)], from: liar, as: client)
    } throws: { error in
      "\(error)".contains("corrupted or forged")
    }
    #expect(try !real.contains(BlobHash(of: other)))
    lying.shutdown(gracePeriod: .seconds(1))
    try await running.value
  }

  @Test func aServerWithoutBlobsRefusesThemByName() async throws {
    let directory = try TemporaryDirectory()
    let server = try makePeer(directory, "server"), client = try makePeer(directory, "client")
    let configuration = NetworkSyncConfiguration(key: .generate())
    try await withServer(server, configuration: configuration) { running in
      let transport = TCPTransport(host: "127.0.0.1", port: running.port, configuration: configuration)
      let store = try FileBlobStore(folder: directory.url.appendingPathComponent("blobs"))
      await #expect {
        try await transport.fetchBlobs([BlobHash(of: [1])], into: store, as: client)
      } throws: { error in
        "\(error)".contains("keeps no blobs")
      }
    }
  }
}
