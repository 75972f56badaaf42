import Foundation
import NIOCore
import Synchronization

/// One side of a sync connection: sends and receives ``WireMessage``s, one
/// per frame, sealed once the handshake set up a ``SessionCipher``. Every
/// receive has a deadline; a peer that misses it is disconnected.
///
/// Used by one task at a time (the protocol is half-duplex).
struct FramedConnection {
  let channel: any Channel
  /// How the other side is named in logs and errors; the handshake adds its peer id.
  var peerName: String
  let limit: FrameLimit
  var cipher: SessionCipher?
  /// Whether a sealed frame of the peer was opened: no unsealed frame is
  /// taken from then on, not even a refusal.
  private var openedSealedFrame = false
  private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
  private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
  private(set) var bytesSent = 0
  private(set) var bytesReceived = 0
  /// The protocol version the handshake agreed on.
  var protocolVersion = WireMessage.protocolVersion
  /// How long a peer may take to read a frame sent to it (set from the
  /// configuration's frame timeout once known).
  var writeTimeout: Duration = .seconds(60)

  init(
    channel: any Channel, peerName: String, limit: FrameLimit,
    inbound: NIOAsyncChannelInboundStream<ByteBuffer>, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
  ) {
    self.channel = channel
    self.peerName = peerName
    self.limit = limit
    self.inbound = inbound.makeAsyncIterator()
    self.outbound = outbound
  }

  private enum Envelope: UInt8 { case plain = 0, sealed = 1 }

  /// Sends a message; a peer that does not take it within `timeout` (it
  /// stopped reading) is disconnected.
  mutating func send(_ message: WireMessage, within timeout: Duration? = nil) async throws {
    let plain = message.encoded()
    var payload: [UInt8]
    if var cipher {
      payload = [Envelope.sealed.rawValue]
      payload += try cipher.seal(plain)
      self.cipher = cipher
    } else {
      payload = [Envelope.plain.rawValue] + plain
    }
    bytesSent += payload.count + 4
    let timeout = timeout ?? writeTimeout
    let deadline = Deadline(closing: channel, after: timeout)
    defer { deadline.cancel() }
    do {
      try await outbound.write(.frame(payload))
    } catch {
      if deadline.expired {
        throw NetworkSyncError.timedOut(peer: peerName, waitingFor: "read of what this side sent (it stopped reading)", seconds: timeout.seconds)
      }
      // The peer may have closed the connection after saying why: its
      // reason is more use than "I/O on closed channel".
      deadline.cancel()
      if let refusal = await refusalBeforeClose() { throw refusal }
      throw error
    }
  }

  /// The failure message the peer sent before it closed the connection, if any.
  private mutating func refusalBeforeClose() async -> NetworkSyncError? {
    do {
      _ = try await receive("its reason for closing", within: .seconds(1))
    } catch let error as NetworkSyncError {
      if case .refusedByPeer = error { return error }
    } catch {}
    return nil
  }

  /// Sends a failure message if the connection still allows it.
  mutating func sendFailureQuietly(_ message: String) async {
    try? await send(.failure(message))
  }

  /// The next message. A failure message from the peer is thrown as
  /// ``NetworkSyncError/refusedByPeer(peer:message:)``.
  mutating func receive(_ waitingFor: String, within timeout: Duration) async throws -> WireMessage {
    let deadline = Deadline(closing: channel, after: timeout)
    defer { deadline.cancel() }
    let timedOut = NetworkSyncError.timedOut(peer: peerName, waitingFor: waitingFor, seconds: timeout.seconds)
    let frame: ByteBuffer?
    do {
      frame = try await inbound.next()
    } catch let error as NetworkSyncError {
      throw deadline.expired ? timedOut : error
    } catch {
      throw deadline.expired ? timedOut : NetworkSyncError.connectionClosed(peer: peerName, waitingFor: "\(waitingFor) (\(error))")
    }
    guard var frame else {
      throw deadline.expired ? timedOut : NetworkSyncError.connectionClosed(peer: peerName, waitingFor: waitingFor)
    }
    bytesReceived += frame.readableBytes + 4
    let bytes = frame.readBytes(length: frame.readableBytes) ?? []
    let plain: [UInt8]
    switch bytes.first.flatMap(Envelope.init(rawValue:)) {
    case .plain:
      plain = Array(bytes.dropFirst())
      // A refusal may come unsealed only until the peer's first sealed
      // frame (its side of the handshake failed before it had the keys):
      // after that, anyone on the path could forge one.
      if cipher != nil, plain.first != WireMessage.failureTag || openedSealedFrame {
        throw violation("an unsealed frame after the handshake")
      }
    case .sealed:
      guard var cipher else { throw violation("a sealed frame before the handshake") }
      guard let opened = cipher.open(Array(bytes.dropFirst())) else {
        throw violation("a frame failed authentication (altered in transit, replayed, or not sealed with this session's key)")
      }
      self.cipher = cipher
      openedSealedFrame = true
      plain = opened
    case nil:
      throw violation("a frame with unknown envelope \(bytes.first ?? 0)")
    }
    let message: WireMessage
    do {
      message = try WireMessage(decoding: plain)
    } catch {
      throw violation("a malformed message while waiting for \(waitingFor): \(error)")
    }
    if case .failure(let text) = message { throw NetworkSyncError.refusedByPeer(peer: peerName, message: text) }
    return message
  }

  func violation(_ reason: String) -> NetworkSyncError {
    .protocolViolation(peer: peerName, reason: "sent \(reason)")
  }

  /// The error for a message the protocol does not expect now.
  func unexpected(_ message: WireMessage, waitingFor: String) -> NetworkSyncError {
    violation("'\(message.name)' while \(waitingFor) was expected")
  }
}

extension Duration {
  var nanoseconds: Int64 {
    components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
  }

  package var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Closes a channel when `timeout` passes before ``cancel()``: what bounds
/// each send and receive. ``expired`` tells the resulting error apart.
private final class Deadline: Sendable {
  private let fired = Atomic<Bool>(false)
  private let timer = Mutex<Scheduled<Void>?>(nil)

  init(closing channel: any Channel, after timeout: Duration) {
    let scheduled = channel.eventLoop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) { [self] in
      fired.store(true, ordering: .relaxed)
      channel.close(promise: nil)
    }
    timer.withLock { $0 = scheduled }
  }

  var expired: Bool { fired.load(ordering: .relaxed) }

  func cancel() { timer.withLock { $0?.cancel() } }
}
