import Crypto
import Foundation

/// Checks an `Authorization: Bearer TOKEN` header against a secret, in time
/// that does not tell how much of it matched.
enum BearerToken {
  static func matches(_ header: String, _ secret: String) -> Bool {
    let prefix = "Bearer "
    guard header.hasPrefix(prefix) else { return false }
    // Comparing digests: equal length, and no early exit on the secret's bytes.
    let given = SHA256.hash(data: Data(header.dropFirst(prefix.count).utf8))
    let wanted = SHA256.hash(data: Data(secret.utf8))
    return zip(given, wanted).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
  }
}
