import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The request context of the relay's WebSocket route: Hummingbird's, plus
/// the connection's channel, so that a session admitted by its hello tells
/// the ``ConnectionGuard`` to keep it.
struct RelayRequestContext: RequestContext, WebSocketRequestContext {
  var coreContext: CoreRequestContextStorage
  let webSocket: WebSocketHandlerReference<Self>
  let channel: any Channel

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    webSocket = .init()
    channel = source.channel
  }
}
