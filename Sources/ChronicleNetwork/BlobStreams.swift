import Chronicle

/// The blob half of the protocol: a client asks which blobs the server
/// lacks and pushes them, or requests blobs and stores them as they come.
/// Every blob is verified against its hash by the store that receives it,
/// one at a time, so memory stays bounded by one blob and an interrupted
/// transfer keeps every blob already stored.
enum BlobStreams {
  /// Hashes per query or request message.
  static let hashesPerMessage = 4096

  // MARK: Client

  /// Requests the blobs of `hashes` that `store` lacks and stores each as it arrives.
  static func fetch(
    _ hashes: [BlobHash], into store: some BlobStore, over connection: inout FramedConnection,
    configuration: NetworkSyncConfiguration, progress: (@Sendable (BlobTransferReport) -> Void)?
  ) async throws -> BlobTransferReport {
    var report = BlobTransferReport()
    for batch in hashes.batched(hashesPerMessage) {
      try await connection.send(.blobRequest(batch))
      var pending = Set(batch)
      while true {
        let message = try await connection.receive("a requested blob", within: configuration.frameTimeout)
        switch message {
        case .blob, .blobPart:
          let (hash, bytes) = try await wholeBlob(startingWith: message, over: &connection, configuration: configuration)!
          guard pending.remove(hash) != nil else {
            throw NetworkSyncError.protocolViolation(peer: connection.peerName, reason: "sent blob \(hash.hex.prefix(16))…, which was not requested")
          }
          try await offload { try store.write(bytes, as: hash) }
          report.stored += 1
          report.bytes += bytes.count
          progress?(report)
        case .blobList(let unavailable):
          guard Set(unavailable).isSubset(of: pending) else {
            throw NetworkSyncError.protocolViolation(peer: connection.peerName, reason: "listed blobs as unavailable that were not requested or were sent")
          }
          report.unavailable += unavailable
        default:
          throw connection.unexpected(message, waitingFor: "a requested blob")
        }
        if case .blobList = message { break }
      }
    }
    return report
  }

  /// Pushes the blobs of `hashes` the server lacks, from `store`.
  static func push(
    _ hashes: [BlobHash], from store: some BlobStore, over connection: inout FramedConnection,
    configuration: NetworkSyncConfiguration, progress: (@Sendable (BlobTransferReport) -> Void)?
  ) async throws -> BlobTransferReport {
    var report = BlobTransferReport(), sentSoFar = BlobTransferReport()
    var pacer = SendPacer(rate: configuration.maxSendRate)
    for batch in hashes.batched(hashesPerMessage) {
      try await connection.send(.blobQuery(batch))
      let answer = try await connection.receive("the list of blobs it lacks", within: configuration.frameTimeout)
      guard case .blobList(let lacking) = answer else { throw connection.unexpected(answer, waitingFor: "the list of blobs it lacks") }
      guard Set(lacking).isSubset(of: Set(batch)) else {
        throw NetworkSyncError.protocolViolation(peer: connection.peerName, reason: "asked for blobs that were not offered")
      }
      var sent = 0
      for hash in lacking {
        guard let bytes = try await offload({ try store.read(hash) }) else {
          report.unavailable.append(hash)
          continue
        }
        try await sendBlob(hash, bytes, over: &connection, configuration: configuration)
        try await pacer.sent(bytes.count)
        sent += 1
        sentSoFar.stored += 1
        sentSoFar.bytes += bytes.count
        progress?(sentSoFar)
      }
      guard sent > 0 else { continue }
      try await connection.send(.end)
      let stored = try await connection.receive("the blobs stored report", within: configuration.frameTimeout)
      guard case .blobsStored(let count, let bytes) = stored else { throw connection.unexpected(stored, waitingFor: "the blobs stored report") }
      report.stored += count
      report.bytes += bytes
    }
    return report
  }

  // MARK: Server

  /// Answers a query with the hashes `store` lacks.
  static func answerQuery(_ hashes: [BlobHash], store: some BlobStore, over connection: inout FramedConnection) async throws {
    let missing = try await offload { try store.missing(hashes) }
    try await connection.send(.blobList(missing))
  }

  /// Streams the requested blobs `store` holds intact, then lists those it does not.
  static func serveRequest(
    _ hashes: [BlobHash], from store: some BlobStore, over connection: inout FramedConnection, configuration: NetworkSyncConfiguration
  ) async throws -> Int {
    var pacer = SendPacer(rate: configuration.maxSendRate)
    var unavailable: [BlobHash] = []
    var sent = 0
    for hash in Set(hashes).sorted() {
      // A blob damaged in this store is not sent: the client must get it elsewhere.
      guard let bytes = try await offload({ try store.read(hash).flatMap { BlobHash(of: $0) == hash ? $0 : nil } }) else {
        unavailable.append(hash)
        continue
      }
      try await sendBlob(hash, bytes, over: &connection, configuration: configuration)
      try await pacer.sent(bytes.count)
      sent += 1
    }
    try await connection.send(.blobList(unavailable))
    return sent
  }

  /// Stores the blobs a client pushes, starting with the one `first` starts
  /// (a blob or its first part), until the end of the stream; answers with
  /// what was stored. A blob that does not match its hash ends the session
  /// (the blobs stored before it stay: each is whole).
  static func receivePush(
    first: WireMessage, into store: some BlobStore, over connection: inout FramedConnection, configuration: NetworkSyncConfiguration
  ) async throws -> BlobTransferReport {
    var report = BlobTransferReport()
    var message = first
    while true {
      if case .end = message { break }
      guard let (hash, bytes) = try await wholeBlob(startingWith: message, over: &connection, configuration: configuration) else {
        throw connection.unexpected(message, waitingFor: "a blob or the end of the stream")
      }
      try await offload { try store.write(bytes, as: hash) }
      report.stored += 1
      report.bytes += bytes.count
      message = try await connection.receive("a blob or the end of the stream", within: configuration.frameTimeout)
    }
    try await connection.send(.blobsStored(count: report.stored, bytes: report.bytes))
    return report
  }
}

extension Array {
  /// Consecutive slices of at most `size` elements.
  func batched(_ size: Int) -> [[Element]] {
    stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
  }
}
