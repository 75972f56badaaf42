import Chronicle
import Crypto
import Foundation

/// Mutual authentication before any data moves: each side proves it holds
/// the group key with an HMAC-SHA256 over both peer ids and both fresh
/// nonces, then every later frame is sealed with keys derived from the same
/// transcript. Nothing is read from or written to a database before the
/// handshake succeeds.
///
/// ```
/// client                                   server
/// hello(version, client id, client nonce) →
///                                          ← challenge(version, server id, server nonce)
/// proof(HMAC(key, "client" ‖ transcript)) →
///                                          ← welcome(HMAC(key, "server" ‖ transcript))  [sealed]
/// ```
enum Handshake {
  private static func transcript(client: PeerID, clientNonce: [UInt8], server: PeerID, serverNonce: [UInt8]) -> [UInt8] {
    WireMessage.magic + [WireMessage.protocolVersion] + client.bytes + clientNonce + server.bytes + serverNonce
  }

  private static func proof(_ role: String, _ transcript: [UInt8], key: SymmetricKey) -> [UInt8] {
    Array(HMAC<SHA256>.authenticationCode(for: Array("chronicle-sync v1 \(role) proof".utf8) + transcript, using: key))
  }

  private static func isValid(_ mac: [UInt8], _ role: String, _ transcript: [UInt8], key: SymmetricKey) -> Bool {
    HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Array("chronicle-sync v1 \(role) proof".utf8) + transcript, using: key)
  }

  private static func nonce() -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<WireMessage.nonceSize).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
  }

  /// Authenticates a client connection; returns the server's peer id.
  static func client(_ connection: inout FramedConnection, local: PeerID, configuration: NetworkSyncConfiguration) async throws -> PeerID {
    let clientNonce = nonce()
    try await connection.send(.hello(version: WireMessage.protocolVersion, peer: local, nonce: clientNonce))
    let answer = try await connection.receive("handshake challenge", within: configuration.handshakeTimeout)
    guard case .challenge(let version, let server, let serverNonce) = answer else {
      throw connection.unexpected(answer, waitingFor: "the handshake challenge")
    }
    guard version == WireMessage.protocolVersion else {
      throw connection.violation("protocol version \(version); this peer speaks version \(WireMessage.protocolVersion): upgrade the older side")
    }
    guard server != local else {
      throw NetworkSyncError.refusedByPeer(
        peer: connection.peerName,
        message: "it has this database's own peer id \(local): one database is a file copy of the other. Start one of them from `chronicle clone` instead")
    }
    connection.peerName = "peer \(server.shortDescription) at \(connection.peerName)"
    let transcript = transcript(client: local, clientNonce: clientNonce, server: server, serverNonce: serverNonce)
    try await connection.send(.proof(proof("client", transcript, key: configuration.key.key)))
    connection.cipher = SessionCipher(groupKey: configuration.key.key, transcript: transcript, role: .client)
    let welcome: WireMessage
    do {
      welcome = try await connection.receive("handshake welcome", within: configuration.handshakeTimeout)
    } catch NetworkSyncError.protocolViolation {
      throw NetworkSyncError.authenticationFailed(peer: connection.peerName, reason: "the server's answer is not sealed with this group's key")
    }
    guard case .welcome(let mac) = welcome else { throw connection.unexpected(welcome, waitingFor: "the handshake welcome") }
    guard isValid(mac, "server", transcript, key: configuration.key.key) else {
      throw NetworkSyncError.authenticationFailed(peer: connection.peerName, reason: "the server did not prove it holds the group's key")
    }
    connection.limit.set(configuration.maxFrameSize)
    return server
  }

  /// Authenticates a server connection; returns the client's peer id. A
  /// client that fails is told why before the connection closes.
  static func server(_ connection: inout FramedConnection, local: PeerID, configuration: NetworkSyncConfiguration) async throws -> PeerID {
    let hello = try await connection.receive("handshake hello", within: configuration.handshakeTimeout)
    guard case .hello(let version, let client, let clientNonce) = hello else {
      throw connection.unexpected(hello, waitingFor: "the handshake hello")
    }
    guard version == WireMessage.protocolVersion else {
      await connection.sendFailureQuietly("this server speaks sync protocol version \(WireMessage.protocolVersion), not \(version): upgrade the older side")
      throw connection.violation("protocol version \(version)")
    }
    connection.peerName = "peer \(client.shortDescription) at \(connection.peerName)"
    guard client != local else {
      await connection.sendFailureQuietly("you have this server's own peer id \(local): one database is a file copy of the other. Start one of them from `chronicle clone` instead")
      throw NetworkSyncError.authenticationFailed(peer: connection.peerName, reason: "it claims this server's own peer id")
    }
    let serverNonce = nonce()
    try await connection.send(.challenge(version: WireMessage.protocolVersion, peer: local, nonce: serverNonce))
    let answer = try await connection.receive("handshake proof", within: configuration.handshakeTimeout)
    guard case .proof(let mac) = answer else { throw connection.unexpected(answer, waitingFor: "the handshake proof") }
    let transcript = transcript(client: client, clientNonce: clientNonce, server: local, serverNonce: serverNonce)
    guard isValid(mac, "client", transcript, key: configuration.key.key) else {
      await connection.sendFailureQuietly("authentication failed: you did not prove you hold this group's key. Check that both peers use the same key file")
      throw NetworkSyncError.authenticationFailed(peer: connection.peerName, reason: "it did not prove it holds the group's key")
    }
    if let allowed = configuration.allowedPeers, !allowed.contains(client) {
      await connection.sendFailureQuietly("peer \(client) is not allowed on this server (ask its operator to add it with --allow-peer)")
      throw NetworkSyncError.authenticationFailed(peer: connection.peerName, reason: "it is not in the list of allowed peers")
    }
    connection.cipher = SessionCipher(groupKey: configuration.key.key, transcript: transcript, role: .server)
    connection.limit.set(configuration.maxFrameSize)
    try await connection.send(.welcome(proof: proof("server", transcript, key: configuration.key.key)))
    return client
  }
}
