import ChronicleNetwork
import Crypto
import Foundation
import HTTPTypes
import Logging

/// A token a relay's operator gives to someone who may start groups on the
/// relay (``RelayServerConfiguration/openGroups`` off, the default): the
/// founder's device brings it on the connection that starts the group
/// (``ChronicleNetwork/RelayConfiguration/creationToken``). The store keeps
/// only its SHA-256; each token starts as many groups as it was made for.
public struct GroupCreationToken: Sendable, Hashable, CustomStringConvertible {
  /// The token as the founder's device gives it: `chronicle-group-token-` and 64 hex digits.
  public let text: String

  static let prefix = "chronicle-group-token-"
  /// The header of the WebSocket upgrade request that carries it.
  static let header = HTTPField.Name(RelayConfiguration.creationTokenHeader)!

  /// A new random token (256 bits).
  public static func generate() -> GroupCreationToken {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    return GroupCreationToken(text: prefix + bytes.map { String(format: "%02x", $0) }.joined())
  }

  /// A token as given (surrounding spaces ignored).
  public init(text: String) { self.text = text.trimmingCharacters(in: .whitespacesAndNewlines) }

  /// What the store keeps.
  var hash: [UInt8] { Array(SHA256.hash(data: Data(text.utf8))) }

  public var description: String { text }
}

extension RelayServer {
  /// Creates a group creation token good for `groups` groups in the store
  /// `storage` names (the relay need not be running; every relay process
  /// sharing a PostgreSQL store honours it), and returns it. Give it to
  /// the person whose device will found the group.
  public static func createGroupCreationToken(
    in storage: RelayServerConfiguration.Storage, groups: Int = 1, logger: Logger = Logger(label: "chronicle.relay")
  ) async throws -> GroupCreationToken {
    precondition(groups > 0, "a token starts at least one group")
    let store = try await storage.open(logger: logger)
    let token = GroupCreationToken.generate()
    do {
      try await store.addCreationToken(hash: token.hash, groups: groups)
    } catch {
      try? await store.close()
      throw error
    }
    try await store.close()
    return token
  }
}
