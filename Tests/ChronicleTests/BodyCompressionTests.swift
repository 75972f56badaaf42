import CZlib
import ChronicleTestSupport
import Foundation
import Testing

@testable import Chronicle

/// Event bodies larger than one piece are deflated piece by piece, partly in
/// the background while capture writes them; the result must be one valid
/// zlib stream and the same bytes whichever way it was made.
@Suite("Event body compression")
struct BodyCompressionTests {
  /// Bytes that compress like event bodies do: repeated structure, varying values.
  static func bodyLike(_ count: Int, seed: UInt64) -> [UInt8] {
    var random = SeededGenerator(seed: seed)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count + 32)
    while bytes.count < count {
      bytes += [0x01, 0x00, 0x02] + Array("Item number \(UInt16.random(in: 0...9999, using: &random))".utf8)
      bytes.append(UInt8.random(in: 0...255, using: &random))
    }
    return Array(bytes.prefix(count))
  }

  /// Issue 59, item 4: the declared size is the writer's claim, read
  /// before its signature is checked. A size zlib cannot reach from the
  /// input is refused before anything is allocated; a smaller lie is
  /// refused when the output passes it (the output grows as produced).
  @Test func aDeclaredSizeIsNotTrustedBeforeTheBytesBearItOut() throws {
    let body = Self.bodyLike(300_000, seed: 9)
    let compressed = Zlib.compress(body, level: 6)
    #expect(try Zlib.decompress(compressed[...], expectedSize: body.count) == body)
    // One GiB claimed from a few bytes: refused at once.
    let tiny = Zlib.compress([1, 2, 3], level: 6)
    #expect { try Zlib.decompress(tiny[...], expectedSize: 1 << 30) } throws: { error in
      "\(error)".contains("more than zlib expands to")
    }
    // Claims within zlib's reach that the bytes do not bear out.
    #expect(throws: EventFormatError.self) { try Zlib.decompress(compressed[...], expectedSize: body.count + 1) }
    #expect(throws: EventFormatError.self) { try Zlib.decompress(compressed[...], expectedSize: body.count - 1) }
    #expect(throws: EventFormatError.self) { try Zlib.decompress(compressed.dropLast(20), expectedSize: body.count) }
    // Bytes after the end of the stream (a signed event made larger than
    // its body, to fill what carries it): refused.
    #expect { try Zlib.decompress((compressed + [1, 2, 3])[...], expectedSize: body.count) } throws: { error in
      "\(error)".contains("3 bytes follow the end of the compressed body")
    }
    // Zeros expand about 1000 to 1: taken, growing from 16 times the input.
    let zeros = [UInt8](repeating: 0, count: 5_000_000)
    let packed = Zlib.compress(zeros, level: 9)
    #expect(packed.count * 16 < zeros.count)
    #expect(try Zlib.decompress(packed[...], expectedSize: zeros.count) == zeros)
  }

  @Test func headerIsTheOneZlibWrites() {
    for level in Int32(-1)...9 {
      let reference = Zlib.compress([1, 2, 3], level: level)
      #expect(Zlib.streamHeader(level: level) == Array(reference.prefix(2)), "level \(level)")
    }
  }

  @Test(arguments: [0, 1, 1000, Zlib.pieceSize - 10, Zlib.pieceSize, Zlib.pieceSize + 1, 2 * Zlib.pieceSize, 3 * Zlib.pieceSize + 12345])
  func piecesInflateToTheBody(operationsSize: Int) throws {
    let prefix = Self.bodyLike(40, seed: 1)
    let operations = Self.bodyLike(operationsSize, seed: UInt64(operationsSize))
    for level: Int32 in [1, 6] {
      let compressed = Zlib.compressBody(prefix: prefix, operations: operations, level: level)
      let inflated = try Zlib.decompress(compressed[...], expectedSize: prefix.count + operations.count)
      #expect(inflated == prefix + operations, "level \(level), \(operationsSize) bytes of operations")
      if operationsSize <= Zlib.pieceSize {
        #expect(compressed == Zlib.compress(prefix + operations, level: level), "small bodies stay one plain stream")
      }
    }
  }

  /// Capture hands pieces over whenever it likes; the bytes must not depend on when.
  @Test(arguments: [UInt64(1), 2, 3])
  func backgroundPiecesGiveTheSameBytes(seed: UInt64) async throws {
    try await offThePool { try Self.backgroundPiecesGiveTheSameBytes(seed: seed) }
  }

  static func backgroundPiecesGiveTheSameBytes(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let compressor = BodyCompressor(level: 1)
    for _ in 0..<4 {
      let size = Int.random(in: 0...(4 * Zlib.pieceSize), using: &random)
      let prefix = Self.bodyLike(Int.random(in: 1...300, using: &random), seed: seed)
      let operations = Self.bodyLike(size, seed: seed &+ UInt64(size))
      var written = 0
      while written < operations.count {
        written = min(operations.count, written + Int.random(in: 1...90_000, using: &random))
        let soFar = Array(operations.prefix(written))
        if soFar.count > compressor.nextSubmission { compressor.submitPieces(of: soFar) }
      }
      let pipelined = compressor.compress(prefix: prefix, operations: operations)
      #expect(pipelined == Zlib.compressBody(prefix: prefix, operations: operations, level: 1), "seed \(seed), \(size) bytes")
    }
  }

  @Test func abandonedPiecesDoNotLeakIntoTheNextBody() throws {
    let compressor = BodyCompressor(level: 1)
    let abandoned = Self.bodyLike(3 * Zlib.pieceSize, seed: 9)
    compressor.submitPieces(of: abandoned)
    compressor.discardPending()
    let operations = Self.bodyLike(2 * Zlib.pieceSize + 5, seed: 10)
    let compressed = compressor.compress(prefix: [1, 2], operations: operations)
    #expect(compressed == Zlib.compressBody(prefix: [1, 2], operations: operations, level: 1))
  }

  /// A transaction whose event spans many pieces: the stored event decodes,
  /// re-encodes to the same bytes, and replays to the live digests.
  @Test func largeTransactionIsCapturedIntoOneValidEvent() async throws {
    try await offThePool { try Self.largeTransactionIsCapturedIntoOneValidEvent() }
  }

  static func largeTransactionIsCapturedIntoOneValidEvent() throws {
    let directory = try TemporaryDirectory()
    let database = try Chronicle.open(path: directory.path("large.sqlite"))
    let (_, stored) = try database.writeReturningEvent { db in
      try db.execute(sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, title TEXT NOT NULL, score REAL) STRICT")
      let statement = try db.makeStatement(sql: "INSERT INTO items (title, score) VALUES (?, ?)")
      for index in 0..<40_000 { try statement.execute(arguments: ["Item number \(index)", Double(index) / 3]) }
    }
    let event = try #require(stored)
    #expect(event.rawSize > 4 * Zlib.pieceSize)
    #expect(event.event.rowChangeCount == 40_000)
    let payload = try database.read { db in
      try Data.fetchOne(db, sql: "SELECT payload FROM chronicle_events WHERE id = ?", arguments: [event.id])
    }
    let bytes = Array(try #require(payload))
    #expect(try EventCodec.encode(EventCodec.decode(bytes), compressionLevel: ChronicleConfiguration().compressionLevel).bytes == bytes)
    #expect(try database.replay(into: directory.path("replayed.sqlite")).digests == database.digests())
  }
}
