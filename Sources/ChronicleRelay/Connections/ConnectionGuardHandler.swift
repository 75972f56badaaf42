import Logging
import NIOCore

/// First in each connection's pipeline: asks the relay's ``ConnectionGuard``
/// for a slot when the connection opens, closes it when it is no admitted
/// device session within the request timeout, and gives the slot back when
/// it closes. Bytes pass through untouched.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  private let connections: ConnectionGuard
  private let logger: Logger
  private var started = false
  /// Set once admitted: the slot to give back.
  private var countedFrom: String?
  private var deadline: Scheduled<Void>?

  init(connections: ConnectionGuard, logger: Logger) {
    self.connections = connections
    self.logger = logger
  }

  func handlerAdded(context: ChannelHandlerContext) {
    if context.channel.isActive { start(context) }
  }

  func channelActive(context: ChannelHandlerContext) {
    start(context)
    context.fireChannelActive()
  }

  private func start(_ context: ChannelHandlerContext) {
    guard !started else { return }
    started = true
    let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
    if let refusal = connections.admit(context.channel, address: address) {
      logger.debug("connection refused", metadata: ["address": "\(address)", "reason": "\(refusal)"])
      context.close(promise: nil)
      return
    }
    countedFrom = address
    deadline = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(connections.limits.requestTimeout)) { [self] in
      deadline = nil
      guard connections.isWaiting(context.channel) else { return }
      connections.timedOut()
      logger.debug("connection closed: not an admitted device session in time", metadata: ["address": "\(address)"])
      context.close(promise: nil)
    }
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    // The relay is stopping: a connection that is no device session has nothing to finish.
    if event is ChannelShouldQuiesceEvent, countedFrom != nil, connections.isWaiting(context.channel) {
      context.close(promise: nil)
      return
    }
    context.fireUserInboundEventTriggered(event)
  }

  func channelInactive(context: ChannelHandlerContext) {
    deadline?.cancel()
    deadline = nil
    if let address = countedFrom {
      countedFrom = nil
      connections.closed(context.channel, address: address)
    }
    context.fireChannelInactive()
  }
}
