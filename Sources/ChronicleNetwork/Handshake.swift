import Chronicle
import Crypto
import Foundation

/// Mutual authentication before any data moves: each side proves it holds
/// the group key with an HMAC-SHA256 over both peer ids and both fresh
/// nonces, and that it is the device its peer id names with an Ed25519
/// signature of the same transcript by its device key; then every later frame
/// is sealed with keys derived from the group key, the transcript and the
/// X25519 secret of the two fresh ephemeral keys the nonces are (forward
/// secrecy: recorded traffic stays closed to a later holder of the key file). A server whose database
/// is in a group admits its active members only. Nothing is read from or
/// written to a database before the handshake succeeds.
///
/// ```
/// client                                   server
/// hello(version, client id, client nonce) →
///                                          ← challenge(version, server id, server nonce)
/// proof(HMAC(key, "client" ‖ transcript), device key, signature) →
///                                          ← welcome(HMAC(key, "server" ‖ transcript), device key, signature)  [sealed]
/// ```
enum Handshake {
  /// What both proofs sign, the agreed version included (so that no one
  /// between the two can talk them into an older one).
  private static func transcript(version: UInt8, client: PeerID, clientNonce: [UInt8], server: PeerID, serverNonce: [UInt8]) -> [UInt8] {
    WireMessage.magic + [version] + client.bytes + clientNonce + server.bytes + serverNonce
  }

  /// The versions this side speaks.
  private static let versions = WireMessage.oldestProtocolVersion...WireMessage.protocolVersion

  private static func proof(_ role: String, _ transcript: [UInt8], key: SymmetricKey) -> [UInt8] {
    Array(HMAC<SHA256>.authenticationCode(for: Array("chronicle-sync v1 \(role) proof".utf8) + transcript, using: key))
  }

  private static func isValid(_ mac: [UInt8], _ role: String, _ transcript: [UInt8], key: SymmetricKey) -> Bool {
    HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Array("chronicle-sync v1 \(role) proof".utf8) + transcript, using: key)
  }

  /// The secret of this side's ephemeral key and the other side's, whose
  /// public halves are the hello's and the challenge's nonces; nil when the
  /// other side's is not a usable X25519 key (a low-order point).
  private static func ephemeralSecret(_ own: Curve25519.KeyAgreement.PrivateKey, _ other: [UInt8]) -> [UInt8]? {
    guard let key = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: other),
          let secret = try? own.sharedSecretFromKeyAgreement(with: key)
    else { return nil }
    let bytes = secret.withUnsafeBytes { Array($0) }
    // A low-order point gives the all-zero secret whatever this side's key.
    return bytes.contains { $0 != 0 } ? bytes : nil
  }

  /// Throws ``NetworkSyncError/keyFileNeeded(_:)`` for a database in no
  /// group without a key file: only a group tells its peers apart.
  static func requireKeyOrGroup(_ database: ChronicleDatabase, configuration: NetworkSyncConfiguration) throws {
    if configuration.key.isGroupMembersOnly, try database.group == nil { throw NetworkSyncError.keyFileNeeded(database.path) }
  }

  /// ``requireKeyOrGroup(_:configuration:)`` on a server's connection: the
  /// client is told before the connection ends. Checked at each hello and
  /// each request, as the database may leave its group while serving.
  static func requireKeyOrGroup(
    _ database: ChronicleDatabase, configuration: NetworkSyncConfiguration, telling connection: inout FramedConnection
  ) async throws {
    do {
      try requireKeyOrGroup(database, configuration: configuration)
    } catch {
      await connection.sendFailureQuietly("this server's database is in no group, and it has no key file: it syncs with no one")
      throw error
    }
  }

  /// Authenticates a client connection; returns the server's peer id. A
  /// client whose database is in a group goes on only with a server that is
  /// one of its active members (or, before this device is admitted, the
  /// admin that invited it): a revoked device serving the group's data gets
  /// nothing from the devices that still point at it.
  static func client(
    _ connection: inout FramedConnection, database: ChronicleDatabase, configuration: NetworkSyncConfiguration
  ) async throws -> PeerID {
    try requireKeyOrGroup(database, configuration: configuration)
    let local = database.peerID
    let device = database.deviceKey
    let ephemeral = Curve25519.KeyAgreement.PrivateKey()
    let clientNonce = Array(ephemeral.publicKey.rawRepresentation)
    try await connection.send(.hello(version: WireMessage.protocolVersion, peer: local, nonce: clientNonce))
    let answer = try await connection.receive("handshake challenge", within: configuration.handshakeTimeout)
    guard case .challenge(let version, let server, let serverNonce) = answer else {
      throw connection.unexpected(answer, waitingFor: "the handshake challenge")
    }
    guard versions.contains(version) else {
      throw connection.violation("protocol version \(version); this peer speaks versions \(versions.lowerBound) to \(versions.upperBound): upgrade the older side")
    }
    connection.protocolVersion = version
    guard server != local else {
      throw NetworkSyncError.refusedByPeer(
        peer: connection.peerName,
        message: "it has this database's own peer id \(local): one database is a file copy of the other. Start one of them from `chronicle clone` instead")
    }
    connection.peerName = "peer \(server.shortDescription) at \(connection.peerName)"
    let transcript = transcript(version: version, client: local, clientNonce: clientNonce, server: server, serverNonce: serverNonce)
    let deviceProof = device.map { DeviceProof(role: "client", transcript: transcript, key: $0) }
    guard let secret = ephemeralSecret(ephemeral, serverNonce) else {
      throw NetworkSyncError.authenticationFailed(peer: connection.peerName, reason: "the server's ephemeral key is not a usable X25519 key")
    }
    try await connection.send(.proof(proof("client", transcript, key: configuration.key.key), device: deviceProof))
    connection.cipher = SessionCipher(groupKey: configuration.key.key, ephemeralSecret: secret, transcript: transcript, role: .client)
    let welcome: WireMessage
    do {
      welcome = try await connection.receive("handshake welcome", within: configuration.handshakeTimeout)
    } catch NetworkSyncError.protocolViolation {
      throw NetworkSyncError.authenticationFailed(peer: connection.peerName, reason: "the server's answer is not sealed with this group's key")
    }
    guard case .welcome(let mac, let serverDevice) = welcome else { throw connection.unexpected(welcome, waitingFor: "the handshake welcome") }
    guard isValid(mac, "server", transcript, key: configuration.key.key) else {
      throw NetworkSyncError.authenticationFailed(peer: connection.peerName, reason: "the server did not prove it holds the group's key")
    }
    if let serverDevice {
      guard serverDevice.isValid(role: "server", transcript: transcript),
            !server.isKeyDerived || PeerID(publicKey: serverDevice.publicKey) == server
      else {
        throw NetworkSyncError.authenticationFailed(peer: connection.peerName, reason: "the server did not prove it is device \(server)")
      }
    } else if server.isKeyDerived {
      throw NetworkSyncError.authenticationFailed(peer: connection.peerName, reason: "the server did not prove it is device \(server) (its key file is missing)")
    }
    if let refusal = try database.serverRefusal(server, publicKey: serverDevice?.publicKey) {
      throw NetworkSyncError.authenticationFailed(peer: connection.peerName, reason: "this database's group does not sync with it: \(refusal)")
    }
    connection.limit.set(configuration.maxFrameSize)
    return server
  }

  /// Authenticates a server connection; returns the client's peer id. A
  /// client that fails is told why before the connection closes.
  /// A device the server does not know as a member yet may only push (its
  /// join event, which the merge checks); what it may fetch is checked per
  /// request. Returns the client's id and the device key it proved.
  /// `spoke` is called once the client's hello has arrived (a client that
  /// has said nothing yet is the first to be dropped when connections
  /// flood in).
  static func server(
    _ connection: inout FramedConnection, database: ChronicleDatabase, configuration: NetworkSyncConfiguration,
    spoke: () -> Void = {}
  ) async throws -> (peer: PeerID, key: [UInt8]?) {
    let local = database.peerID
    let hello = try await connection.receive("handshake hello", within: min(configuration.helloTimeout, configuration.handshakeTimeout))
    guard case .hello(let version, let client, let clientNonce) = hello else {
      throw connection.unexpected(hello, waitingFor: "the handshake hello")
    }
    spoke()
    // Without a key file, only a group tells members from anyone (the
    // database may have left its group since the server started).
    try await requireKeyOrGroup(database, configuration: configuration, telling: &connection)
    // A newer client is answered in this server's version, which it may speak.
    let agreed = min(version, WireMessage.protocolVersion)
    guard versions.contains(agreed) else {
      await connection.sendFailureQuietly(
        "this server speaks sync protocol versions \(versions.lowerBound) to \(versions.upperBound), not \(version): upgrade the older side")
      throw connection.violation("protocol version \(version)")
    }
    connection.protocolVersion = agreed
    connection.peerName = "peer \(client.shortDescription) at \(connection.peerName)"
    guard client != local else {
      await connection.sendFailureQuietly("you have this server's own peer id \(local): one database is a file copy of the other. Start one of them from `chronicle clone` instead")
      throw NetworkSyncError.authenticationFailed(peer: connection.peerName, reason: "it claims this server's own peer id")
    }
    let ephemeral = Curve25519.KeyAgreement.PrivateKey()
    let serverNonce = Array(ephemeral.publicKey.rawRepresentation)
    guard let secret = ephemeralSecret(ephemeral, clientNonce) else {
      await connection.sendFailureQuietly("your hello's nonce is not a usable X25519 public key (this server speaks sync protocol \(agreed))")
      throw NetworkSyncError.authenticationFailed(peer: connection.peerName, reason: "its ephemeral key is not a usable X25519 key")
    }
    try await connection.send(.challenge(version: agreed, peer: local, nonce: serverNonce))
    let answer = try await connection.receive("handshake proof", within: configuration.handshakeTimeout)
    guard case .proof(let mac, let clientDevice) = answer else { throw connection.unexpected(answer, waitingFor: "the handshake proof") }
    let transcript = transcript(version: agreed, client: client, clientNonce: clientNonce, server: local, serverNonce: serverNonce)
    guard isValid(mac, "client", transcript, key: configuration.key.key) else {
      await connection.sendFailureQuietly(
        configuration.key.isGroupMembersOnly
          ? "authentication failed: this server takes its group's members without a key file; sync without --key"
          : "authentication failed: you did not prove you hold this group's key. Check that both peers use the same key file (or, in a group, that neither uses one)")
      throw NetworkSyncError.authenticationFailed(peer: connection.peerName, reason: "it did not prove it holds the group's key")
    }
    if let clientDevice, !clientDevice.isValid(role: "client", transcript: transcript) {
      await connection.sendFailureQuietly("authentication failed: your device signature does not verify")
      throw NetworkSyncError.authenticationFailed(peer: connection.peerName, reason: "its device signature does not verify")
    }
    let device = clientDevice?.publicKey
    // A short read on a reader connection, made here rather than queued
    // behind the long merges `offload` runs for other sessions.
    if let refusal = try database.deviceRefusal(client, publicKey: device, requiringMembership: false) {
      await connection.sendFailureQuietly("device \(client) is not admitted: \(refusal)")
      throw NetworkSyncError.authenticationFailed(peer: connection.peerName, reason: "device \(client) is not admitted: \(refusal)")
    }
    if let allowed = configuration.allowedPeers, !allowed.contains(client) {
      await connection.sendFailureQuietly("peer \(client) is not allowed on this server (ask its operator to add it with --allow-peer)")
      throw NetworkSyncError.authenticationFailed(peer: connection.peerName, reason: "it is not in the list of allowed peers")
    }
    connection.cipher = SessionCipher(groupKey: configuration.key.key, ephemeralSecret: secret, transcript: transcript, role: .server)
    connection.limit.set(configuration.maxFrameSize)
    let serverProof = database.deviceKey.map { DeviceProof(role: "server", transcript: transcript, key: $0) }
    try await connection.send(.welcome(proof: proof("server", transcript, key: configuration.key.key), device: serverProof))
    return (client, device)
  }
}
