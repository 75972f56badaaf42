import NIOCore
import Synchronization

/// The largest frame a connection accepts now: small until the peer is
/// authenticated, then the configured limit.
final class FrameLimit: Sendable {
  private let bytes: Atomic<Int>

  init(_ bytes: Int) { self.bytes = Atomic(bytes) }

  var current: Int { bytes.load(ordering: .acquiring) }

  func set(_ value: Int) { bytes.store(value, ordering: .releasing) }
}

/// Splits the byte stream into frames: a 4-byte big-endian length, then that
/// many bytes. A length of zero or over the limit is refused before any of
/// the frame is buffered.
struct FrameDecoder: ByteToMessageDecoder {
  typealias InboundOut = ByteBuffer

  let limit: FrameLimit
  let peer: String

  mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
    guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) else { return .needMoreData }
    guard length > 0 else { throw NetworkSyncError.protocolViolation(peer: peer, reason: "empty frame") }
    let limit = limit.current
    guard Int(length) <= limit else { throw NetworkSyncError.frameTooLarge(peer: peer, size: Int(length), limit: limit) }
    guard buffer.readableBytes >= 4 + Int(length) else { return .needMoreData }
    buffer.moveReaderIndex(forwardBy: 4)
    context.fireChannelRead(Self.wrapInboundOut(buffer.readSlice(length: Int(length))!))
    return .continue
  }

  mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
    while try decode(context: context, buffer: &buffer) == .continue {}
    if buffer.readableBytes > 0 {
      throw NetworkSyncError.protocolViolation(peer: peer, reason: "the connection ended in the middle of a frame (\(buffer.readableBytes) bytes of it received)")
    }
    return .needMoreData
  }
}

extension ByteBuffer {
  /// Frames `payload`: its length, then its bytes.
  static func frame(_ payload: some Collection<UInt8>) -> ByteBuffer {
    var buffer = ByteBuffer()
    buffer.reserveCapacity(4 + payload.count)
    buffer.writeInteger(UInt32(payload.count))
    buffer.writeBytes(payload)
    return buffer
  }
}
