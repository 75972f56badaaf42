import CZlib

extension Zlib {
  /// Operations beyond this many bytes are compressed in pieces of this size.
  static let pieceSize = 256 * 1024

  /// Compresses an event body (`prefix`, its table section and operation
  /// count, followed by `operations`) into one zlib stream, deterministically.
  ///
  /// A body whose operations fit in one ``pieceSize`` is one ordinary zlib
  /// stream of the whole body. A larger one is cut at fixed offsets: the
  /// prefix, then each ``pieceSize`` of operations, each deflated with a fresh
  /// dictionary and ended by a full flush, the last one by the final block;
  /// one zlib header in front and the Adler-32 of the whole body behind. Any
  /// inflater reads it as one stream, and the pieces can be deflated while
  /// the body is still being written (``BodyCompressor``). This function
  /// gives the same bytes as ``BodyCompressor`` for the same body.
  static func compressBody(prefix: [UInt8], operations: [UInt8], level: Int32) -> [UInt8] {
    guard operations.count > pieceSize else { return compress(prefix + operations, level: level) }
    let deflater = RawDeflater(level: level)
    var pieces = [deflater.compress(prefix[...], isLast: false)]
    var start = 0
    while start < operations.count {
      let end = min(start + pieceSize, operations.count)
      pieces.append(deflater.compress(operations[start..<end], isLast: end == operations.count))
      start = end
    }
    return assemble(pieces, level: level)
  }

  /// One piece of a body: its raw deflate bytes, its size and its Adler-32.
  struct DeflatedPiece: Sendable {
    var bytes: [UInt8]
    var rawCount: Int
    var adler: UInt32
  }

  /// The zlib stream of deflated pieces: the header zlib writes for `level`,
  /// the pieces, and the Adler-32 of everything they hold.
  static func assemble(_ pieces: [DeflatedPiece], level: Int32) -> [UInt8] {
    var output = streamHeader(level: level)
    output.reserveCapacity(pieces.reduce(6) { $0 + $1.bytes.count })
    var adler = UInt(CZlib.adler32(0, nil, 0))
    for piece in pieces {
      output += piece.bytes
      adler = UInt(adler32_combine(uLong(adler), uLong(piece.adler), off_t(piece.rawCount)))
    }
    for shift in stride(from: 24, through: 0, by: -8) { output.append(UInt8(truncatingIfNeeded: adler >> UInt(shift))) }
    return output
  }

  /// The two header bytes zlib's own deflate writes at `level` (RFC 1950:
  /// deflate with a 32 KiB window, the level class, the check bits).
  static func streamHeader(level: Int32) -> [UInt8] {
    let level = level == Z_DEFAULT_COMPRESSION ? 6 : level
    let levelClass: UInt16 = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3
    var header: UInt16 = 0x7800 | levelClass << 6
    header += 31 - header % 31
    return [UInt8(header >> 8), UInt8(header & 0xFF)]
  }

  /// Deflates pieces without zlib framing, each with a fresh dictionary.
  /// Not thread-safe: use one from one thread at a time.
  final class RawDeflater: @unchecked Sendable {
    private var stream = z_stream()
    private let isReady: Bool

    init(level: Int32) {
      isReady = deflateInit2_(
        &stream, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
      // Only a bad level or no memory fail; both are programming errors here.
      precondition(isReady, "zlib deflateInit2 failed")
    }

    deinit { deflateEnd(&stream) }

    /// Deflates `bytes` as one piece: ended by a full flush, or by the final
    /// block when `isLast`.
    func compress(_ bytes: ArraySlice<UInt8>, isLast: Bool) -> DeflatedPiece {
      precondition(deflateReset(&stream) == Z_OK, "zlib deflateReset failed")
      // The bound covers the data; a flush adds at most a few bytes more.
      var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 16)
      var produced = 0
      let flush = isLast ? Z_FINISH : Z_FULL_FLUSH
      bytes.withUnsafeBufferPointer { input in
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
        stream.avail_in = uInt(input.count)
        defer { stream.next_in = nil; stream.next_out = nil }
        while true {
          let status = output.withUnsafeMutableBufferPointer { out in
            stream.next_out = out.baseAddress! + produced
            stream.avail_out = uInt(out.count - produced)
            let status = deflate(&stream, flush)
            produced = out.count - Int(stream.avail_out)
            return status
          }
          precondition(status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR, "zlib deflate failed with \(status)")
          // Done when the final block is out, or when a flush left room to spare.
          if status == Z_STREAM_END || (!isLast && stream.avail_in == 0 && stream.avail_out > 0) { break }
          output += [UInt8](repeating: 0, count: max(output.count / 2, 64))
        }
      }
      output.removeSubrange(produced...)
      let adler = bytes.withUnsafeBufferPointer { CZlib.adler32(1, $0.baseAddress, uInt($0.count)) }
      return DeflatedPiece(bytes: output, rawCount: bytes.count, adler: UInt32(adler))
    }
  }
}
