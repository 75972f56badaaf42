import NIOCore
import NIOPosix

/// A TCP connection set up for the sync protocol: frame decoding with a
/// per-connection limit, and bounded inbound buffering (reading pauses when
/// the session falls behind, so TCP pushes back on the sender): at most
/// ``bufferedFrames`` decoded frames wait, plus the one being decoded, so a
/// session holds at most that many times the frame limit in memory.
struct SyncChannel: Sendable {
  let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
  let limit: FrameLimit
  let address: String
  /// Decoded frames waiting for the session, at most.
  static let bufferedFrames = 4

  /// Installs the handlers; runs on the channel's event loop. `address`
  /// names the other side (the remote address when not given).
  static func wrap(_ channel: any Channel, address: String? = nil) -> EventLoopFuture<SyncChannel> {
    channel.eventLoop.makeCompletedFuture {
      let address = address ?? channel.remoteAddress.map(Self.describe) ?? "unknown address"
      let limit = FrameLimit(NetworkSyncConfiguration.handshakeFrameLimit)
      try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(FrameDecoder(limit: limit, peer: address)))
      let wrapped = try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
        wrappingChannelSynchronously: channel,
        configuration: .init(backPressureStrategy: .init(lowWatermark: 2, highWatermark: bufferedFrames)))
      return SyncChannel(channel: wrapped, limit: limit, address: address)
    }
  }

  static func describe(_ address: SocketAddress) -> String {
    switch address {
    case .v6: "[\(address.ipAddress ?? "?")]:\(address.port ?? 0)"
    default: "\(address.ipAddress ?? "?"):\(address.port ?? 0)"
    }
  }

  /// Runs `body` with a ``FramedConnection`` over this channel, then closes it.
  /// `writeTimeout` bounds how long the peer may take to read each frame sent.
  func run<Result: Sendable>(writeTimeout: Duration, _ body: (inout FramedConnection) async throws -> Result) async throws -> Result {
    try await channel.executeThenClose { inbound, outbound in
      var connection = FramedConnection(channel: channel.channel, peerName: address, limit: limit, inbound: inbound, outbound: outbound)
      connection.writeTimeout = writeTimeout
      return try await body(&connection)
    }
  }
}
