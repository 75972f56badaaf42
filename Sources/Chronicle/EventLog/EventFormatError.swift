/// Why a byte sequence is not a valid Chronicle event.
///
/// Every decoding failure is one of these: the decoder never crashes and never
/// returns a partial event.
public struct EventFormatError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What is wrong.
  public enum Problem: Equatable, Sendable {
    case badMagic
    case unsupportedVersion(found: UInt8, supported: UInt8)
    case unknownFlags(UInt8)
    case truncated
    case trailingBytes(Int)
    case checksumMismatch(stored: UInt32, computed: UInt32)
    case varintOverflow
    case nonCanonicalVarint
    case invalidUTF8
    case unknownValueTag(UInt8)
    case unknownOperation(UInt8)
    case unknownSchemaOperation(UInt8)
    case notANumber
    case tableIndexOutOfRange(Int)
    case columnIndexOutOfRange(Int)
    case duplicateColumn(Int)
    case invalidTable(String)
    case valueOutOfRange(String)
    case decompressionFailed(String)
    case sizeMismatch(declared: Int, actual: Int)
    case tooLarge(Int)
    case nanNotEncodable
  }

  /// Which part of the event the offset refers to.
  public enum Region: String, Equatable, Sendable {
    /// Offsets count from the first byte of the serialized event.
    case envelope
    /// Offsets count from the first byte of the decompressed body.
    case body
  }

  public var problem: Problem
  public var region: Region
  public var offset: Int

  public init(problem: Problem, region: Region, offset: Int) {
    self.problem = problem
    self.region = region
    self.offset = offset
  }

  public var description: String {
    let place = "at \(region.rawValue) byte \(offset)"
    switch problem {
    case .badMagic: return "not a Chronicle event (bad magic) \(place)"
    case .unsupportedVersion(let found, let supported):
      return "event format version \(found) is newer than this build supports (\(supported)); upgrade Chronicle to read it"
    case .unknownFlags(let flags): return "unknown flag bits 0x\(String(flags, radix: 16)) \(place)"
    case .truncated: return "event is truncated \(place)"
    case .trailingBytes(let count): return "\(count) unexpected trailing bytes \(place)"
    case .checksumMismatch(let stored, let computed):
      return "checksum mismatch: stored \(String(stored, radix: 16)), computed \(String(computed, radix: 16)); the event is corrupt"
    case .varintOverflow: return "varint overflows 64 bits \(place)"
    case .nonCanonicalVarint: return "non-canonical varint \(place)"
    case .invalidUTF8: return "invalid UTF-8 text \(place)"
    case .unknownValueTag(let tag): return "unknown value tag \(tag) \(place)"
    case .unknownOperation(let kind): return "unknown operation kind \(kind) \(place)"
    case .unknownSchemaOperation(let kind): return "unknown schema operation kind \(kind) \(place)"
    case .notANumber: return "REAL value is NaN \(place); SQLite cannot store NaN"
    case .tableIndexOutOfRange(let index): return "table reference \(index) out of range \(place)"
    case .columnIndexOutOfRange(let index): return "column reference \(index) out of range \(place)"
    case .duplicateColumn(let index): return "column \(index) listed twice \(place)"
    case .invalidTable(let reason): return "invalid table descriptor: \(reason) \(place)"
    case .valueOutOfRange(let value): return "value \(value) out of range \(place)"
    case .decompressionFailed(let reason): return "zlib body does not decompress: \(reason)"
    case .sizeMismatch(let declared, let actual):
      return "body is \(actual) bytes but the header declares \(declared)"
    case .tooLarge(let size): return "declared body size \(size) exceeds the limit"
    case .nanNotEncodable: return "cannot encode a NaN REAL: SQLite stores NaN as NULL"
    }
  }
}
