import HummingbirdCore
import Logging
import NIOCore

/// A server child channel (the relay's HTTP and WebSocket one) with a
/// ``ConnectionGuardHandler`` first in every connection's pipeline, before
/// any HTTP parsing: the guard sees every socket, including those that
/// never send a request.
struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
  typealias Value = Base.Value

  let base: Base
  let connections: ConnectionGuard
  let logger: Logger

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    do {
      try channel.pipeline.syncOperations.addHandler(ConnectionGuardHandler(connections: connections, logger: self.logger))
    } catch {
      return channel.eventLoop.makeFailedFuture(error)
    }
    return base.setup(channel: channel, logger: logger)
  }

  func handle(value: Value, logger: Logger) async {
    await base.handle(value: value, logger: logger)
  }
}
