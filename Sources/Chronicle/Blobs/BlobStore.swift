/// Content-addressed storage for bytes that travel beside the event log:
/// file contents, attachments, anything too large or too numerous to belong
/// in rows. Rows refer to blobs by ``BlobHash``; transports move the blobs a
/// peer lacks (``copy(_:to:)`` between stores, `TCPTransport.fetchBlobs`
/// and `sendBlobs` over the network).
///
/// A store only ever holds bytes that match their hash: ``write(_:as:)``
/// verifies before storing, so a blob received from a peer cannot be
/// corrupted or forged on the way in.
public protocol BlobStore: Sendable {
  /// Whether the store holds `hash`.
  func contains(_ hash: BlobHash) throws -> Bool
  /// The bytes stored as `hash`, or `nil` when the store lacks it.
  func read(_ hash: BlobHash) throws -> [UInt8]?
  /// Stores `bytes` as `hash`; throws ``BlobError/hashMismatch(expected:actual:)``
  /// (storing nothing) when they do not hash to it. Storing a blob the store
  /// already holds does nothing.
  func write(_ bytes: [UInt8], as hash: BlobHash) throws
}

/// What a blob transfer moved.
public struct BlobTransferReport: Sendable, Equatable {
  /// Blobs stored by the receiving side.
  public var stored = 0
  /// Their bytes.
  public var bytes = 0
  /// Blobs asked for that the source does not hold either.
  public var unavailable: [BlobHash] = []

  public init() {}

  /// Adds another transfer's counts to this one.
  public mutating func add(_ other: BlobTransferReport) {
    stored += other.stored
    bytes += other.bytes
    unavailable += other.unavailable
  }
}

extension BlobStore {
  /// The hashes of `hashes` this store lacks, once each, in the order given.
  public func missing(_ hashes: some Sequence<BlobHash>) throws -> [BlobHash] {
    var seen = Set<BlobHash>()
    var result: [BlobHash] = []
    for hash in hashes where seen.insert(hash).inserted {
      if try !contains(hash) { result.append(hash) }
    }
    return result
  }

  /// Copies the blobs of `hashes` that `destination` lacks, one at a time
  /// (memory stays bounded by one blob). Blobs this store lacks too, or
  /// holds damaged, are listed in the report's ``BlobTransferReport/unavailable``.
  public func copy(_ hashes: some Sequence<BlobHash>, to destination: some BlobStore) throws -> BlobTransferReport {
    var report = BlobTransferReport()
    for hash in try destination.missing(hashes) {
      guard let bytes = try read(hash), BlobHash(of: bytes) == hash else {
        // Missing, or damaged here: the destination must get it elsewhere.
        report.unavailable.append(hash)
        continue
      }
      try destination.write(bytes, as: hash)
      report.stored += 1
      report.bytes += bytes.count
    }
    return report
  }
}
