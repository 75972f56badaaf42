import Chronicle
@testable import ChronicleNetwork
import Foundation
import Synchronization
import Testing

@testable import FileSync

/// Serves `folder` (index and chunks) on a loopback port while `body` runs.
func serving<T>(
  _ folder: SyncedFolder, configuration: NetworkSyncConfiguration, _ body: (TCPTransport) async throws -> T
) async throws -> T {
  let server = try await SyncServer.bind(folder.database, host: "127.0.0.1", port: 0, configuration: configuration, blobs: folder.objects)
  // Started on the sessions' threads: the shared pool may be busy with other tests.
  let running = Task(executorPreference: SessionExecutor.shared) { try await server.run() }
  defer { server.shutdown(gracePeriod: .zero) }
  let result = try await body(TCPTransport(host: "127.0.0.1", port: server.port, configuration: configuration))
  server.shutdown(gracePeriod: .seconds(1))
  try await running.value
  return result
}

@Suite("filesync: peers over TCP")
struct NetworkFolderSyncTests {
  /// A generous handshake deadline: under the full suite on 2 cores a
  /// handshake here has stalled past the default 10 s now and then (a known,
  /// not yet explained stall; these tests are about file sync, not timeouts,
  /// which HostilePeerTests covers).
  let configuration: NetworkSyncConfiguration = {
    var configuration = NetworkSyncConfiguration(key: .generate())
    configuration.handshakeTimeout = .seconds(60)
    return configuration
  }()

  @Test func threePeersConvergeThroughAServingPeer() async throws {
    let fixture = try FolderFixture()
    let hub = try fixture.peer("hub"), laptop = try fixture.peer("laptop"), phone = try fixture.peer("phone")
    try write("on the hub", at: "hub.txt", in: hub)
    try write(randomBytes(3 * ContentChunks.chunkSize + 17, seed: 5), at: "videos/clip.bin", in: laptop)
    try write("shared draft", at: "draft.txt", in: laptop)
    try await serving(hub, configuration: configuration) { transport in
      let first = try await laptop.sync(with: transport)
      #expect(first.sentChunks.stored == 5)  // 4 chunks of the clip, 1 of the draft
      #expect(first.receivedChunks.stored == 0)  // the hub has not scanned yet
      try hub.refresh()
      _ = try await phone.sync(with: transport)
      _ = try await laptop.sync(with: transport)
      #expect(try tree(phone.root) == tree(hub.root))
      #expect(try tree(laptop.root) == tree(hub.root))
      #expect(try tree(hub.root).count == 3)

      // Concurrent edits of draft.txt on laptop and phone, a rename on the phone, a deletion on the hub.
      tick()
      try write("laptop's draft", at: "draft.txt", in: laptop)
      try laptop.scan()
      tick()
      try write("phone's draft", at: "draft.txt", in: phone)
      try move("videos/clip.bin", to: "clip.bin", in: phone)
      try remove("hub.txt", in: hub)
      try hub.refresh()
      _ = try await laptop.sync(with: transport)
      let phones = try await phone.sync(with: transport)
      #expect(phones.sentChunks.stored == 1)  // the new draft; the rename moved no content
      #expect(phones.conflicts.map(\.losingPeer) == ["laptop"])
      try hub.refresh()
      _ = try await laptop.sync(with: transport)
    }
    let expected = try tree(hub.root)
    #expect(Set(expected.keys).count == 3)
    #expect(expected["clip.bin"] != nil && expected["hub.txt"] == nil)
    #expect(try read("draft.txt", in: hub) == "phone's draft")
    let copy = try #require(expected.keys.first { $0.hasPrefix("draft (conflict from laptop at ") })
    #expect(try read(copy, in: hub) == "laptop's draft")
    #expect(try tree(laptop.root) == expected)
    #expect(try tree(phone.root) == expected)
  }

  @Test func anInterruptedTransferResumesAndNeverReplacesAGoodFile() async throws {
    let fixture = try FolderFixture()
    let server = try fixture.peer("server"), client = try fixture.peer("client")
    let chunks = 6
    let original = randomBytes(chunks * ContentChunks.chunkSize, seed: 7)
    try write(original, at: "disk.img", in: server)
    try server.scan()
    var slow = configuration
    slow.maxSendRate = 3 * ContentChunks.chunkSize  // about 2 s for the file
    try await serving(server, configuration: slow) { transport in
      _ = try await client.sync(with: transport)
      #expect(try tree(client.root) == tree(server.root))

      // A new version of the file; the client's transfer is cut after two chunks.
      tick()
      let edited = randomBytes(chunks * ContentChunks.chunkSize, seed: 8)
      try write(edited, at: "disk.img", in: server)
      try server.scan()
      // Cut from the progress report itself: a loop polling for it could
      // be late on a busy machine, after the last chunk.
      let received = Mutex(0)
      let running = Mutex<Task<FileSyncReport, any Error>?>(nil)
      let transfer = Task {
        try await client.sync(with: transport) { progress in
          received.withLock { $0 = progress.stored }
          if progress.stored >= 2 { running.withLock { $0?.cancel() } }
        }
      }
      running.withLock { $0 = transfer }
      while received.withLock({ $0 }) < 2 { try await Task.sleep(for: .milliseconds(20)) }
      transfer.cancel()
      let outcome = await transfer.result
      if case .success = outcome { Issue.record("the transfer finished before it was cut") }

      // The good file is untouched; the chunks received are kept.
      #expect(try [UInt8](Data(contentsOf: client.root.appendingPathComponent("disk.img"))) == original)
      let contents = try await server.database.read { db in try ContentRecord.fetchAll(db) }
      let newChunks = try #require(contents.first { $0.hash == BlobHash(of: edited).hex }).chunkHashes
      let kept = try newChunks.filter { try client.objects.contains($0) }.count
      #expect(kept >= 2 && kept < chunks)
      #expect(try FileManager.default.contentsOfDirectory(atPath: client.temporaryFolder.path).isEmpty)

      // Resuming fetches only the rest.
      let resumed = try await client.sync(with: transport)
      #expect(resumed.receivedChunks.stored == chunks - kept)
      #expect(resumed.materialized.written == ["disk.img"])
      #expect(try [UInt8](Data(contentsOf: client.root.appendingPathComponent("disk.img"))) == edited)
    }
  }

  @Test func aPeerWithTheWrongKeyGetsNothing() async throws {
    let fixture = try FolderFixture()
    let server = try fixture.peer("server"), intruder = try fixture.peer("intruder")
    try write("secret", at: "secret.txt", in: server)
    try server.scan()
    try await serving(server, configuration: configuration) { transport in
      let wrong = TCPTransport(host: transport.host, port: transport.port, configuration: NetworkSyncConfiguration(key: .generate()))
      await #expect(throws: NetworkSyncError.self) { try await intruder.sync(with: wrong) }
      let hashes = try server.chunksOfCurrentContents()
      await #expect(throws: NetworkSyncError.self) { try await wrong.fetchBlobs(hashes, into: intruder.objects, as: intruder.database) }
    }
    #expect(try tree(intruder.root).isEmpty)
    #expect(try intruder.objects.allHashes().isEmpty)
  }
}
