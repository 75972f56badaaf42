import Chronicle

/// Blobs larger than a frame travel as consecutive parts (`blobPart`), as
/// large events do, so frames stay small (and with them the memory a
/// session buffers) while a blob may be as large as the receiver's
/// ``NetworkSyncConfiguration/maxBlobSize``.
extension BlobStreams {
  /// Sends `bytes` as one `blob` message when it fits in a frame, else in parts.
  static func sendBlob(
    _ hash: BlobHash, _ bytes: [UInt8], over connection: inout FramedConnection, configuration: NetworkSyncConfiguration
  ) async throws {
    let limit = configuration.maxFrameSize - SessionCipher.overhead - 64
    guard bytes.count > limit else {
      try await connection.send(.blob(hash, bytes))
      return
    }
    var start = 0
    while start < bytes.count {
      let end = min(start + limit, bytes.count)
      try await connection.send(.blobPart(hash, total: bytes.count, bytes: Array(bytes[start..<end])))
      start = end
    }
  }

  /// The whole blob that `message` starts: its own bytes for `blob`; for a
  /// first `blobPart`, the parts that follow until the blob is whole. Nil
  /// for any other message. A part that does not continue the blob, or a
  /// blob over ``NetworkSyncConfiguration/maxBlobSize``, ends the session.
  static func wholeBlob(
    startingWith message: WireMessage, over connection: inout FramedConnection, configuration: NetworkSyncConfiguration
  ) async throws -> (hash: BlobHash, bytes: [UInt8])? {
    switch message {
    case .blob(let hash, let bytes):
      return (hash, bytes)
    case .blobPart(let hash, let total, let first):
      guard total <= configuration.maxBlobSize else {
        throw connection.violation("a blob of \(total) bytes, over this side's limit of \(configuration.maxBlobSize) (maxBlobSize)")
      }
      var bytes = first
      while true {
        guard !bytes.isEmpty, bytes.count <= total else {
          throw connection.violation("a part of a blob that does not continue it (\(bytes.count) of \(total) bytes)")
        }
        if bytes.count == total { return (hash, bytes) }
        let next = try await connection.receive("the next part of a blob", within: configuration.frameTimeout)
        guard case .blobPart(let nextHash, let nextTotal, let more) = next, nextHash == hash, nextTotal == total, !more.isEmpty else {
          throw connection.violation("\(next.name) inside blob \(hash.hex.prefix(16))…, which it was sending in parts")
        }
        bytes += more
      }
    default:
      return nil
    }
  }
}
