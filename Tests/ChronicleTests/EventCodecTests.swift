import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

@Suite("Event format: round trips and rejection of bad input")
struct EventCodecTests {
  static let edgeValues: [SQLiteValue] = [
    .null, .integer(0), .integer(1), .integer(-1), .integer(.max), .integer(.min),
    .real(0), .real(-0.0), .real(.infinity), .real(-.infinity), .real(.leastNonzeroMagnitude), .real(.greatestFiniteMagnitude), .real(3.25),
    .text(""), .text("héllo 🌍"), .text("nul\u{0}inside"), .blob(Data()), .blob(Data([0, 255, 1])),
  ]

  func event(_ values: [SQLiteValue]) -> ChangeEvent {
    ChangeEvent(
      origin: PeerID(UUID(uuidString: "4F2C1A9E-0000-4000-8000-000000000001")!), sequence: 42,
      timestamp: HLCTimestamp(milliseconds: 1_790_000_000_000, counter: 7), schemaEpoch: 3,
      tables: [TableDescriptor(name: "t", columns: ["id", "v"], primaryKey: [0])],
      operations: [
        .schema(.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v ANY) STRICT")),
        .schema(.rebuildTable(name: "t", createSQL: "CREATE TABLE t (id INTEGER PRIMARY KEY, v ANY, w TEXT) STRICT",
                              copiedColumns: [CopiedColumn(newName: "v", oldName: "v")], dependents: ["CREATE INDEX i ON t(v)"])),
      ] + values.enumerated().flatMap { index, value -> [EventOperation] in
        [
          .insert(table: 0, values: [.integer(Int64(index)), value]),
          .update(table: 0, key: [.integer(Int64(index))], changes: [ColumnValue(column: 1, value: value)]),
          .delete(table: 0, key: [value]),
        ]
      })
  }

  @Test func everyValueTypeAndEdgeValueRoundTrips() throws {
    let original = event(Self.edgeValues)
    let encoded = try EventCodec.encode(original)
    let decoded = try EventCodec.decode(encoded.bytes)
    #expect(decoded == original)
    // -0.0 keeps its sign bit.
    guard case .insert(_, let values) = decoded.operations[2 + 3 * 7] else { Issue.record("expected insert"); return }
    #expect(values[1] == .real(-0.0))
    #expect(values[1] != .real(0.0))
  }

  @Test func encodingIsDeterministic() throws {
    let original = event(Self.edgeValues)
    #expect(try EventCodec.encode(original).bytes == EventCodec.encode(original).bytes)
    let body = try EventCodec.encodeBody(tables: original.tables, operations: original.operations)
    #expect(try EventCodec.encodeBody(tables: original.tables, operations: original.operations) == body)
  }

  @Test func multiMegabyteValuesRoundTrip() throws {
    var generator = SeededGenerator(seed: 7)
    let blob = Data((0..<3_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
    let text = String(repeating: "chronicle ", count: 400_000)
    let original = event([.blob(blob), .text(text)])
    let encoded = try EventCodec.encode(original)
    #expect(try EventCodec.decode(encoded.bytes) == original)
    #expect(encoded.bytes.count < encoded.rawBodySize)
  }

  @Test func nanIsRefused() {
    #expect(throws: EventFormatError.self) { try EventCodec.encode(event([.real(.nan)])) }
  }

  @Test func everyTruncationIsRejected() throws {
    let bytes = try EventCodec.encode(event(Self.edgeValues)).bytes
    for length in 0..<bytes.count {
      #expect(throws: EventFormatError.self) { try EventCodec.decode(Array(bytes.prefix(length))) }
    }
  }

  @Test func everySingleBitFlipIsRejected() throws {
    let bytes = try EventCodec.encode(event([.text("abc"), .integer(5)])).bytes
    for index in bytes.indices {
      for bit in 0..<8 {
        var corrupt = bytes
        corrupt[index] ^= 1 << bit
        #expect(throws: EventFormatError.self) { try EventCodec.decode(corrupt) }
      }
    }
  }

  @Test func unknownVersionIsRejectedWithATypedError() throws {
    var bytes = try EventCodec.encode(event([.null])).bytes
    bytes[4] = 9
    do {
      _ = try EventCodec.decode(bytes)
      Issue.record("decoded an unknown version")
    } catch {
      #expect(error.problem == .unsupportedVersion(found: 9, supported: EventCodec.currentVersion))
      #expect(error.description.contains("upgrade"))
    }
  }

  @Test func badMagicAndTrailingBytesAreRejected() throws {
    var bytes = try EventCodec.encode(event([.null])).bytes
    bytes[0] = UInt8(ascii: "X")
    #expect(throws: EventFormatError(problem: .badMagic, region: .envelope, offset: 0)) { try EventCodec.decode(bytes) }
  }

  @Test func corruptBodiesWithValidChecksumsAreRejected() throws {
    // Forge well-checksummed events around malformed bodies: the decoder must
    // still refuse them with typed errors, never crash.
    var generator = SeededGenerator(seed: 11)
    let good = try EventCodec.encodeBody(tables: event([.integer(1)]).tables, operations: event([.integer(1)]).operations)
    for trial in 0..<2_000 {
      var body = good
      for _ in 0...(trial % 4) {
        let index = Int.random(in: 0..<body.count, using: &generator)
        body[index] = UInt8.random(in: 0...255, using: &generator)
      }
      if trial % 7 == 0 { body.removeLast(Int.random(in: 1...5, using: &generator)) }
      let forged = Self.envelope(body: body)
      do {
        _ = try EventCodec.decode(forged)
      } catch {
        continue  // a typed EventFormatError: what we want
      }
    }
  }

  @Test func decompressionBombIsRefused() throws {
    // A declared raw size of 2 GiB is refused before allocating.
    let forged = Self.envelope(body: [0, 0], declaredRawSize: 1 << 31)
    #expect(throws: EventFormatError.self) { try EventCodec.decode(forged) }
  }

  /// A well-formed envelope around `body`, compressed, with a valid checksum.
  static func envelope(body: [UInt8], declaredRawSize: Int? = nil) -> [UInt8] {
    var writer = BinaryWriter()
    writer.writeBytes(Array("CHRE".utf8))
    writer.writeByte(1)
    writer.writeByte(1)
    writer.writeBytes([UInt8](repeating: 1, count: 16))
    writer.writeUInt64BigEndian(1 << 16)
    writer.writeVarint(UInt64(1))
    writer.writeVarint(UInt64(0))
    let compressed = Zlib.compress(body, level: 6)
    writer.writeVarint(declaredRawSize ?? body.count)
    writer.writeVarint(compressed.count)
    writer.writeBytes(compressed)
    writer.writeUInt32BigEndian(Zlib.crc32(writer.bytes[...]))
    return writer.bytes
  }
}

