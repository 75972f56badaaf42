import Crypto

/// The name of a membership event in its group's history: SHA-256 of every
/// byte its signature covers (header, body and the signer's key), so the
/// same event has the same hash whether or not its signature is randomized,
/// and a different content (a rewritten event under the same sequence) has
/// another.
///
/// Each membership event names the hashes of the membership events its
/// writer had applied (``MembershipChange/builtOn(_:)``): the group's
/// history is a small graph of these links, the same on every device.
public struct MembershipHash: Hashable, Comparable, Sendable, CustomStringConvertible {
  public let bytes: [UInt8]

  package init?(bytes: some Collection<UInt8>) {
    guard bytes.count == 32 else { return nil }
    self.bytes = Array(bytes)
  }

  /// The hash of a signed (version 2 or 3) serialized event.
  init(signed: [UInt8]) {
    let covered = signed[..<(signed.count - 4 - EventSignature.signatureSize)]
    bytes = Array(SHA256.hash(data: covered))
  }

  public static func < (lhs: MembershipHash, rhs: MembershipHash) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

  /// The first 8 hex digits.
  public var description: String { String(bytes.hexadecimal.prefix(8)) }
}
