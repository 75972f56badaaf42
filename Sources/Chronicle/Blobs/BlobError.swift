/// Why a blob could not be stored or read.
public enum BlobError: Error, Equatable, CustomStringConvertible {
  /// The bytes offered as `expected` hash to `actual`: corrupted or forged.
  case hashMismatch(expected: BlobHash, actual: BlobHash)
  /// The store's folder or file could not be read or written.
  case storage(path: String, reason: String)

  public var description: String {
    switch self {
    case .hashMismatch(let expected, let actual):
      "blob \(expected.hex.prefix(16))… was refused: its bytes hash to \(actual.hex.prefix(16))… (corrupted or forged on the way); nothing was stored"
    case .storage(let path, let reason):
      "blob storage failed at \(path): \(reason)"
    }
  }
}
