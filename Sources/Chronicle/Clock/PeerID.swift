import Foundation

/// The identity of one peer (one copy of the database): a random UUID chosen
/// when the database is first opened, stored in `chronicle_peer`.
public struct PeerID: Hashable, Comparable, Sendable, CustomStringConvertible {
  public let uuid: UUID

  public init(_ uuid: UUID) { self.uuid = uuid }

  /// A new random peer identity.
  public static func generate() -> PeerID { PeerID(UUID()) }

  /// Parses a UUID string.
  public init?(_ string: String) {
    guard let uuid = UUID(uuidString: string) else { return nil }
    self.uuid = uuid
  }

  /// The 16 bytes of the UUID, as stored and encoded.
  public var bytes: [UInt8] {
    withUnsafeBytes(of: uuid.uuid) { Array($0) }
  }

  /// Builds an identity from 16 bytes.
  public init?<C: Collection>(bytes: C) where C.Element == UInt8 {
    guard bytes.count == 16 else { return nil }
    var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    withUnsafeMutableBytes(of: &raw) { buffer in
      for (index, byte) in bytes.enumerated() { buffer[index] = byte }
    }
    self.uuid = UUID(uuid: raw)
  }

  /// Peers are ordered by their bytes: the tie-break of equal clock readings.
  public static func < (lhs: PeerID, rhs: PeerID) -> Bool {
    // Compared in place: merging compares versions whose clocks are equal
    // (every column of one write), and copying bytes out costs two arrays.
    withUnsafeBytes(of: lhs.uuid.uuid) { left in
      withUnsafeBytes(of: rhs.uuid.uuid) { right in memcmp(left.baseAddress!, right.baseAddress!, 16) < 0 }
    }
  }

  /// Lowercase UUID string.
  public var description: String { uuid.uuidString.lowercased() }

  /// The first 8 hex digits, enough to tell peers apart in logs.
  public var shortDescription: String { String(description.prefix(8)) }
}
