import Chronicle
import Foundation
import NIOCore
import NIOEmbedded
import ChronicleTestSupport
import Testing

@testable import ChronicleNetwork

@Suite("Frames and messages")
struct WireTests {
  static let samples: [WireMessage] = [
    .hello(version: 1, peer: .generate(), nonce: Array(repeating: 3, count: 32)),
    .challenge(version: 1, peer: .generate(), nonce: Array(repeating: 4, count: 32)),
    .proof(Array(repeating: 5, count: 32), device: nil),
    .proof(Array(repeating: 5, count: 32), device: DeviceProof(publicKey: Array(repeating: 7, count: 32), signature: Array(repeating: 8, count: 64))),
    .welcome(proof: Array(repeating: 6, count: 32), device: nil),
    .welcome(proof: Array(repeating: 6, count: 32), device: DeviceProof(publicKey: Array(repeating: 9, count: 32), signature: Array(repeating: 1, count: 64))),
    .failure("nope: ünïcode"),
    .vectorRequest,
    .vector(VersionVector([.generate(): 12, .generate(): 1 << 40])),
    .vector(VersionVector()),
    .offer(events: 1_000_000, bytes: 1 << 33),
    .offer(events: 3, bytes: 900, oldest: HLCTimestamp(milliseconds: 1_790_000_000_000, counter: 7)),
    .events([Array(repeating: 1, count: 38), Array(repeating: 9, count: 300)]),
    .end,
    .applied(events: 5, duplicates: 2, rowChanges: 99),
    .bye,
    .blobQuery([BlobHash(of: [1]), BlobHash(of: [2])]),
    .blobList([]),
    .blobList([BlobHash(of: [3])]),
    .blobRequest([BlobHash(of: [4])]),
    .blob(BlobHash(of: [5, 6]), [5, 6]),
    .blob(BlobHash(of: []), []),
    .blobsStored(count: 3, bytes: 1 << 30),
  ]

  @Test func everyMessageRoundTrips() throws {
    for message in Self.samples {
      #expect(try WireMessage(decoding: message.encoded()) == message)
    }
  }

  /// A frame of tiny events costs a receiver far more than its bytes (an
  /// array each, a refusal each): counts are checked before anything is
  /// decoded, and an event shorter than any event is refused.
  @Test func anEventsMessageIsCountedBeforeItIsDecoded() throws {
    let tooMany = WireMessage.events(Array(repeating: Array(repeating: 1, count: 38), count: WireMessage.maxEventsPerMessage + 1))
    #expect(throws: WireReader.Malformed.self) { try WireMessage(decoding: tooMany.encoded()) }
    do {
      _ = try WireMessage(decoding: WireMessage.events(Array(repeating: [], count: 1_000_000)).encoded())
      Issue.record("a million empty events decoded")
    } catch {
      #expect("\(error)".contains("claims 1000000 events, over the limit of 4096"), "\(error)")
    }
    do {
      _ = try WireMessage(decoding: WireMessage.events([Array(repeating: 1, count: 38), [1, 2, 3], Array(repeating: 1, count: 200)]).encoded())
      Issue.record("a 3-byte event decoded")
    } catch {
      #expect("\(error)".contains("event 2 of its 3 is 3 bytes, shorter than any event (38)"), "\(error)")
    }
    let most = WireMessage.events(Array(repeating: Array(repeating: 1, count: 38), count: WireMessage.maxEventsPerMessage))
    #expect(try WireMessage(decoding: most.encoded()) == most)
  }

  @Test(arguments: [1, 2, 3])
  func randomAndMutatedBytesNeverCrashTheDecoders(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    var decoded = 0
    for round in 0..<5_000 {
      var bytes: [UInt8]
      if round % 2 == 0 {
        bytes = (0..<Int.random(in: 0...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
      } else {
        bytes = Self.samples[Int.random(in: 0..<Self.samples.count, using: &random)].encoded()
        for _ in 0..<Int.random(in: 1...4, using: &random) where !bytes.isEmpty {
          switch Int.random(in: 0..<3, using: &random) {
          case 0: bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
          case 1: bytes.removeLast(Int.random(in: 1...bytes.count, using: &random))
          default: bytes.insert(UInt8.random(in: 0...255, using: &random), at: Int.random(in: 0...bytes.count, using: &random))
          }
        }
      }
      if (try? WireMessage(decoding: bytes)) != nil { decoded += 1 }
    }
    // Mutations that keep a message well-formed decode; the rest throw. Neither traps.
    print("seed \(seed): \(decoded) of 5000 random or mutated messages decoded")
  }

  @Test(arguments: [7, 8])
  func theFrameDecoderSplitsStreamsAndRefusesOversizedFrames(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let channel = EmbeddedChannel()
    let limit = FrameLimit(1_000)
    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(FrameDecoder(limit: limit, peer: "test")))
    // Valid frames, fed in random pieces, come out whole and in order.
    let payloads = (0..<50).map { _ in (0..<Int.random(in: 1...999, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) } }
    var stream: [UInt8] = []
    for payload in payloads {
      var framed = ByteBuffer.frame(payload)
      stream += framed.readBytes(length: framed.readableBytes)!
    }
    var offset = 0
    while offset < stream.count {
      let size = min(stream.count - offset, Int.random(in: 1...700, using: &random))
      try channel.writeInbound(ByteBuffer(bytes: stream[offset..<offset + size]))
      offset += size
    }
    for payload in payloads {
      var frame = try #require(try channel.readInbound(as: ByteBuffer.self), "seed \(seed)")
      #expect(frame.readBytes(length: frame.readableBytes) == payload, "seed \(seed)")
    }
    // A header over the limit is refused before its body arrives.
    #expect(throws: NetworkSyncError.self) { try channel.writeInbound(ByteBuffer(bytes: [0, 0, 0x03, 0xE9])) }
    _ = try? channel.finish()
  }

  @Test(arguments: [11, 12])
  func randomBytesFedToTheFrameDecoderNeverCrashIt(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    for _ in 0..<300 {
      let channel = EmbeddedChannel()
      try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(FrameDecoder(limit: FrameLimit(4096), peer: "fuzz")))
      for _ in 0..<Int.random(in: 1...8, using: &random) {
        let chunk = (0..<Int.random(in: 0...200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        do { try channel.writeInbound(ByteBuffer(bytes: chunk)) } catch { break }
      }
      while let frame = try? channel.readInbound(as: ByteBuffer.self) {
        #expect(frame.readableBytes <= 4096, "seed \(seed)")
      }
      _ = try? channel.finish()
    }
  }

  @Test func keyFilesAreOwnerOnlyAndNeverOverwritten() throws {
    let directory = try TemporaryDirectory()
    let url = URL(fileURLWithPath: directory.path("group.key"))
    let key = SyncKey.generate()
    try key.write(to: url)
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    #expect(throws: NetworkSyncError.self) { try SyncKey.generate().write(to: url) }
    #expect(try SyncKey(contentsOf: url).key == key.key)

    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
    let error = #expect(throws: NetworkSyncError.self) { try SyncKey(contentsOf: url) }
    #expect("\(String(describing: error))".contains("chmod 600"))

    let bad = URL(fileURLWithPath: directory.path("bad.key"))
    _ = FileManager.default.createFile(atPath: bad.path, contents: Data("hunter2\n".utf8), attributes: [.posixPermissions: 0o600])
    #expect(throws: NetworkSyncError.self) { try SyncKey(contentsOf: bad) }
    #expect(throws: NetworkSyncError.self) { try SyncKey(contentsOf: URL(fileURLWithPath: directory.path("missing.key"))) }
  }
}
