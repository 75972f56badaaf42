import CZlib

/// zlib compression of event bodies.
enum Zlib {
  /// Compresses `bytes` at `level` (0 to 9).
  static func compress(_ bytes: [UInt8], level: Int32) -> [UInt8] {
    var capacity = compressBound(uLong(bytes.count))
    var output = [UInt8](repeating: 0, count: Int(capacity))
    let status = output.withUnsafeMutableBufferPointer { out in
      bytes.withUnsafeBufferPointer { input in
        compress2(out.baseAddress, &capacity, input.baseAddress, uLong(input.count), level)
      }
    }
    // compress2 only fails for a bad level or too small a buffer, both excluded here.
    precondition(status == Z_OK, "zlib compress2 failed with \(status)")
    output.removeSubrange(Int(capacity)...)
    return output
  }

  /// A deflate stream kept between events: `compress2` would allocate (and,
  /// above the allocator's mmap threshold, fault in) about 256 KiB per call,
  /// a large part of the cost of a small transaction.
  ///
  /// Not thread-safe: one per capture session, used on the writer's queue.
  final class Deflater {
    private var stream = z_stream()
    private var isReady = false
    let level: Int32

    init(level: Int32) {
      self.level = level
      isReady = deflateInit_(&stream, level, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
    }

    deinit { if isReady { deflateEnd(&stream) } }

    /// Compresses `bytes` into one complete zlib stream, as `compress2` would.
    func compress(_ bytes: [UInt8]) -> [UInt8] {
      guard isReady, deflateReset(&stream) == Z_OK else { return Zlib.compress(bytes, level: level) }
      let capacity = Int(deflateBound(&stream, uLong(bytes.count)))
      var output = [UInt8](repeating: 0, count: capacity)
      let status = output.withUnsafeMutableBufferPointer { out in
        bytes.withUnsafeBufferPointer { input in
          stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
          stream.avail_in = uInt(input.count)
          stream.next_out = out.baseAddress
          stream.avail_out = uInt(out.count)
          defer { stream.next_in = nil; stream.next_out = nil }
          return deflate(&stream, Z_FINISH)
        }
      }
      // With deflateBound's capacity one Z_FINISH call always completes.
      precondition(status == Z_STREAM_END, "zlib deflate failed with \(status)")
      output.removeSubrange(Int(stream.total_out)...)
      return output
    }
  }

  /// Decompresses `bytes`, which must expand to exactly `expectedSize` bytes.
  ///
  /// The declared size is a claim of whoever wrote the event, checked before
  /// its signature is: a size zlib cannot reach from this input is refused
  /// before anything is allocated, and the output grows as it is produced
  /// (from at most 16 times the input), so memory follows what the bytes
  /// really expand to, not what they say.
  static func decompress(_ bytes: ArraySlice<UInt8>, expectedSize: Int) throws(EventFormatError) -> [UInt8] {
    func failure(_ reason: String) -> EventFormatError {
      EventFormatError(problem: .decompressionFailed(reason), region: .envelope, offset: 0)
    }
    // Deflate expands at most about 1032 to 1.
    guard expectedSize <= bytes.count * 1032 + 64 else {
      throw failure("it declares \(expectedSize) bytes from \(bytes.count) compressed, more than zlib expands to")
    }
    var stream = z_stream()
    guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { throw failure("zlib inflateInit failed") }
    defer { inflateEnd(&stream) }
    var output = [UInt8](repeating: 0, count: max(1, min(expectedSize, max(1 << 16, bytes.count * 16))))
    var status = Z_OK
    bytes.withUnsafeBufferPointer { input in
      stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
      stream.avail_in = uInt(input.count)
      defer { stream.next_in = nil }
      while true {
        let produced = Int(stream.total_out)
        status = output.withUnsafeMutableBufferPointer { out in
          stream.next_out = out.baseAddress! + produced
          stream.avail_out = uInt(out.count - produced)
          defer { stream.next_out = nil }
          return inflate(&stream, Z_NO_FLUSH)
        }
        guard status == Z_OK || status == Z_BUF_ERROR else { return }
        if Int(stream.total_out) == output.count {
          // Full: grown up to the declared size, and no further.
          guard output.count < expectedSize else {
            status = Z_BUF_ERROR
            return
          }
          output.append(contentsOf: repeatElement(0, count: min(output.count, expectedSize - output.count)))
        } else if stream.avail_in == 0 {
          status = Z_BUF_ERROR  // the input ended inside the stream
          return
        }
      }
    }
    switch status {
    case Z_STREAM_END:
      // Nothing may follow the stream: bytes there would travel and be
      // stored, signed, under a body that does not account for them.
      guard stream.avail_in == 0 else { throw failure("\(stream.avail_in) bytes follow the end of the compressed body") }
      guard Int(stream.total_out) == expectedSize else {
        throw EventFormatError(problem: .sizeMismatch(declared: expectedSize, actual: Int(stream.total_out)), region: .envelope, offset: 0)
      }
      output.removeSubrange(Int(stream.total_out)...)
      return output
    case Z_BUF_ERROR:
      throw failure("body expands beyond the declared \(expectedSize) bytes, or is truncated")
    case Z_DATA_ERROR:
      throw failure("corrupt zlib stream")
    default:
      throw failure("zlib status \(status)")
    }
  }

  /// CRC-32 (IEEE 802.3, zlib's `crc32`) of `bytes`, or of the bytes whose
  /// CRC is `previous` followed by `bytes`.
  static func crc32(_ bytes: ArraySlice<UInt8>, continuing previous: UInt32 = 0) -> UInt32 {
    bytes.withUnsafeBufferPointer { buffer in
      UInt32(CZlib.crc32(uLong(previous), buffer.baseAddress, uInt(buffer.count)))
    }
  }

  /// The CRC-32 of two byte runs one after the other, from each one's CRC
  /// and the second's length (zlib's `crc32_combine`).
  static func crc32(combining first: UInt32, _ second: UInt32, secondLength: Int) -> UInt32 {
    UInt32(CZlib.crc32_combine(uLong(first), uLong(second), .init(secondLength)))
  }
}
